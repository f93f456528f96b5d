"""The viewer's charts keep their y labels inside the image (issue 27: a Galaxy MLE of 210632 read
10632, its first digit cut at the left edge), in headless Chromium with the network cut off."""

from __future__ import annotations

import pytest

from armada.viewer import offline_html_from_text

pytestmark = pytest.mark.browser

#: Draws a chart of `values` (seat 1's; seat 2 at 0) as the viewer does, and returns each y label's
#: text and left edge in the chart's own units.
LABELS_JS = """(values) => {
  const points = values.map((v, i) => ({turn: i, value: {1: v, 2: 0}}));
  const chart = window.ArmadaViewer.chart.lineChart("total MLE", "mle", points, "turn");
  document.querySelector(".armada-viewer").appendChild(chart.node);
  const [top, zero] = chart.node.querySelectorAll("text.av-chart-axis[text-anchor=end]");
  return [top, zero].map((t) => [t.textContent, t.getBBox().x]);
}"""


def test_the_y_labels_are_whole_inside_the_chart(page, tmp_path):
    html = tmp_path / "viewer.html"
    html.write_text(offline_html_from_text("{}"), encoding="utf-8")  # the scripts, no replay needed
    page.goto(html.as_uri())
    page.wait_for_selector(".armada-viewer[data-state=error]")
    for top in (7, 210632, 99999999):
        labels = page.evaluate(LABELS_JS, [0, top // 2, top])
        assert [text for text, _x in labels] == [str(top), "0"]
        assert all(x >= 0 for _text, x in labels), labels
    assert page.watch.requests == []
