"""Waiting in the browser tests for an element to show, looked for every 50 ms.

Playwright's ``wait_for_selector`` looks again after 0, 20, 50, 100 and 100 ms and then every
500 ms, so a change that takes 0.3 s (the score sheet checks a hand 350 ms after the typing
stopped) is seen 0.77 s after it was asked for. The browser tests wait for such changes a few
hundred times; ``appear`` sees each within 50 ms. CSS selectors only (no Playwright text selectors,
for which ``wait_for_selector`` stays).
"""
from __future__ import annotations

# Playwright's "visible" is a box that is not empty and not ``visibility: hidden``.
_CHECK = {
    "visible": """selector => {
      const element = document.querySelector(selector);
      if (element === null || !element.checkVisibility({visibilityProperty: true})) return false;
      const box = element.getBoundingClientRect();
      return box.width > 0 && box.height > 0;
    }""",
    "attached": "selector => document.querySelector(selector) !== null",
}


def appear(page, selector: str, *, timeout: float | None = None, state: str = "visible") -> None:
    """Wait until ``selector`` matches an element in ``page`` (visible, or only attached); the
    context's default timeout unless ``timeout`` (ms) is given."""
    page.wait_for_function(_CHECK[state], arg=selector, polling=50, timeout=timeout)
