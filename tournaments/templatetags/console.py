"""Template tags of the console."""
from django import template
from django.urls import NoReverseMatch, reverse

register = template.Library()


@register.simple_tag
def optional_url(name: str, *args) -> str:
    """The URL of ``name``, or "" where no such page is installed (the page then leaves the link
    out): the console links to the score sheet and the table cards where they exist."""
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return ""
