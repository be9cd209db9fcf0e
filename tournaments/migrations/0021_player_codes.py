import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("tournaments", "0020_series_season_options"),
    ]

    operations = [
        migrations.CreateModel(
            name="PlayerCode",
            fields=[
                ("player", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True,
                                                related_name="code", serialize=False, to="tournaments.player")),
                ("pin_digest", models.CharField(max_length=64, unique=True)),
                ("link_digest", models.CharField(max_length=64, unique=True)),
                ("issued_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("issued_by", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL,
                                                related_name="+", to=settings.AUTH_USER_MODEL)),
            ],
        ),
        migrations.CreateModel(
            name="PlayerDevice",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("digest", models.CharField(max_length=64, unique=True)),
                ("label", models.CharField(blank=True, max_length=120)),
                ("bound_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("revoked_at", models.DateTimeField(blank=True, null=True)),
                ("player", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="devices",
                                             to="tournaments.player")),
            ],
            options={"ordering": ["player", "-bound_at", "-id"]},
        ),
    ]
