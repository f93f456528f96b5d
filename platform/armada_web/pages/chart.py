"""A small line chart as inline SVG, built in Python (no chart library, no script, CSP-safe)."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

WIDTH, HEIGHT, PAD = 600, 180, 32


def line_chart(values: Sequence[float], labels: Sequence[str] = (), title: str = "") -> SafeString:
    """An SVG polyline of `values` (left to right) with min/max gridlines; '' for no values.

    `labels` (one per value) become each point's tooltip. Colours come from the site's CSS classes.
    """
    if not values:
        return mark_safe("")
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    step = (WIDTH - 2 * PAD) / max(len(values) - 1, 1)

    def xy(i: int, v: float) -> tuple[float, float]:
        return round(PAD + i * step, 1), round(HEIGHT - PAD - (v - low) / span * (HEIGHT - 2 * PAD), 1)

    points = [xy(i, v) for i, v in enumerate(values)]
    line = " ".join(f"{x},{y}" for x, y in points)
    tips = list(labels) + [""] * (len(values) - len(labels))
    dots = format_html_join("", '<circle class="chart-dot" cx="{}" cy="{}" r="3"><title>{}</title></circle>',
                            ((x, y, tip or f"{v:.2f}") for (x, y), v, tip in zip(points, values, tips, strict=True)))
    rule = ('<line class="chart-grid" x1="{0}" y1="{1}" x2="{2}" y2="{1}"/>'
            '<text class="chart-label" x="2" y="{3}">{4}</text>')
    grid = format_html_join("", rule, ((PAD, y, WIDTH - PAD, y + 4, f"{v:.1f}")
                                       for y, v in ((PAD, high), (HEIGHT - PAD, low))))
    return format_html(
        '<svg class="chart" viewBox="0 0 {} {}" role="img" aria-label="{}"><title>{}</title>{}'
        '<polyline class="chart-line" points="{}"/>{}</svg>',
        WIDTH, HEIGHT, title, title, grid, line, dots)
