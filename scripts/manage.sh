#!/usr/bin/env bash
# Any Django management command on the embedded defaults, from a fresh clone:
#   bash scripts/manage.sh drf_create_token organiser      # an API token for a user
#   bash scripts/manage.sh createsuperuser                 # a staff account for the admin
# Installs the virtual environment when needed and turns DEBUG on (a development SECRET_KEY), as
# serve.sh does; set DATABASE_URL, REDIS_URL or SECRET_KEY to use other settings.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/install.sh
export DEBUG="${DEBUG:-1}"
exec python manage.py "$@"
