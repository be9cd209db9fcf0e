"""Ratings keep their displayed rating and trend (the pool keeps them from now on); the ratings
stored before are filled from their history here, as ``ratings.services`` computes them."""
from django.db import migrations, models

TREND_EVENTS = 5


def fill_leaderboard_columns(apps, schema_editor):
    from ratings.model import displayed_rating

    Rating = apps.get_model("ratings", "Rating")
    RatingHistory = apps.get_model("ratings", "RatingHistory")
    oldest_recent: dict[tuple[int, str], tuple[float, float]] = {}
    seen: dict[tuple[int, str], int] = {}
    rows = RatingHistory.objects.order_by("player_id", "game", "-position").values_list(
        "player_id", "game", "mu_before", "sigma_before")
    for player, game, mu_before, sigma_before in rows.iterator(chunk_size=5000):
        key = (player, game)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= TREND_EVENTS:
            oldest_recent[key] = (mu_before, sigma_before)
    changed = []
    for rating in Rating.objects.all().iterator(chunk_size=5000):
        rating.displayed = displayed_rating(rating.mu, rating.sigma)
        start = oldest_recent.get((rating.player_id, rating.game))
        rating.trend = rating.displayed - displayed_rating(*start) if start else 0
        changed.append(rating)
    Rating.objects.bulk_update(changed, ["displayed", "trend"], batch_size=2000)


class Migration(migrations.Migration):

    dependencies = [
        ('ratings', '0002_pool_sync_requests'),
        ('tournaments', '0007_session_totals'),
    ]

    operations = [
        migrations.AddField(
            model_name='pool',
            name='hidden',
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.AddField(
            model_name='rating',
            name='displayed',
            field=models.IntegerField(default=0),
        ),
        migrations.AddField(
            model_name='rating',
            name='trend',
            field=models.IntegerField(default=0),
        ),
        migrations.AddIndex(
            model_name='rating',
            index=models.Index(models.F('game'), models.OrderBy(models.F('displayed'), descending=True), models.OrderBy(models.F('mu'), descending=True), models.F('player'), name='rating_leaderboard'),
        ),
        migrations.RunPython(fill_leaderboard_columns, migrations.RunPython.noop),
    ]
