# The hand tables move to the tournaments app (tournaments 0003 takes them over): only Django's
# model state changes here; the tables and their rows stay as they are.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0001_initial'),
        ('tournaments', '0002_seating_draw'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name='IdempotentSubmission'),
                migrations.DeleteModel(name='HandVersion'),
                migrations.DeleteModel(name='Hand'),
            ],
            database_operations=[],
        ),
    ]
