"""A small line chart as inline SVG, built in Python (no chart library, no script, CSP-safe)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

WIDTH, HEIGHT = 600, 200
#: A phone's chart: drawn this wide, its 11px labels stay about 11px on a 390 px screen (at 600 a
#: trial measured them 5 px); the page shows it below 640 px (site.css) instead of the wide one.
NARROW = 320
LEFT, RIGHT, TOP, BOTTOM = 52, 12, 14, 40
#: Room for one character of an axis label (11px text: a digit is about 6.1px wide), and the
#: rotated y-axis title's column (x = 14, 12px text) that the labels must stay right of.
CHAR, TITLE_EDGE = 7, 22


def y_labels(low: float, high: float) -> tuple[str, str]:
    """The y axis's two marks, its maximum and minimum, as drawn."""
    return f"{high:.1f}", f"{low:.1f}"


def left_margin(labels: Sequence[str]) -> int:
    """The plot's left edge: wide enough that the longest y label (drawn right-aligned 6 units left
    of the axis) ends right of the y axis's title, never cut by the image's edge (issue 27)."""
    return max(LEFT, TITLE_EDGE + 6 + CHAR * max((len(text) for text in labels), default=0))


def line_chart(values: Sequence[float], labels: Sequence[str] = (), title: str = "", *, y_label: str = "",
               x_label: str = "", x_ends: tuple[str, str] = ("", ""), links: Sequence[str] = (),
               marks: Sequence[tuple[int, str]] = (), width: int = WIDTH) -> SafeString:
    """An SVG polyline of `values` (left to right) with labelled axes; '' for no values.

    The y axis is named `y_label` and marked at its minimum and maximum, the x axis named `x_label`
    with `x_ends` under its two ends. `labels` (one per value) become each point's tooltip, `links`
    (one per value, '' for none) make each point a link, and each of `marks` (point index, text)
    draws a labelled vertical line through that point (where a new version began). `width` is the
    drawing's (NARROW: a phone's; its class says which). Colours come from the site's CSS classes.
    """
    if not values:
        return mark_safe("")
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    top_text, bottom_text = y_labels(low, high)
    left = left_margin((top_text, bottom_text))
    step = (width - left - RIGHT) / max(len(values) - 1, 1)
    bottom = HEIGHT - BOTTOM

    def xy(i: int, v: float) -> tuple[float, float]:
        return round(left + i * step, 1), round(bottom - (v - low) / span * (bottom - TOP), 1)

    points = [xy(i, v) for i, v in enumerate(values)]
    line = " ".join(f"{x},{y}" for x, y in points)
    tips = list(labels) + [""] * (len(values) - len(labels))
    hrefs = list(links) + [""] * (len(values) - len(links))
    dot = '<circle class="chart-dot" cx="{}" cy="{}" r="3"><title>{}</title></circle>'
    dots = format_html_join("", "{}", (
        (format_html('<a class="chart-link" href="{}">' + dot + "</a>", href, x, y, tip or f"{v:.2f}") if href
         else format_html(dot, x, y, tip or f"{v:.2f}"),)
        for (x, y), v, tip, href in zip(points, values, tips, hrefs, strict=True)))
    shown = [(points[i][0], text) for i, text in marks if 0 <= i < len(points)]
    version_marks = format_html_join("", '<line class="chart-mark" x1="{0}" y1="{1}" x2="{0}" y2="{2}"/>',
                                     ((x, TOP, bottom) for x, _text in shown))
    mark_labels = format_html_join("", '<text class="chart-label chart-mark-label" x="{}" y="{}"{}>{}</text>',
                                   _mark_labels(shown, width))
    grid = format_html_join("", '<line class="chart-grid" x1="{0}" y1="{1}" x2="{2}" y2="{1}"/>'
                                '<text class="chart-label" x="{3}" y="{4}" text-anchor="end">{5}</text>',
                            ((left, y, width - RIGHT, left - 6, y + 4, text)
                             for y, text in ((TOP, top_text), (bottom, bottom_text))))
    axes = format_html(
        '<line class="chart-axis" x1="{l}" y1="{t}" x2="{l}" y2="{b}"/>'
        '<line class="chart-axis" x1="{l}" y1="{b}" x2="{r}" y2="{b}"/>'
        '<text class="chart-label" x="{l}" y="{b1}">{first}</text>'
        '<text class="chart-label" x="{r}" y="{b1}" text-anchor="end">{last}</text>'
        '<text class="chart-title" x="{mid}" y="{b2}" text-anchor="middle">{xl}</text>'
        '<text class="chart-title" x="14" y="{ymid}" text-anchor="middle" '
        'transform="rotate(-90 14 {ymid})">{yl}</text>',
        l=left, r=width - RIGHT, t=TOP, b=bottom, b1=bottom + 15, b2=bottom + 32, mid=(left + width - RIGHT) // 2,
        ymid=(TOP + bottom) // 2, first=x_ends[0], last=x_ends[1], xl=x_label, yl=y_label)
    return format_html(
        '<svg class="chart {}" viewBox="0 0 {} {}" role="img" aria-label="{}"><title>{}</title>{}{}{}'
        '<polyline class="chart-line" points="{}"/>{}{}</svg>',
        "chart-narrow" if width < WIDTH else "chart-wide", width, HEIGHT, title, title, grid, axes, version_marks,
        line, dots, mark_labels)


#: Rows of mark labels, one under the other, for marks too close for their labels to stand side by side.
MARK_ROWS = 3


_END = mark_safe(' text-anchor="end"')


def _mark_labels(shown: Sequence[tuple[float, str]], width: int = WIDTH) -> list[tuple[float, float, str, str]]:
    """(x, y, anchor attribute, text) of each mark's label: over the line and its dots (a halo keeps
    them readable there), right of its mark or, where that would pass the image's edge, left of it;
    in the first of MARK_ROWS rows where it overlaps no label before it (versions started a few
    games apart: "v v4" before), and left out when none has room (its line stays)."""
    ends = [-math.inf] * MARK_ROWS  # the right end of each row's last label
    out: list[tuple[float, float, str, str]] = []
    for x, text in shown:
        size = CHAR * len(text)
        right = x + 3 + size <= width
        left, at, anchor = (x + 3, x + 3, "") if right else (x - 3 - size, x - 3, _END)
        row = next((r for r, end in enumerate(ends) if left > end + 2), None)
        if row is None:
            continue
        ends[row] = left + size
        out.append((at, TOP + 9 + 11 * row, anchor, text))
    return out


def version_starts(versions: Sequence[int]) -> list[tuple[int, str]]:
    """The chart's marks for a series of points' version numbers: each point where a version's
    games begin ("v3"), the first point's version included."""
    return [(i, f"v{n}") for i, n in enumerate(versions) if i == 0 or versions[i - 1] != n]
