"""English pages write dates day first, as British and most European readers do (25/11/2026,
25 November 2026), not in the US order Django's "en" has: the clubs are European, and an en-GB
browser gets the "en" pages (there is one English catalogue)."""
from django.conf.locale.en_GB.formats import *  # noqa: F401,F403
