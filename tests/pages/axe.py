"""axe-core in the browser tests: ``assert_accessible(page)`` fails on a serious or critical violation.

axe-core is the copy that the ``axe-playwright-python`` package ships (its ``axe.min.js``, pinned
in constraints.txt): nothing is fetched at test time. The script is given to the page through the
DevTools protocol (``page.evaluate``), which the site's Content-Security-Policy does not govern, so
a page is checked under the policy it is served with.
"""
from __future__ import annotations

from axe_playwright_python.base import AXE_SCRIPT

# What a test does not accept: axe-core's two highest impacts (WCAG A/AA and best-practice rules).
BLOCKING = ("serious", "critical")

# axe-core's default rules, and one it still calls experimental: a control's accessible name holds
# its visible text (WCAG 2.5.3, Label in Name, level A), so that who speaks to the page says what
# he sees ("New code", not a label that starts otherwise).
RUN = """async () => {
  const results = await axe.run(document, {resultTypes: ["violations"],
                                           rules: {"label-content-name-mismatch": {enabled: true}}});
  return results.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.join(" "), html: n.html.slice(0, 200),
                              summary: n.failureSummary}))}));
}"""


def violations(page, *, impacts=BLOCKING) -> list[dict]:
    """axe-core's violations of the page as it is now, those of the given impacts."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE_SCRIPT)
    return [v for v in page.evaluate(RUN) if v["impact"] in impacts]


def report(found: list[dict], *, where: str = "") -> str:
    lines = []
    for violation in found:
        lines.append(f"{where}: {violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"][:5]:
            lines.append(f"    {node['target']}: {node['html']}")
            if node.get("summary"):
                lines.append("      " + node["summary"].replace("\n", "\n      "))
    return "\n".join(lines)


def assert_accessible(page, *, where: str | None = None) -> None:
    """No serious or critical axe-core violation on ``page`` (checked as it is, at its viewport)."""
    found = violations(page)
    assert not found, "axe-core:\n" + report(found, where=where or page.url)
