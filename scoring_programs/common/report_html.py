"""Self-contained HTML for ``detailed_results.html``: inline CSS and SVG, no scripts, no external assets.

CodaLab shows the page in a sandboxed iframe, so everything must be in the one file. Python 3.6+, standard library.
"""
try:
    from html import escape as _escape
except ImportError:  # pragma: no cover - Python 2 is not supported, but fail readably
    from cgi import escape as _escape

_CSS = """
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:1.2em;color:#222;max-width:60em}
h1{font-size:1.4em;margin:0 0 .6em} h2{font-size:1.15em;margin:1.4em 0 .5em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.4em 0 1em} th,td{padding:.25em .7em;border-bottom:1px solid #eee}
th{text-align:left;background:#f6f6f6} td.n{text-align:right;font-variant-numeric:tabular-nums}
.note{color:#555;font-size:.92em} .bad{color:#b00020} .good{color:#1b7f3b}
svg text{font-family:inherit;font-size:11px;fill:#333} mark{background:#ffd6d6} mark.miss{background:#d6e4ff}
"""


def esc(text):
    return _escape(u"%s" % (text,), quote=True)


def page(title, *sections):
    return (u'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            u"<title>%s</title><style>%s</style></head>\n<body><h1>%s</h1>\n%s\n</body></html>\n"
            % (esc(title), _CSS, esc(title), u"\n".join(sections)))


def section(heading, *parts):
    return u"<h2>%s</h2>\n%s" % (esc(heading), u"\n".join(parts))


def paragraph(text, css_class=None):
    cls = u' class="%s"' % css_class if css_class else u""
    return u"<p%s>%s</p>" % (cls, esc(text))


def fmt(value, digits=4):
    """Numbers for display: floats rounded, everything else as text."""
    if isinstance(value, float):
        return u"%.*f" % (digits, value)
    return u"%s" % (value,)


def table(headers, rows, digits=4):
    """An HTML table; numbers are right-aligned and floats shown with ``digits`` decimals."""
    head = u"".join(u"<th>%s</th>" % esc(h) for h in headers)
    body = []
    for row in rows:
        cells = []
        for value in row:
            numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
            cells.append(u'<td class="n">%s</td>' % esc(fmt(value, digits)) if numeric
                         else u"<td>%s</td>" % esc(fmt(value, digits)))
        body.append(u"<tr>%s</tr>" % u"".join(cells))
    return u"<table><thead><tr>%s</tr></thead><tbody>\n%s\n</tbody></table>" % (head, u"\n".join(body))


def bar_chart(items, max_value=None, width=520, bar_height=16, color="#3b6fb6", digits=3):
    """Horizontal bars: ``items`` is a list of (label, value). Values are drawn against ``max_value``."""
    items = list(items)
    if not items:
        return u""
    top = max_value if max_value is not None else max(v for _, v in items) or 1.0
    label_w = min(260, 8 + 7 * max(len(u"%s" % l) for l, _ in items))
    plot_w = width - label_w - 60
    height = len(items) * (bar_height + 4) + 4
    parts = [u'<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img">' % (width, height)]
    for i, (label, value) in enumerate(items):
        y = 2 + i * (bar_height + 4)
        w = 0 if not top else max(0.0, min(1.0, float(value) / top)) * plot_w
        text = u"%s" % label
        if len(text) > 36:
            text = text[:35] + u"\u2026"
        parts.append(u'<text x="%d" y="%d" text-anchor="end">%s</text>' % (label_w - 6, y + bar_height - 4, esc(text)))
        parts.append(u'<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %s</title></rect>'
                     % (label_w, y, w, bar_height, color, esc(label), esc(fmt(value, digits))))
        parts.append(u'<text x="%.1f" y="%d">%s</text>' % (label_w + w + 4, y + bar_height - 4, esc(fmt(value, digits))))
    parts.append(u"</svg>")
    return u"".join(parts)


def histogram(counts, labels, width=520, height=180, color="#3b6fb6"):
    """Vertical bars of ``counts`` with one label under each bar."""
    counts = list(counts)
    if not counts:
        return u""
    top = max(counts) or 1
    n = len(counts)
    left, bottom, plot_h = 36, 34, height - 50
    slot = float(width - left - 10) / n
    parts = [u'<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img">' % (width, height)]
    parts.append(u'<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#999"/>'
                 % (left, height - bottom, width - 10, height - bottom))
    for i, (count, label) in enumerate(zip(counts, labels)):
        h = plot_h * count / float(top)
        x = left + i * slot
        parts.append(u'<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s: %d</title></rect>'
                     % (x + 1, height - bottom - h, slot - 2, h, color, esc(label), count))
        parts.append(u'<text x="%.1f" y="%.1f" text-anchor="middle">%d</text>' % (x + slot / 2, height - bottom - h - 3, count))
        parts.append(u'<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (x + slot / 2, height - bottom + 14, esc(label)))
    parts.append(u"</svg>")
    return u"".join(parts)


def add_to_page(html, parts):
    """``html`` (a page) with ``parts`` added at the end of its body."""
    if not parts:
        return html
    end = html.rfind(u"</body>")
    if end < 0:
        return html + u"\n".join(parts)
    return html[:end] + u"\n".join(parts) + u"\n" + html[end:]
