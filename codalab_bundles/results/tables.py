"""The results table written as CSV, Markdown, LaTeX (booktabs, for \\input) and HTML.

Team names and run names come from participants (their usernames, their files' names): every cell is made inert
for its format. Control characters become spaces; LaTeX's special characters are escaped; Markdown's and HTML's
are escaped; a CSV cell that a spreadsheet would read as a formula (=, +, -, @ first) gets a leading apostrophe.
"""
from __future__ import annotations

import csv
import html
import io
import re
from typing import List, Optional

SIGNATURE = "Signature: "
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
          "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}",
          ">": r"\textgreater{}", "|": r"\textbar{}", '"': r"\textquotedbl{}"}
_MARKDOWN = re.compile(r"([\\`*_{}\[\]#|~<>&])")


def plain(text) -> str:
    return _CONTROL.sub(" ", str(text)).strip()


def latex(text) -> str:
    return "".join(_LATEX.get(c, c) for c in plain(text))


def markdown(text) -> str:
    return _MARKDOWN.sub(r"\\\1", plain(text))


def csv_cell(text) -> str:
    text = plain(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


class Table(object):
    """What every format shows. ``header``: the shown columns' titles; ``lines``: the shown cells (text);
    ``numeric``: per shown column, whether it holds numbers (right-aligned); ``clusters``: each line's cluster
    number or None; ``notes``: sentences written under the table. The CSV has its own ``keys`` and ``records``
    (dicts of full values: numbers unrounded, intervals as two columns)."""

    def __init__(self, title: str, header: List[str], lines: List[List[str]], numeric: List[bool],
                 clusters: List[Optional[int]], notes: List[str], keys: List[str], records: List[dict]):
        self.title, self.header, self.lines, self.numeric = title, header, lines, numeric
        self.clusters, self.notes, self.keys, self.records = clusters, notes, keys, records


def csv_text(table: Table) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table.keys)
    for record in table.records:
        writer.writerow(["" if record.get(k) is None else repr(record[k]) if isinstance(record[k], float)
                         else str(record[k]) if isinstance(record[k], int) else csv_cell(record[k])
                         for k in table.keys])
    return out.getvalue()


def markdown_text(table: Table) -> str:
    grid = ["| %s |" % " | ".join(markdown(h) for h in table.header),
            "|%s|" % "|".join("---:" if right else "---" for right in table.numeric)]
    grid += ["| %s |" % " | ".join(text if right else markdown(text) for text, right in zip(line, table.numeric))
             for line in table.lines]
    return "\n\n".join(["# %s" % markdown(table.title), "\n".join(grid)] + [_markdown_note(n) for n in table.notes]) + "\n"


def _markdown_note(note: str) -> str:
    """A note, escaped; the signature as a code span, so that it reads (and copies) exactly."""
    if note.startswith(SIGNATURE):
        return "%s`%s`" % (SIGNATURE, plain(note[len(SIGNATURE):]).replace("`", "'"))
    return markdown(note)


def latex_text(table: Table) -> str:
    """A table environment with booktabs rules; clusters separated by \\midrule."""
    align = "".join("r" if right else "l" for right in table.numeric)
    out = ["% " + latex(table.title).replace("\n", " "),
           "% needs \\usepackage{booktabs}",
           "\\begin{table}[t]", "\\centering", "\\begin{tabular}{%s}" % align, "\\toprule",
           " & ".join(latex(h) for h in table.header) + " \\\\", "\\midrule"]
    for number, line in enumerate(table.lines):
        if number and table.clusters[number] is not None and table.clusters[number] != table.clusters[number - 1]:
            out.append("\\midrule")
        out.append(" & ".join(latex(text) for text in line) + " \\\\")
    out += ["\\bottomrule", "\\end{tabular}", "\\caption{%s}" % " ".join(latex(n) for n in table.notes),
            "\\end{table}"]
    return "\n".join(out) + "\n"


def html_text(table: Table) -> str:
    head = "".join("<th>%s</th>" % html.escape(plain(h)) for h in table.header)
    body = []
    for number, line in enumerate(table.lines):
        cluster = table.clusters[number]
        shade = ' class="c%d"' % (cluster % 2) if cluster is not None else ""
        body.append("<tr%s>%s</tr>" % (shade, "".join(
            '<td%s>%s</td>' % (' class="n"' if right else "", html.escape(plain(text)))
            for text, right in zip(line, table.numeric))))
    notes = "".join("<p>%s</p>\n" % html.escape(plain(n)) for n in table.notes)
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>\n<style>"
            "table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ccc}"
            "td.n{text-align:right;font-variant-numeric:tabular-nums}tr.c1{background:#eef}</style></head>"
            "<body>\n<h1>%s</h1>\n<table>\n<tr>%s</tr>\n%s\n</table>\n%s</body></html>\n" % (
                html.escape(plain(table.title)), html.escape(plain(table.title)), head, "\n".join(body), notes))
