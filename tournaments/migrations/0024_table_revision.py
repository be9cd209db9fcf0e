# A table's revision: hand submission reads the table without its lock and stores the hand only
# while no write that takes the lock has happened since (tournaments/results/sql.py).

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0023_hand_indexes_where_needed'),
    ]

    operations = [
        migrations.AddField(
            model_name='table',
            name='revision',
            field=models.BigIntegerField(db_default=0, default=0, editable=False),
        ),
    ]
