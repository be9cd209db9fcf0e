"""Settings from the environment (12-factor).

``DATABASE_URL`` (default: the embedded SQLite file), ``REDIS_URL`` (default: none — Celery then
runs tasks in-process, eagerly), ``SECRET_KEY`` (a development default only with ``DEBUG`` on),
``ALLOWED_HOSTS``, ``DEBUG``, and the production switches (HTTPS, proxies, limits). Every variable
is listed in README.md, Configuration; ``deploy/env.example`` is the production environment that
``manage.py check --deploy`` passes without a warning (tests/reliability/test_settings.py).
"""
import sys
from pathlib import Path

import environ
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False) if (BASE_DIR / ".env").exists() else None

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = "development-only-not-secret"
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# HTTPS. Off by default (``scripts/serve.sh`` serves plain HTTP on a laptop); deploy/env.example
# turns every switch on. Behind a TLS-terminating proxy, ``SECURE_PROXY_SSL_HEADER`` names the
# header the proxy sets (``HTTP_X_FORWARDED_PROTO``): only then does Django know a request came
# over HTTPS. The probes call ``/livez``, ``/readyz`` and ``/healthz`` over plain HTTP, so they are
# exempt from the redirect.
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=False)
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^livez$", r"^readyz$"]
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=False)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=False)
_proxy_ssl_header = env.str("SECURE_PROXY_SSL_HEADER", default="")
SECURE_PROXY_SSL_HEADER = (_proxy_ssl_header, "https") if _proxy_ssl_header else None

# Reverse proxies in front of the service that append the client's address to X-Forwarded-For.
# 0 (the default) ignores the header, which any client can write: throttles and login lockouts
# then count the connecting address.
NUM_PROXIES = env.int("NUM_PROXIES", default=0)

INSTALLED_APPS = [
    # First: its ``runserver`` serves the ASGI application (HTTP and the live pages' WebSockets).
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "csp",
    "channels",
    "tournaments",
    "games",
    "ratings",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # The Content-Security-Policy of every answer, and compression of pages for requests without
    # credentials (stich/security.py); above the rest, so they see every answer's final body.
    "stich.security.ContentSecurityPolicyMiddleware",
    "stich.security.AnonymousGZipMiddleware",
    # Before anything reads a body: oversized API bodies get the JSON 413.
    "stich.errors.BodySizeLimitMiddleware",
    # A NUL in the path, query string or a header: 400 before any view or query sees it.
    "stich.errors.RequestTextMiddleware",
    # A method the API address does not serve: 405 before authentication and permissions.
    "stich.errors.MethodFirstMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into its lockout answer.
    "axes.middleware.AxesMiddleware",
]

# Scripts and styles from the site only, no inline script; the admin's and the API tools' pages
# may use inline script and style (stich/security.py).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF],
        "font-src": [SELF],
        "connect-src": [SELF],  # 'self' covers the live pages' WebSocket to the same host
        "worker-src": [SELF],
        "manifest-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

