"""Sessions keep their totals and hand count (tournaments.results keeps them from now on); the
sessions stored before are filled from their hands here, as ``results.session_totals`` sums them:
the scores of every hand that counts (not voided, not waiting for confirmation)."""
from django.db import migrations, models


def fill_totals(apps, schema_editor):
    Session = apps.get_model("tournaments", "Session")
    Hand = apps.get_model("tournaments", "Hand")
    Seat = apps.get_model("tournaments", "Seat")
    seats: dict[int, int] = {}
    for table_id in Seat.objects.values_list("table_id", flat=True):
        seats[table_id] = seats.get(table_id, 0) + 1
    sums: dict[int, list[int]] = {}
    counts: dict[int, int] = {}
    hands = Hand.objects.order_by("session_id", "number").values_list(
        "session_id", "session__table_id", "voided", "unconfirmed", "result")
    for session_id, table_id, voided, unconfirmed, result in hands.iterator(chunk_size=5000):
        totals = sums.setdefault(session_id, [0] * seats.get(table_id, 0))
        counts[session_id] = counts.get(session_id, 0) + 1
        if not voided and not unconfirmed and result is not None:
            for seat, score in enumerate(result["scores"]):
                totals[seat] += score
    changed = []
    for session in Session.objects.filter(pk__in=list(sums)).only("pk").iterator(chunk_size=5000):
        session.totals, session.hand_count = sums[session.pk], counts[session.pk]
        changed.append(session)
    Session.objects.bulk_update(changed, ["totals", "hand_count"], batch_size=2000)


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0006_attendance'),
    ]

    operations = [
        migrations.AddField(
            model_name='session',
            name='hand_count',
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.AddField(
            model_name='session',
            name='rating_dirty_at',
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name='session',
            name='totals',
            field=models.JSONField(blank=True, default=list, editable=False),
        ),
        migrations.AddIndex(
            model_name='session',
            index=models.Index(condition=models.Q(('rating_dirty_at__isnull', False)), fields=['rating_dirty_at'], name='session_rating_dirty'),
        ),
        migrations.RunPython(fill_totals, migrations.RunPython.noop),
    ]
