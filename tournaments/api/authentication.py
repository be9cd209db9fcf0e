"""Token login for the API: ``Authorization: Token <key>``.

DRF's own class passes over a header of another scheme (``Bearer x``, ``Basic ...``) and the request
goes on as anonymous, so a client with a wrong header reads public data and never learns its login
failed. Here any ``Authorization`` header that is not a well-formed token header is 401
``authentication_failed`` in the JSON error shape.
"""
from __future__ import annotations

from rest_framework import authentication, exceptions


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if header and header[0].lower() != self.keyword.lower().encode():
            raise exceptions.AuthenticationFailed(
                f"Send the login as `Authorization: {self.keyword} <key>`; other schemes are not accepted.")
        return super().authenticate(request)