ROOT_URLCONF = "stich.urls"
WSGI_APPLICATION = "stich.wsgi.application"
ASGI_APPLICATION = "stich.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
            ],
        },
    },
]

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'stich.sqlite3'}")}
DATABASES["default"].setdefault("ATOMIC_REQUESTS", False)
# Connections per serving shape (README.md, Connections), so that no shape can exhaust the server.
# A process serving WSGI (gunicorn's sync workers) or running Celery tasks handles one request or
# task at a time: it keeps one persistent connection for CONN_MAX_AGE seconds (0: a new one per
# request), checked before reuse so a restarted database is survived. A process serving the ASGI
# application (gunicorn with uvicorn workers, uvicorn, daphne, ``manage.py runserver``) runs each
# request in a thread of its own, where persistent connections pile up per thread; there the
# process draws from a pool of at most DB_POOL_SIZE connections (psycopg_pool; a request waits up
# to DB_POOL_TIMEOUT seconds for one, then fails), and without a pool it opens one per request.
SERVES_ASGI = any(arg.startswith("stich.asgi") for arg in sys.argv[1:]) or sys.argv[1:2] == ["runserver"]
DB_POOL_SIZE = env.int("DB_POOL_SIZE", default=4) if SERVES_ASGI else 0
DATABASES["default"]["CONN_MAX_AGE"] = 0 if SERVES_ASGI else env.int("CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite serialises writers; wait for the lock instead of failing at once.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("timeout", 20)
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend with a health check that polls the socket before it sends SELECT 1
    # (stich/db/postgresql/base.py).
    DATABASES["default"]["ENGINE"] = "stich.db.postgresql"
    # Prepared statements only where asked for: hand submission's constant statements
    # (tournaments/results/sql.py), planned once per connection. Django's other queries bind on the
    # client and are never prepared. (A pooler in transaction mode would need this off: 0 = None.)
    threshold = env.int("DB_PREPARE_THRESHOLD", default=2**31 - 1)
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("prepare_threshold", threshold or None)
    if DB_POOL_SIZE > 0:
        # A pool and persistent connections exclude each other: the pool keeps the connections.
        DATABASES["default"]["CONN_MAX_AGE"] = 0
        DATABASES["default"]["OPTIONS"]["pool"] = {
            "min_size": 1,
            "max_size": DB_POOL_SIZE,
            "timeout": env.float("DB_POOL_TIMEOUT", default=10.0),
            "max_idle": 300.0,
        }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# django-axes first (it refuses a locked-out login before any password is checked); the policy's
# permissions (tournaments/policy.py, the ``rules`` package) answer ``has_perm`` for objects;
# Django's own backend answers for staff's model permissions in the admin.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "rules.permissions.ObjectPermissionBackend",
    "django.contrib.auth.backends.ModelBackend",
]

# Organisers log in with Django's own views (/accounts/login/) and land in their console.
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "console:home"
LOGOUT_REDIRECT_URL = "pages:home"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Login lockout (django-axes) on every password login (/admin/login/, /api-auth/login/): the
# AXES_FAILURE_LIMIT-th wrong password for one account locks that account for AXES_COOLOFF_MINUTES,
# whatever address the attempts come from, and a right password is refused meanwhile (429); as
# many failures from one address lock that address (one guesser trying many accounts). Locking by
# account stops a guesser that spreads over many addresses; the price, an account that someone
# keeps locked, is lifted by the cool-off or ``python manage.py axes_reset_username NAME``.
# Attempts are kept in the database.
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=10)
AXES_COOLOFF_TIME = env.float("AXES_COOLOFF_MINUTES", default=15.0) / 60  # hours
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_HTTP_RESPONSE_CODE = 429
# The client's address for the log, with the same trust in X-Forwarded-For as the throttles.
AXES_IPWARE_PROXY_COUNT = NUM_PROXIES or None
AXES_IPWARE_META_PRECEDENCE_ORDER = ["HTTP_X_FORWARDED_FOR", "REMOTE_ADDR"] if NUM_PROXIES else ["REMOTE_ADDR"]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("de", "Deutsch"), ("fi", "Suomi")]
LOCALE_PATHS = [BASE_DIR / "locale"]
FORMAT_MODULE_PATH = ["stich.formats"]  # English dates day first (stich/formats/en/formats.py)
TIME_ZONE = env.str("TIME_ZONE", default="Europe/Berlin")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]  # the public pages' stylesheet (static/stich/)
# The guide as MkDocs builds it (mkdocs.yml's site_dir), served under /guide/ (stich/guide.py).
GUIDE_DIR = Path(env.str("GUIDE_DIR", default=str(BASE_DIR / "site")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "tournaments.api.authentication.TokenAuthentication",  # a malformed Authorization header is 401
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["tournaments.api.permissions.PolicyPermission"],
    # JSON only, with size and depth limits (games/parsers.py): hostile bodies get 413/400 JSON, a
    # form or multipart body 415. The schema documents JSON bodies only (the browsable API's raw
    # form sends JSON too).
    "DEFAULT_PARSER_CLASSES": ["games.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer", "tournaments.api.renderers.BrowsableAPIRenderer"],
    "DEFAULT_FILTER_BACKENDS": [
        "tournaments.api.filtering.FilterBackend",  # an id that matches nothing: an empty list
        "rest_framework.filters.OrderingFilter",
    ],
    # ``?page=N&page_size=M``: 50 a page unless asked, at most 200 (tournaments/api/pagination.py).
    "DEFAULT_PAGINATION_CLASS": "tournaments.api.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "stich.errors.json_exception_handler",
    "DEFAULT_THROTTLE_RATES": {"dry_run": env.str("DRY_RUN_THROTTLE", default="120/min"),
                               # registering and withdrawing by link, per client address (API and page)
                               "registration": env.str("REGISTRATION_THROTTLE", default="20/hour")},
    "NUM_PROXIES": NUM_PROXIES,
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Stich API",
    "DESCRIPTION": "Tournaments and ratings for Mü, Dynamisches Maumau and Mit List und Tücke.",
    "VERSION": "1.0.0",
    # OpenAPI 3.1: JSON Schema 2020-12, so nullable references (``oneOf`` with ``null``) and the
    # record format's schemas (``const``, ``null`` members) are stated as validators read them.
    "OAS_VERSION": "3.1.0",
    # Operation ids and tags without the version prefix: ``clubs_list``, tag ``clubs``.
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Served from the project itself: a club's offline laptop reaches no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # The table's scorer link authenticates hand submissions with a header of its own.
    "APPEND_COMPONENTS": {
        "securitySchemes": {
            "scorerToken": {
                "type": "apiKey", "in": "header", "name": "X-Scorer-Token",
                "description": "The table's scorer secret (its private link): submits hands to that table only.",
            },
        },
    },
    "COMPONENT_SPLIT_REQUEST": True,
    # A registration's status: its own enumeration beside a session's (both members named "status").
    "ENUM_NAME_OVERRIDES": {"RegistrationStatusEnum": "tournaments.models.Registration.Status",
                            "GameEnum": "games.catalog.GAME_CHOICES",  # an event's game and a season's games
                            "StatusEnum": "tournaments.models.Session.Status"},
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "stich.schema.add_error_responses",
    ],
}

