"""The browsable API without its HTML forms.

DRF's forms list every choice of a related field (``Player.__str__`` is the real name, users are
listed by user name) and django-filter's form lists every round and table: they would show what the
visibility policy hides. The browsable API keeps its raw JSON form, which lists nothing.
"""
from rest_framework import renderers


class BrowsableAPIRenderer(renderers.BrowsableAPIRenderer):
    def get_rendered_html_form(self, data, view, method, request):
        return None

    def get_filter_form(self, data, view, request):
        return None
