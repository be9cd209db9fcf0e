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
# The guide (docs/, mkdocs.yml), served under /guide/. Its screenshots are taken by the browser
# tests (bash scripts/test.sh tests/docs/test_guide.py writes docs/img/); without them it is built
# all the same, its pictures missing.
address="${1:-127.0.0.1:8000}"
if python -m mkdocs build --quiet --site-dir site; then
  echo "The guide: http://${address}/guide/ (built into $(pwd)/site/index.html)"
  ls docs/img/*.png >/dev/null 2>&1 \
    || echo "  its screenshots are missing: bash scripts/test.sh tests/docs/test_guide.py takes them"
else
  echo "note: the guide could not be built (python -m mkdocs build)"
fi
exec python manage.py runserver "$address"
