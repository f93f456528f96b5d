"""What the layout tests measure in the browser: broken words, clipped cells, wrapped badges,
content outside the page, and the form controls' look."""

from __future__ import annotations

#: Whether an element is inside a visually hidden box (a clipped 1 px box, as a stacked table's header row).
HIDDEN = """const hidden = (el) => {
  for (let a = el; a; a = a.parentElement) {
    const r = a.getBoundingClientRect();
    if (getComputedStyle(a).clipPath !== 'none' && r.width * r.height < 4) return true;
  }
  return !el.checkVisibility();
};"""

#: Words (runs of letters and digits) drawn on more than one line, unless the word alone is wider
#: than the block it sits in (then breaking it is the only way to show it; a table cell is not such a
#: block: a table can grow, or scroll in its own box).
BROKEN_WORDS_JS = """() => {
  """ + HIDDEN + """
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest('svg, script, style, head, .armada-viewer')) continue;
    const box = parent.getBoundingClientRect();
    if (box.width < 2 || box.height < 2 || hidden(parent)) continue;
    const text = node.textContent;
    const words = /[\\p{L}\\p{N}]+/gu;
    for (let m = words.exec(text); m; m = words.exec(text)) {
      if (m[0].length < 2) continue;
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0.5);
      const lines = new Set(rects.map((r) => Math.round(r.bottom)));
      if (lines.size < 2) continue;
      const width = rects.reduce((sum, r) => sum + r.width, 0);
      let block = parent;
      while (block.parentElement && /^(inline|table)|^contents$/.test(getComputedStyle(block).display)) {
        block = block.parentElement;  // a table's cells grow with their words: the box is what holds the table
      }
      if (width > block.clientWidth - 1) continue;
      broken.push(m[0] + ' in <' + parent.tagName.toLowerCase() + ' ' + (parent.className || '') + '>');
      if (broken.length > 20) return broken;
    }
  }
  return broken;
}"""

#: Table cells whose content does not fit them, and visible text outside the page's width that no
#: scrolling box of its own holds.
CLIPPED_JS = """() => {
  """ + HIDDEN + """
  const out = [];
  const width = document.documentElement.clientWidth;
  for (const cell of document.querySelectorAll('main td, main th')) {
    if (hidden(cell) || cell.getBoundingClientRect().width < 2) continue;
    if (cell.scrollWidth > cell.clientWidth + 1) out.push('cell overflows: ' + cell.textContent.trim().slice(0, 40));
  }
  for (const el of document.querySelectorAll('main *')) {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.right <= width + 1 || hidden(el)) continue;
    let scroller = el.parentElement;
    const scrolls = (e) => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
    while (scroller && !scrolls(scroller)) scroller = scroller.parentElement;
    if (!scroller || scroller === document.documentElement || scroller === document.body) {
      out.push('past the edge: <' + el.tagName.toLowerCase() + ' ' + el.className + '> ' + Math.round(r.right));
    }
    if (out.length > 20) break;
  }
  return out;
}"""

#: Badges (statuses, results, the provisional mark) drawn on more than one line.
WRAPPED_BADGES_JS = """() => [...document.querySelectorAll('.status, .result, .provisional, .badge')]
  .filter((b) => b.checkVisibility() && new Set([...b.getClientRects()].map((r) => Math.round(r.top))).size > 1)
  .map((b) => b.textContent)"""

#: The look of the page's form controls (text fields, selects, buttons) in <main>.
CONTROLS_JS = """() => [...document.querySelectorAll('main form input:not([type=hidden]), main form select,'
  + ' main form textarea, main form button')].filter((e) => e.checkVisibility()).map((e) => {
    const s = getComputedStyle(e);
    return {tag: e.tagName.toLowerCase(), type: e.type, background: s.backgroundColor, radius: s.borderRadius,
            font: s.fontFamily, width: e.getBoundingClientRect().width};
  })"""

#: What a screen reader or a keyboard needs of the page: the page's language, a label for every visible
#: form control, alt text on every image, and headings in order (one h1 first, no level skipped going down).
A11Y_JS = """(headings) => {
  const out = [];
  const shown = (e) => e.checkVisibility() && e.getBoundingClientRect().width > 0;
  if (document.documentElement.lang !== 'en') out.push('html lang: ' + JSON.stringify(document.documentElement.lang));
  for (const e of document.querySelectorAll('input:not([type=hidden]), select, textarea')) {
    if (!shown(e) || ['submit', 'button', 'reset'].includes(e.type)) continue;
    if (!(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.getAttribute('aria-labelledby')) {
      out.push('no label: ' + e.outerHTML.slice(0, 100));
    }
  }
  for (const e of document.querySelectorAll('img:not([alt])')) out.push('no alt: ' + e.outerHTML.slice(0, 100));
  if (headings) {
    const levels = [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].filter(shown)
      .map((h) => [+h.tagName[1], h.textContent.trim().slice(0, 30)]);
    if (!levels.length || levels[0][0] !== 1 || levels.filter(([l]) => l === 1).length !== 1) {
      out.push('not one h1 first: ' + JSON.stringify(levels.slice(0, 3)));
    }
    for (let i = 1; i < levels.length; i++) {
      if (levels[i][0] > levels[i - 1][0] + 1) {
        out.push('heading skips a level: ' + JSON.stringify(levels.slice(i - 1, i + 1)));
      }
    }
  }
  return out;
}"""

#: The element Tab moved the focus to: on the screen, of some size, and showing that it has the focus (an
#: outline; the viewer's planets draw a ring on their disc; a date field's picker button, a part of the input
#: that does not make it match :focus, draws its own); empty when it does.
FOCUSED_JS = """() => {
  const e = document.activeElement;
  if (!e || e === document.body || e === document.documentElement) return '';
  const r = e.getBoundingClientRect();
  const s = getComputedStyle(e);
  const ring = s.outlineStyle !== 'none' || e.matches('.av-planet') || !e.matches(':focus');
  const seen = r.width >= 2 && r.height >= 2 && r.bottom > 0 && r.top < innerHeight
    && r.right > 0 && r.left < innerWidth;
  return seen && ring ? '' : '<' + e.tagName.toLowerCase() + '> ' + (e.textContent || '').trim().slice(0, 30)
    + ' at ' + [r.left, r.top, r.width, r.height].map(Math.round) + ', outline ' + s.outlineStyle;
}"""
