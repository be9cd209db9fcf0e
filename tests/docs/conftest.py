"""Fixtures of the guide's tests: the public pages' (static files read from static/ directly)."""
from tests.pages.conftest import _plain_static_storage  # noqa: F401 - autouse fixture
