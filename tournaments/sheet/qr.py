"""QR codes of the tables' private links, drawn by ``segno`` as inline SVG (no image files, no
network): printed on the table cards, a phone's camera opens the table's sheet."""
from __future__ import annotations

import segno

# Error correction M (15 %): a card on a table gets stains and folds; the links are short enough
# that M keeps the code small (version 4 or 5 for a typical host).
ERROR = "m"


def qr_svg(url: str) -> str:
    """The QR code of ``url`` as an SVG element to inline (sized by the page's CSS)."""
    return segno.make(url, error=ERROR, micro=False).svg_inline(
        scale=1, border=4, dark="#000", light="#fff", omitsize=True, svgclass="qr", title=url,
    )
