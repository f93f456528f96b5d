"""A small line chart as inline SVG, built in Python (no chart library, no script, CSP-safe)."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

WIDTH, HEIGHT = 600, 200
LEFT, RIGHT, TOP, BOTTOM = 52, 12, 14, 40


def line_chart(values: Sequence[float], labels: Sequence[str] = (), title: str = "", *, y_label: str = "",
               x_label: str = "", x_ends: tuple[str, str] = ("", "")) -> SafeString:
    """An SVG polyline of `values` (left to right) with labelled axes; '' for no values.

    The y axis is named `y_label` and marked at its minimum and maximum, the x axis named `x_label`
    with `x_ends` under its two ends. `labels` (one per value) become each point's tooltip.
    Colours come from the site's CSS classes.
    """
    if not values:
        return mark_safe("")
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    step = (WIDTH - LEFT - RIGHT) / max(len(values) - 1, 1)
    bottom = HEIGHT - BOTTOM

    def xy(i: int, v: float) -> tuple[float, float]:
        return round(LEFT + i * step, 1), round(bottom - (v - low) / span * (bottom - TOP), 1)

    points = [xy(i, v) for i, v in enumerate(values)]
    line = " ".join(f"{x},{y}" for x, y in points)
    tips = list(labels) + [""] * (len(values) - len(labels))
    dots = format_html_join("", '<circle class="chart-dot" cx="{}" cy="{}" r="3"><title>{}</title></circle>',
                            ((x, y, tip or f"{v:.2f}") for (x, y), v, tip in zip(points, values, tips, strict=True)))
    grid = format_html_join("", '<line class="chart-grid" x1="{0}" y1="{1}" x2="{2}" y2="{1}"/>'
                                '<text class="chart-label" x="{3}" y="{4}" text-anchor="end">{5}</text>',
                            ((LEFT, y, WIDTH - RIGHT, LEFT - 6, y + 4, f"{v:.1f}")
                             for y, v in ((TOP, high), (bottom, low))))
    axes = format_html(
        '<line class="chart-axis" x1="{l}" y1="{t}" x2="{l}" y2="{b}"/>'
        '<line class="chart-axis" x1="{l}" y1="{b}" x2="{r}" y2="{b}"/>'
        '<text class="chart-label" x="{l}" y="{b1}">{first}</text>'
        '<text class="chart-label" x="{r}" y="{b1}" text-anchor="end">{last}</text>'
        '<text class="chart-title" x="{mid}" y="{b2}" text-anchor="middle">{xl}</text>'
        '<text class="chart-title" x="14" y="{ymid}" text-anchor="middle" '
        'transform="rotate(-90 14 {ymid})">{yl}</text>',
        l=LEFT, r=WIDTH - RIGHT, t=TOP, b=bottom, b1=bottom + 15, b2=bottom + 32, mid=(LEFT + WIDTH - RIGHT) // 2,
        ymid=(TOP + bottom) // 2, first=x_ends[0], last=x_ends[1], xl=x_label, yl=y_label)
    return format_html(
        '<svg class="chart" viewBox="0 0 {} {}" role="img" aria-label="{}"><title>{}</title>{}{}'
        '<polyline class="chart-line" points="{}"/>{}</svg>',
        WIDTH, HEIGHT, title, title, grid, axes, line, dots)
