# Sourced by serve.sh and test.sh: a virtual environment with the pinned dependencies.
# EXTRAS="test" installs the test tools as well.
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# shellcheck disable=SC1091
source .venv/bin/activate
stamp=".venv/.installed-$(cat pyproject.toml constraints.txt | sha256sum | cut -c1-16)-${EXTRAS:-base}"
if [ ! -f "$stamp" ]; then
  python -m pip install --quiet --disable-pip-version-check --upgrade pip
  python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".${EXTRAS:+[$EXTRAS]}"
  touch "$stamp"
fi
