"""The API's pages: ``?page=N`` (from 1) and ``?page_size=M`` (default ``PAGE_SIZE``, 50; at most
``MAX_PAGE_SIZE``, a larger value gives that many). ``next`` and ``previous`` keep the page size
asked for, so following them reads the same pages."""
from __future__ import annotations

from rest_framework import pagination

MAX_PAGE_SIZE = 200


class PageNumberPagination(pagination.PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE
    page_size_query_description = (f"Results per page: default 50, at most {MAX_PAGE_SIZE} (a larger value gives "
                                   f"{MAX_PAGE_SIZE}).")
    page_query_description = "The page number, from 1 (a page past the last one is 404)."

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                # No ``maximum``: a larger value is accepted and gives MAX_PAGE_SIZE rows (the
                # description says so); a ``maximum`` would promise a refusal that never comes.
                parameter["schema"] = {"type": "integer", "minimum": 1, "default": 50}
            elif parameter["name"] == self.page_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1, "default": 1}
        return parameters

    def get_paginated_response_schema(self, schema):
        link = {"type": ["string", "null"], "format": "uri"}
        return {
            "type": "object",
            "required": ["count", "next", "previous", "results"],
            "properties": {
                "count": {"type": "integer", "description": "Results on every page together."},
                "next": {**link, "description": "The next page (with the same page size); null on the last.",
                         "example": "https://stich.example/api/v1/players/?page=3&page_size=20"},
                "previous": {**link, "description": "The previous page; null on the first.",
                             "example": "https://stich.example/api/v1/players/?page=1&page_size=20"},
                "results": schema,
            },
        }
