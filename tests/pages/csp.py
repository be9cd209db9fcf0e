"""The browser tests' Content-Security-Policy watch: every page of every browser context reports the
violations Chromium sees (the page's ``securitypolicyviolation`` events and the console's
"Content Security Policy" messages); a test that used the browser fails when there was one."""
from __future__ import annotations

WATCH = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.stichCspViolation({directive: event.violatedDirective, blocked: event.blockedURI,
                            source: event.sourceFile, line: event.lineNumber, page: location.href});
});
"""


class WatchedBrowser:
    """Playwright's Browser whose new contexts report CSP violations into ``violations``."""

    def __init__(self, browser) -> None:
        self._browser = browser
        self.violations: list[dict] = []

    def new_context(self, **options):
        context = self._browser.new_context(**options)
        context.expose_binding("stichCspViolation", lambda source, detail: self.violations.append(detail))
        context.add_init_script(WATCH)
        context.on("console", self._console)
        return context

    def new_page(self, **options):
        return self.new_context(**options).new_page()

    def _console(self, message) -> None:
        if "Content Security Policy" in message.text:
            self.violations.append({"console": message.text, "page": message.page.url if message.page else None})

    def __getattr__(self, name):
        return getattr(self._browser, name)
