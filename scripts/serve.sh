#!/usr/bin/env bash
# Install, migrate, load the demo and serve on http://127.0.0.1:8000 — SQLite, tasks in-process.
# Usage: bash scripts/serve.sh [ADDRESS:PORT]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/install.sh
export DEBUG="${DEBUG:-1}"
python manage.py migrate --noinput
python manage.py createcachetable  # the throttles' shared cache when there is no Redis
python manage.py load_demo
exec python manage.py runserver "${1:-127.0.0.1:8000}"
