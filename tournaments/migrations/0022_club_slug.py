"""Clubs get the address of their public page (``/clubs/<slug>/``), made from their names."""
from django.db import migrations, models
from django.utils.text import slugify


def fill_slugs(apps, schema_editor):
    # The rule of ``models.unique_club_slug``, written out here: a migration keeps the rule of its day.
    Club = apps.get_model("tournaments", "Club")
    taken = set()
    for club in Club.objects.order_by("pk"):
        base = slugify(club.name)[:50].strip("-") or "club"
        slug, number = base, 1
        while slug in taken:
            number += 1
            slug = f"{base}-{number}"
        taken.add(slug)
        club.slug = slug
        club.save(update_fields=["slug"])


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0021_player_codes"),
    ]

    operations = [
        migrations.AddField(
            model_name="club",
            name="slug",
            # No index yet (filled first, then made unique with its index below: adding the
            # index twice fails on PostgreSQL, whose text pattern index the unique field adds too).
            field=models.SlugField(db_index=False, default="", editable=False, max_length=60, verbose_name="address"),
            preserve_default=False,
        ),
        migrations.RunPython(fill_slugs, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="club",
            name="slug",
            field=models.SlugField(editable=False, max_length=60, unique=True, verbose_name="address"),
        ),
    ]
