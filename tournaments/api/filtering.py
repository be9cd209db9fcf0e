"""The API's list filters: a filter on a related object's id is a filter, not a lookup.

django-filter turns ``?club=7`` into a choice among the existing clubs, so an id that does not
exist (or that the user may not see) answered 400. Here such a filter takes any whole number and
an id that matches nothing gives an empty list, as a filter on any other field does; text that is
not a whole number is still 400.
"""
from __future__ import annotations

import django_filters
from django import forms
from django.db import models
from django_filters.filterset import FILTER_FOR_DBFIELD_DEFAULTS
from django_filters.rest_framework import DjangoFilterBackend, FilterSet

BIGGEST_ID = 2**63 - 1


class IdFilter(django_filters.Filter):
    field_class = forms.IntegerField

    def filter(self, qs, value):
        if value is not None and not 0 < value <= BIGGEST_ID:
            return qs.none()  # no row has such an id
        return super().filter(qs, value)


class IdFilterSet(FilterSet):
    FILTER_DEFAULTS = {
        **FILTER_FOR_DBFIELD_DEFAULTS,
        **{kind: {"filter_class": IdFilter} for kind in (
            models.ForeignKey, models.OneToOneField, models.ManyToManyField, models.OneToOneRel,
            models.ManyToOneRel, models.ManyToManyRel)},
    }


class FilterBackend(DjangoFilterBackend):
    filterset_base = IdFilterSet
