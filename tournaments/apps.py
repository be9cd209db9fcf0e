from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the permissions with ``rules``, the live receivers, the series' sync receiver.
        from . import live, policy, tasks  # noqa: F401