# What clients may send. A hand record's JSON is at most MAX_RECORD_BYTES (unknown members count
# towards it); other JSON bodies carry a record with a little around it (a correction's reason).
# Larger bodies are refused with 413 before they are read, nested deeper than games.parsers.MAX_DEPTH
# with 400, both in the JSON error shape.
MAX_RECORD_BYTES = env.int("MAX_RECORD_BYTES", default=256 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_RECORD_BYTES + 16 * 1024

# Redis plays three roles, each of which may have a server of its own (deploy/README.md, "Redis"):
# the Celery broker and result backend (CELERY_BROKER_URL), the live pages' channel layer
# (CHANNEL_LAYER_URL) and the shared cache (CACHE_URL). Each defaults to REDIS_URL; one Redis for
# all three is the simple case, separate ones keep an outage of one from touching the others.
REDIS_URL = env.str("REDIS_URL", default="")
BROKER_URL = env.str("CELERY_BROKER_URL", default="")  # empty: REDIS_URL (stich/health.py asks it)
CHANNEL_LAYER_URL = env.str("CHANNEL_LAYER_URL", default="") or REDIS_URL
CACHE_URL = env.str("CACHE_URL", default="") or REDIS_URL

# One cache for every process (throttles count per client across gunicorn workers and hosts):
# Redis when configured (``CACHE_URL``, else ``REDIS_URL``), else a cache on this machine's disk
# (``CACHE_DIR``: diskcache's SQLite files, not the service's database, whose queries and write
# lock it would share; ``add`` and ``incr`` are atomic across the machine's processes). Never
# ``cache.clear()``: on Redis that would empty the broker's database too.
if CACHE_URL:
    CACHES = {"default": {
        "BACKEND": "stich.cache.RedisCache",  # Django's, one Redis client per pool (stich/cache.py)
        "LOCATION": CACHE_URL,
        "KEY_PREFIX": "stich",
        "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
    }}
else:
    CACHES = {"default": {"BACKEND": "diskcache.DjangoCache",
                          "LOCATION": env.str("CACHE_DIR", default=str(BASE_DIR / "stich-cache")),
                          "SHARDS": 1}}

# Celery: with no broker (neither CELERY_BROKER_URL nor REDIS_URL), tasks run in-process and
# eagerly (the embedded default).
CELERY_BROKER_URL = BROKER_URL or REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = BROKER_URL or REDIS_URL or "cache+memory://"
CELERY_TASK_ALWAYS_EAGER = not (BROKER_URL or REDIS_URL)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
VISIBILITY_TIMEOUT = env.int("CELERY_VISIBILITY_TIMEOUT", default=3600)
# A task whose worker died unacknowledged is delivered again after the visibility timeout; workers
# sweep for such tasks at start and then every few seconds (every second with a short timeout).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": VISIBILITY_TIMEOUT,
    "unacked_restore_interval": max(1, min(10, VISIBILITY_TIMEOUT // 3)),
    "unacked_restore_throttle": 1,
}
CELERY_RESULT_EXPIRES = 3600
# Publishing fails fast when the broker is down: the web process must answer at once, the work is
# already recorded in the database (ratings/outbox.py) and the periodic catch-up delivers it.
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_BROKER_TRANSPORT_OPTIONS["socket_connect_timeout"] = 2
CELERY_BROKER_TRANSPORT_OPTIONS["max_retries"] = 1
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.1, "interval_max": 0.1}
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 2
CELERY_BEAT_SCHEDULE = {}  # filled below, once the ratings settings are known

# Live pages (room screen, event page, the console's board) are told of new results through a
# channel layer: Redis when there is one, so that every web process hears every change; in memory
# on the embedded default (one process: ``manage.py runserver``).
# On Redis (stich/layers.py): at most CHANNEL_LAYER_CONNECTIONS connections per process, commands
# wait for a free one, and a command broken by a Redis restart is tried again for
# CHANNEL_LAYER_RETRY_SECONDS.
CHANNEL_LAYERS = {
    "default": {"BACKEND": "stich.layers.BoundedRedisChannelLayer", "CONFIG": {
        "hosts": [CHANNEL_LAYER_URL],
        "max_connections": env.int("CHANNEL_LAYER_CONNECTIONS", default=20),
        "retry_seconds": env.float("CHANNEL_LAYER_RETRY_SECONDS", default=10.0),
    }} if CHANNEL_LAYER_URL else {"BACKEND": "channels.layers.InMemoryChannelLayer"}
}
# A new live socket that cannot join its groups within this many seconds (Redis down: the layer's
# retries would keep its handshake waiting for a minute and more) is refused with 4503 and the
# page polls (tournaments/live.py).
LIVE_JOIN_SECONDS = env.float("LIVE_JOIN_SECONDS", default=5.0)
# A hand from a table's scorer token moves its event's (and series') live versions with the web
# process's next push, one round trip to the cache for all the hands of that moment; off: each
# such hand bumps them before its answer, as every other writer's change does (tournaments/live.py).
LIVE_COALESCE_SCORER_HANDS = env.bool("LIVE_COALESCE_SCORER_HANDS", default=True)

# The public pages' live regions that tournaments/live.py renders once per change and language and
# pushes to the pages' sockets (name -> renderer(event_id, page=)).
LIVE_FRAGMENTS = {
    "screen": "stich.pages.views.screen_fragment",
    "standings": "stich.pages.views.standings_fragment",
    "rounds": "stich.pages.views.rounds_fragment",
}
# The same for the event's organisers (renderer(event_id, page=): the console's board, its page
# the round) and for the series pages (renderer(series_id, page=): the public standings, its page
# the window of event columns; ``top``: the series' top on the room screens of its events).
LIVE_ORGANISER_FRAGMENTS = {
    "board": "tournaments.console.views.board_fragment",
}
LIVE_SERIES_FRAGMENTS = {
    "standings": "stich.pages.series.standings_fragment",
    "screen": "stich.pages.series.screen_fragment",
    "top": "stich.pages.series.top_fragment",
}

# Planning every round of a fixed roster at once (the console's plan of an event) searches
# for at most this many seconds, unless it reaches the lower bound of repeats first.
SEATING_PLAN_SECONDS = env.float("SEATING_PLAN_SECONDS", default=5.0)

# Ratings: sigma grows with the days between a player's sessions (ratings/model.py); 0 turns the
# decay off, and then the numbers equal openskill's PlackettLuce.
RATINGS_DECAY_PER_DAY = env.float("RATINGS_DECAY_PER_DAY", default=0.0)
# A player's win chance is marked provisional ("new") until he has this many rated sessions of the
# game before it (ratings/outlook.py); 0 marks only a sigma still at the prior's.
RATINGS_PROVISIONAL_SESSIONS = env.int("RATINGS_PROVISIONAL_SESSIONS", default=5)
# Every RATINGS_CATCH_UP_SECONDS, Celery beat syncs each pool with a sync request left over (its
# task was never queued, e.g. the broker was down): no rating update waits for an operator.
RATINGS_CATCH_UP_SECONDS = env.float("RATINGS_CATCH_UP_SECONDS", default=60.0)
CELERY_BEAT_SCHEDULE["ratings-catch-up"] = {
    "task": "ratings.catch_up",
    "schedule": RATINGS_CATCH_UP_SECONDS,
    # A catch-up nobody ran in time is superseded by the next one; they must not pile up.
    "options": {"expires": RATINGS_CATCH_UP_SECONDS},
}

# Every SERIES_CATCH_UP_SECONDS, Celery beat syncs each series whose kept standings have a sync
# request left over (tournaments/standings/outbox.py): its task was lost or never queued. Readers
# compute the standings meanwhile, so this bounds how long they do, not what they see.
SERIES_CATCH_UP_SECONDS = env.float("SERIES_CATCH_UP_SECONDS", default=60.0)
CELERY_BEAT_SCHEDULE["series-catch-up"] = {
    "task": "tournaments.series_catch_up",
    "schedule": SERIES_CATCH_UP_SECONDS,
    "options": {"expires": SERIES_CATCH_UP_SECONDS},
}

# Backups (tournaments/management/backups.py, README.md, Backups): with BACKUP_DIR set, Celery beat has a
# worker write one archive there on BACKUP_SCHEDULE (crontab's five fields, in UTC), keeping
# the newest BACKUP_KEEP (0: all). The directory must be on the workers' file system.
BACKUP_DIR = env.str("BACKUP_DIR", default="")
BACKUP_SCHEDULE = env.str("BACKUP_SCHEDULE", default="30 4 * * *")
BACKUP_KEEP = env.int("BACKUP_KEEP", default=14)
if BACKUP_DIR:
    from celery.schedules import crontab

    if len(BACKUP_SCHEDULE.split()) != 5:
        raise ImproperlyConfigured(f"BACKUP_SCHEDULE needs crontab's five fields, not {BACKUP_SCHEDULE!r}")
    _minute, _hour, _day_of_month, _month, _day_of_week = BACKUP_SCHEDULE.split()
    CELERY_BEAT_SCHEDULE["backup-database"] = {
        "task": "tournaments.backup_database",
        "schedule": crontab(minute=_minute, hour=_hour, day_of_month=_day_of_month, month_of_year=_month,
                            day_of_week=_day_of_week),
    }

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    # A refusal (403) is logged on one line, without a traceback (stich/logs.py).
    "filters": {"refusals_on_one_line": {"()": "stich.logs.RefusalsOnOneLine"}},
    "loggers": {
        # Tasks run in-process (no REDIS_URL) would log every success into the web server's output.
        "celery.app.trace": {"level": "INFO" if BROKER_URL or REDIS_URL else "WARNING"},
        "django.request": {"filters": ["refusals_on_one_line"]},
    },
}
