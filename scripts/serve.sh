#!/usr/bin/env bash
# Install, migrate, load the demo and serve on http://127.0.0.1:8000 — SQLite, tasks in-process,
# HTTP and the live pages' WebSockets (daphne's runserver, the ASGI application).
# Usage: bash scripts/serve.sh [ADDRESS:PORT]   e.g. 0.0.0.0:8080 to be reached from the club's network
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/install.sh
export DEBUG="${DEBUG:-1}"
python manage.py migrate --noinput
python manage.py load_demo
exec python manage.py runserver "${1:-127.0.0.1:8000}"
