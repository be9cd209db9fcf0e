#!/usr/bin/env bash
# Install what the tests need and run the whole suite: bash scripts/test.sh [pytest args]
# With DATABASE_URL and REDIS_URL set (CI), the suite runs on PostgreSQL, Redis and live workers.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS=test source scripts/install.sh
# Tools from Debian's packages that some tests use (root only; the tests skip without them).
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  missing=()
  command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
  [ -x /usr/bin/chromium ] || missing+=(chromium)  # the browser tests (Playwright drives it)
  [ -x /usr/bin/chromium-headless-shell ] || missing+=(chromium-headless-shell)  # the same engine, lighter (tests/pages/test_browser.py)
  command -v nginx >/dev/null 2>&1 || missing+=(nginx-light)  # the rehearsal's balancer (tests/deploy)
  command -v pg_dump >/dev/null 2>&1 || missing+=(postgresql-client)  # backups (tests/deploy)
  [ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)  # the transaction pooler (tests/deploy/test_pgbouncer.py)
  command -v npm >/dev/null 2>&1 || missing+=(npm)  # the TypeScript client check (tests/api/test_generated_client.py)
  if [ ${#missing[@]} -gt 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}") >/dev/null 2>&1 \
      || echo "note: could not install ${missing[*]}; the tests that need them will skip"
  fi
fi
export DEBUG="${DEBUG:-1}"
# The layering (.importlinter): stich > ratings > tournaments > games, the engine pure Python.
lint-imports --no-cache
# Two processes (pytest-xdist, one per core; TEST_WORKERS=0 runs in this process), a test file kept
# on one worker so that its module fixtures are built once; each worker has its own test database
# and Redis database (stich/test_settings.py).
exec python -m pytest -n "${TEST_WORKERS:-auto}" --dist loadfile "$@"
