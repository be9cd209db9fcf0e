"""The ASGI application: Django's HTTP views and the WebSockets of the live pages.

``manage.py runserver`` serves it through daphne (development); production runs it under gunicorn
with uvicorn workers (deploy/). WebSocket connections are accepted only from the allowed hosts and
carry the session's user, so an organiser's board hears of held-back rounds too.
"""
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stich.settings")
django_application = get_asgi_application()  # sets Django up before the routing imports models

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from tournaments.live import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter({
    "http": django_application,
    "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
})
