"""A rating history drawn as an SVG picture by the server: no script, no external resource.

Pure Python (no Django): the caller passes the points and the (already translated) labels; every
text that goes into the picture is escaped here. The x axis counts rating events (evenly spaced,
the first and last labelled with their date); the y axis shows the displayed rating with a few
round ticks. Every rating event is one ``<circle class="point">``; the rating a player started
from may be given as ``start``, where the line begins (without a point of its own).
"""
from __future__ import annotations

import math
from html import escape
from typing import NamedTuple, Sequence


class ChartPoint(NamedTuple):
    label: str  # shown on the x axis (first and last point) and in the point's tooltip
    value: float


# Drawing area inside the picture: room on the left for the ratings, below for the dates.
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 44, 14, 24, 40


def nice_step(span: float, ticks: int = 4) -> float:
    """A round tick distance (1, 2 or 5 times a power of ten) giving about ``ticks`` intervals."""
    if span <= 0:
        return 1.0
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * power:
            return float(factor * power)
    return float(10 * power)  # not reached: raw <= 10 * power always


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def _coordinate(value: float) -> str:
    return f"{value:.1f}"


def rating_chart(
    points: Sequence[ChartPoint],
    *,
    title: str,
    x_label: str,
    y_label: str,
    width: int = 360,
    height: int = 200,
    css_class: str = "rating-chart",
    attributes: dict[str, str] | None = None,
    start: float | None = None,
) -> str:
    """The SVG text of a line chart of ``points`` in order: a polyline and one circle per point.

    ``attributes`` are extra attributes of the ``<svg>`` element (names must be plain words such
    as ``data-game``; values are escaped).
    """
    plot_left, plot_right = MARGIN_LEFT, width - MARGIN_RIGHT
    plot_top, plot_bottom = MARGIN_TOP, height - MARGIN_BOTTOM
    values = [float(point.value) for point in points]
    line_values = ([float(start)] if start is not None and points else []) + values
    low, high = (min(line_values), max(line_values)) if values else (0.0, 1.0)
    if high - low < 10:
        # A flat or nearly flat history still gets a readable scale around its values.
        middle = (high + low) / 2
        low, high = middle - 5, middle + 5
    step = nice_step(high - low)
    axis_low, axis_high = math.floor(low / step) * step, math.ceil(high / step) * step

    def x_of(index: int) -> float:
        if len(line_values) < 2:
            return (plot_left + plot_right) / 2
        return plot_left + (plot_right - plot_left) * index / (len(line_values) - 1)

    def y_of(value: float) -> float:
        return plot_bottom - (plot_bottom - plot_top) * (value - axis_low) / (axis_high - axis_low)

    extra = "".join(
        f' {name}="{escape(str(value))}"'
        for name, value in (attributes or {}).items() if name.replace("-", "").isalnum()
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{escape(css_class)}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{escape(title)}" preserveAspectRatio="xMidYMid meet"{extra}>',
        f"<title>{escape(title)}</title>",
        f'<text class="axis-label" x="{MARGIN_LEFT}" y="14">{escape(y_label)}</text>',
    ]
    tick = axis_low
    while tick <= axis_high + step / 2:
        y = _coordinate(y_of(tick))
        parts.append(f'<line class="grid" x1="{plot_left}" y1="{y}" x2="{plot_right}" y2="{y}"/>')
        parts.append(f'<text class="tick" x="{plot_left - 5}" y="{y}" text-anchor="end" dominant-baseline="middle">'
                     f"{escape(_number(tick))}</text>")
        tick += step
    parts.append(f'<line class="axis" x1="{plot_left}" y1="{plot_bottom}" x2="{plot_right}" y2="{plot_bottom}"/>')
    parts.append(f'<line class="axis" x1="{plot_left}" y1="{plot_top}" x2="{plot_left}" y2="{plot_bottom}"/>')
    offset = len(line_values) - len(values)  # 1 when the line begins at ``start``
    if len(points) == 1:
        anchor = "middle" if offset == 0 else "end"
        parts.append(f'<text class="tick" x="{_coordinate(x_of(offset))}" y="{plot_bottom + 16}" '
                     f'text-anchor="{anchor}">{escape(points[0].label)}</text>')
    elif points:
        parts.append(f'<text class="tick" x="{_coordinate(x_of(offset))}" y="{plot_bottom + 16}" '
                     f'text-anchor="start">{escape(points[0].label)}</text>')
        parts.append(f'<text class="tick" x="{plot_right}" y="{plot_bottom + 16}" text-anchor="end">'
                     f"{escape(points[-1].label)}</text>")
    parts.append(f'<text class="axis-label" x="{(plot_left + plot_right) / 2:.1f}" y="{height - 6}" '
                 f'text-anchor="middle">{escape(x_label)}</text>')
    coordinates = [(x_of(index), y_of(value)) for index, value in enumerate(line_values)]
    if len(coordinates) > 1:
        line = " ".join(f"{_coordinate(x)},{_coordinate(y)}" for x, y in coordinates)
        parts.append(f'<polyline class="line" fill="none" points="{line}"/>')
    for point, (x, y) in zip(points, coordinates[offset:]):
        parts.append(
            f'<circle class="point" cx="{_coordinate(x)}" cy="{_coordinate(y)}" r="3.5" '
            f'data-value="{escape(_number(point.value))}">'
            f"<title>{escape(point.label)}: {escape(_number(point.value))}</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)


class ReliabilityPoint(NamedTuple):
    predicted: float  # 0..1
    observed: float  # 0..1
    error: float  # standard error of ``observed``
    count: int


def reliability_chart(
    points: Sequence[ReliabilityPoint], *, title: str, x_label: str, y_label: str, size: int = 320,
    css_class: str = "reliability-chart",
) -> str:
    """The SVG text of a calibration plot: predicted chance (x) against observed win rate (y),
    both 0–100 %, the diagonal of perfect calibration, and per bin a circle with a bar of two
    standard errors either way (``<circle class="bin">`` with ``data-predicted``,
    ``data-observed`` and ``data-count``)."""
    left, right, top, bottom = MARGIN_LEFT, size - MARGIN_RIGHT, MARGIN_TOP, size - MARGIN_BOTTOM

    def x_of(value: float) -> float:
        return left + (right - left) * min(max(value, 0.0), 1.0)

    def y_of(value: float) -> float:
        return bottom - (bottom - top) * min(max(value, 0.0), 1.0)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{escape(css_class)}" viewBox="0 0 {size} {size}" '
        f'role="img" aria-label="{escape(title)}" preserveAspectRatio="xMidYMid meet">',
        f"<title>{escape(title)}</title>",
        f'<text class="axis-label" x="{MARGIN_LEFT}" y="14">{escape(y_label)}</text>',
    ]
    for tick in range(0, 101, 20):
        value = tick / 100
        parts.append(f'<line class="grid" x1="{left}" y1="{_coordinate(y_of(value))}" x2="{right}" '
                     f'y2="{_coordinate(y_of(value))}"/>')
        parts.append(f'<text class="tick" x="{left - 5}" y="{_coordinate(y_of(value))}" text-anchor="end" '
                     f'dominant-baseline="middle">{tick}</text>')
        parts.append(f'<text class="tick" x="{_coordinate(x_of(value))}" y="{bottom + 16}" '
                     f'text-anchor="middle">{tick}</text>')
    parts.append(f'<line class="axis" x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}"/>')
    parts.append(f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{bottom}"/>')
    parts.append(f'<line class="diagonal" x1="{left}" y1="{bottom}" x2="{right}" y2="{top}" '
                 'stroke-dasharray="4 3"/>')
    parts.append(f'<text class="axis-label" x="{(left + right) / 2:.1f}" y="{size - 6}" '
                 f'text-anchor="middle">{escape(x_label)}</text>')
    for point in points:
        if point.count == 0:
            continue
        x = _coordinate(x_of(point.predicted))
        low, high = y_of(point.observed - 2 * point.error), y_of(point.observed + 2 * point.error)
        parts.append(f'<line class="error" x1="{x}" y1="{_coordinate(low)}" x2="{x}" y2="{_coordinate(high)}"/>')
        parts.append(
            f'<circle class="bin" cx="{x}" cy="{_coordinate(y_of(point.observed))}" r="4" '
            f'data-predicted="{point.predicted:.4f}" data-observed="{point.observed:.4f}" data-count="{point.count}">'
            f"<title>{100 * point.predicted:.1f} % → {100 * point.observed:.1f} % ({point.count})</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)
