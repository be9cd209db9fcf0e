# The hand's and its version's indexes where they are needed: every index is written with every
# hand. The foreign keys' own indexes go (``hand_number_unique`` and ``hand_version_unique`` lead
# with the same column), and those of the users who confirmed or entered a hand hold only the rows
# that have one. Only the indexes are dropped: Django's AlterField would drop and re-add (and so
# re-check) the foreign keys too.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

_DROPPED = [
    ("games_hand_session_id_0b8318b4", "games_hand", "session_id"),
    ("games_hand_confirmed_by_id_cae9c73d", "games_hand", "confirmed_by_id"),
    ("games_handversion_hand_id_e0e89d6b", "games_handversion", "hand_id"),
    ("games_handversion_created_by_id_ad9353d3", "games_handversion", "created_by_id"),
]


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0022_club_slug'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='hand',
                    name='confirmed_by',
                    field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL),
                ),
                migrations.AlterField(
                    model_name='hand',
                    name='session',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='hands', to='tournaments.session'),
                ),
                migrations.AlterField(
                    model_name='handversion',
                    name='created_by',
                    field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL),
                ),
                migrations.AlterField(
                    model_name='handversion',
                    name='hand',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='versions', to='tournaments.hand'),
                ),
            ],
            database_operations=[
                migrations.RunSQL(f'DROP INDEX IF EXISTS "{name}"', reverse_sql=f'CREATE INDEX "{name}" ON "{table}" ("{column}")')
                for name, table, column in _DROPPED
            ],
        ),
        migrations.AddIndex(
            model_name='hand',
            index=models.Index(condition=models.Q(('confirmed_by__isnull', False)), fields=['confirmed_by'], name='hand_confirmed_by'),
        ),
        migrations.AddIndex(
            model_name='handversion',
            index=models.Index(condition=models.Q(('created_by__isnull', False)), fields=['created_by'], name='hand_version_created_by'),
        ),
    ]
