# Hands, their versions and idempotent submissions, taken over from the games app with their
# tables (games 0002): state only, the database is unchanged.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0002_seating_draw'),
        ('games', '0002_hands_move_to_tournaments'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    state_operations = [
        migrations.CreateModel(
            name='Hand',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('number', models.PositiveIntegerField()),
                ('dealer', models.PositiveSmallIntegerField()),
                ('record', models.JSONField(blank=True, null=True)),
                ('result', models.JSONField(blank=True, null=True)),
                ('voided', models.BooleanField(default=False)),
                ('version', models.PositiveIntegerField(default=1)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('session', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='hands', to='tournaments.session')),
            ],
            options={'ordering': ['session', 'number'], 'db_table': 'games_hand'},
        ),
        migrations.CreateModel(
            name='HandVersion',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('version', models.PositiveIntegerField()),
                ('record', models.JSONField(blank=True, null=True)),
                ('result', models.JSONField(blank=True, null=True)),
                ('voided', models.BooleanField(default=False)),
                ('via_scorer_token', models.BooleanField(default=False)),
                ('reason', models.TextField(blank=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                ('hand', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='versions', to='tournaments.hand')),
            ],
            options={'ordering': ['hand', 'version'], 'db_table': 'games_handversion'},
        ),
        migrations.CreateModel(
            name='IdempotentSubmission',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.CharField(max_length=200)),
                ('scope', models.CharField(max_length=64)),
                ('status_code', models.PositiveSmallIntegerField()),
                ('body', models.JSONField()),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('session', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tournaments.session')),
            ],
            options={'db_table': 'games_idempotentsubmission'},
        ),
        migrations.AddConstraint(
            model_name='hand',
            constraint=models.UniqueConstraint(fields=('session', 'number'), name='hand_number_unique'),
        ),
        migrations.AddConstraint(
            model_name='handversion',
            constraint=models.UniqueConstraint(fields=('hand', 'version'), name='hand_version_unique'),
        ),
        migrations.AddConstraint(
            model_name='idempotentsubmission',
            constraint=models.UniqueConstraint(fields=('scope', 'key'), name='idempotency_key_unique'),
        ),
    ]

    operations = [migrations.SeparateDatabaseAndState(state_operations=state_operations, database_operations=[])]
