"""The rating chart as a pure function: well-formed SVG, one point per event, escaped text."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from stich.pages.charts import ChartPoint, nice_step, rating_chart

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # raises on anything that is not well-formed XML


def points(root: ET.Element) -> list[ET.Element]:
    return [c for c in root.iter(f"{SVG}circle") if c.get("class") == "point"]


def chart(values, **kwargs):
    return rating_chart([ChartPoint(f"day {i}", v) for i, v in enumerate(values)],
                        title="T", x_label="X", y_label="Y", **kwargs)


@pytest.mark.parametrize(
    "values", [[1000], [1000, 1012], [980, 1050, 1003, 1200, 1190, 870], list(range(900, 1300, 7))]
)
def test_one_circle_per_rating_event_in_order(values):
    root = parse(chart(values))
    circles = points(root)
    assert [int(c.get("data-value")) for c in circles] == values
    xs = [float(c.get("cx")) for c in circles]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)
    # Higher ratings are drawn higher (smaller y).
    for (a, ca), (b, cb) in zip(zip(values, circles), zip(values[1:], circles[1:])):
        assert (float(cb.get("cy")) < float(ca.get("cy"))) == (b > a) or a == b
    lines = list(root.iter(f"{SVG}polyline"))
    assert len(lines) == (1 if len(values) > 1 else 0)
    if lines:
        assert len(lines[0].get("points").split()) == len(values)


@pytest.mark.parametrize("values", [[1144], [842, 948], [1000, 990, 1100]])
def test_the_line_may_begin_at_the_starting_rating(values):
    root = parse(chart(values, start=1000))
    circles = points(root)
    assert [int(c.get("data-value")) for c in circles] == values  # the start has no point of its own
    line = [tuple(map(float, pair.split(","))) for pair in next(root.iter(f"{SVG}polyline")).get("points").split()]
    assert len(line) == len(values) + 1
    assert line[1:] == [(float(c.get("cx")), float(c.get("cy"))) for c in circles]
    assert line[0][0] < line[1][0]
    # The start is on the scale: drawn as high as a point of rating 1000 would be.
    assert (line[0][1] > line[1][1]) == (values[0] > 1000)


def test_points_stay_inside_the_picture():
    root = parse(chart([400, 2600, 1000], width=320, height=200))
    for circle in points(root):
        assert 0 < float(circle.get("cx")) < 320 and 0 < float(circle.get("cy")) < 200


def test_text_is_escaped():
    svg = rating_chart(
        [ChartPoint('<script>alert("x")</script>', 1000), ChartPoint("A & B", 1010)],
        title='Ann "<b>" & Co', x_label="<x>", y_label="y&", attributes={"data-game": '"><svg onload=1>'},
    )
    root = parse(svg)
    assert "<script>" not in svg and "<b>" not in svg and "onload=1>" not in svg
    assert root.find(f"{SVG}title").text == 'Ann "<b>" & Co'
    assert root.get("data-game") == '"><svg onload=1>'
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert '<script>alert("x")</script>' in texts and "A & B" in texts and "<x>" in texts and "y&" in texts


def test_attribute_names_must_be_plain():
    svg = rating_chart([ChartPoint("a", 1)], title="t", x_label="x", y_label="y",
                       attributes={"onload=alert(1) x": "1", "data-points": "1"})
    assert "onload" not in svg and 'data-points="1"' in svg


def test_axis_labels_and_ticks():
    root = parse(chart([1000, 1100, 1230]))
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert "X" in texts and "Y" in texts and "day 0" in texts and "day 2" in texts
    ticks = sorted(int(t) for t in texts if t.isdigit())
    assert ticks[0] <= 1000 and ticks[-1] >= 1230
    assert len({b - a for a, b in zip(ticks, ticks[1:])}) == 1  # evenly spaced round ticks


def test_empty_history_draws_axes_only():
    root = parse(rating_chart([], title="t", x_label="x", y_label="y"))
    assert points(root) == [] and not list(root.iter(f"{SVG}polyline"))


@pytest.mark.parametrize("span, expected", [(100, 50.0), (400, 100.0), (7, 2.0), (0.4, 0.1), (0, 1.0)])
def test_nice_step(span, expected):
    assert nice_step(span) == expected
