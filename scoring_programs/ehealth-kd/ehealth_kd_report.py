"""The detailed results page: counts per scenario, per-label figures, and (only for splits whose gold is public)
example sentences with their missing and spurious items marked."""
from ehealth_kd_metric import KINDS, label_table
from report_html import bar_chart, esc, page, paragraph, section, table
from scoring_runtime import HIDDEN_GOLD_RULE, predicted_only

EXAMPLES = 5
_SPURIOUS, _MISSING = 1, 2


def _marked_text(text, spurious, missing):
    """The sentence with spurious spans in <mark> and missing spans in <mark class="miss">."""
    flags = [0] * len(text)
    for spans, flag in ((spurious, _SPURIOUS), (missing, _MISSING)):
        for start, end in spans:
            for position in range(max(start, 0), min(end, len(text))):
                flags[position] |= flag
    out = []
    position = 0
    while position < len(text):
        end = position
        while end < len(text) and flags[end] == flags[position]:
            end += 1
        chunk = esc(text[position:end])
        flag = flags[position]
        if flag == _SPURIOUS:
            chunk = u"<mark>%s</mark>" % chunk
        elif flag == _MISSING:
            chunk = u'<mark class="miss">%s</mark>' % chunk
        elif flag:
            chunk = u'<mark class="miss"><u>%s</u></mark>' % chunk
        out.append(chunk)
        position = end
    return u"".join(out)


def _phrase(sentence_text, keyphrase):
    return u" ".join(sentence_text[start:end] for start, end in keyphrase.spans)


def _relation_list(title, text, relations):
    if not relations:
        return u""
    items = u"; ".join(u"%s(%s \u2192 %s)" % (esc(r.label), esc(_phrase(text, r.source)), esc(_phrase(text, r.target)))
                       for r in relations)
    return u"<br><small>%s: %s</small>" % (esc(title), items)


def _examples(matches):
    rows = []
    for match in matches:
        if not (match.missing or match.spurious or match.relations_missing or match.relations_spurious):
            continue
        text = match.submitted.text
        spurious = [span for k in match.spurious for span in k.spans]
        missing = [span for k in match.missing for span in k.spans]
        rows.append(u"<li>Line %d: %s%s%s</li>" % (
            match.submitted.line, _marked_text(text, spurious, missing),
            _relation_list(u"missing relations", text, match.relations_missing),
            _relation_list(u"spurious relations", text, match.relations_spurious)))
        if len(rows) == EXAMPLES:
            break
    if not rows:
        return paragraph(u"Every scored sentence is free of missing and spurious items.")
    legend = (u'<p class="note"><mark>spurious key phrase</mark> <mark class="miss">missing key phrase</mark> '
              u'<mark class="miss"><u>both</u></mark> (the first sentences with errors, in file order)</p>')
    return legend + u"<ul>%s</ul>" % u"\n".join(rows)


def _hidden_gold_label_section(title, rows):
    """Labels the submission used, with its counts and precision only (HIDDEN_GOLD_RULE)."""
    shown = predicted_only([(label, values[1], values[2]) for label, values in rows.items()], lambda row: row[1])
    if not shown:
        return paragraph(u"%s: nothing submitted." % title)
    return u"<h3>%s</h3>" % esc(title) + table([u"label", u"submitted", u"precision"], shown)


def _label_section(title, rows):
    if not rows:
        return paragraph(u"%s: nothing to compare." % title)
    return (u"<h3>%s</h3>" % esc(title)
            + table([u"label", u"gold", u"submitted", u"precision", u"recall", u"F1"],
                    [(label,) + values for label, values in rows.items()])
            + bar_chart([(label, values[4]) for label, values in rows.items()], max_value=1.0))


def build(title, outcomes, show_examples, notes=()):
    """outcomes: list of (number, folder, status, counts or None, matches) where status is a short note; notes:
    remarks about the submission (cross-sentence key phrases and relations, ignored lines)."""
    summary = []
    for number, folder, status, counts, _ in outcomes:
        if counts is None:
            summary.append((u"%d (%s)" % (number, folder), status) + (u"",) * 8)
        else:
            summary.append((u"%d (%s)" % (number, folder), status) + counts.as_tuple()
                           + (counts.precision(), counts.recall(), counts.f1()))
    parts = [section(
        u"Scores",
        table([u"scenario", u"scored"] + [k.capitalize() for k in KINDS] + [u"precision", u"recall", u"F1"], summary),
        paragraph(u"Recall = (C + P/2) / (C + P + I + M), precision = (C + P/2) / (C + P + I + S), F1 their harmonic "
                  u"mean. Scenario 1 adds the relation counts (C, M, S) to the key-phrase counts; scenario 2 counts "
                  u"key phrases only, scenario 3 relations only. Only sentences with gold annotations are scored.",
                  u"note"))]
    label_section = _label_section if show_examples else _hidden_gold_label_section
    for number, folder, _, counts, matches in outcomes:
        if counts is None:
            continue
        pieces = []
        if number in (1, 2):
            pieces.append(label_section(u"Key phrases by label", label_table(matches)))
        if number in (1, 3):
            pieces.append(label_section(u"Relations by label", label_table(matches, relations=True)))
        pieces.append(paragraph(u"Recall of a label is computed over the gold items with that label, precision over "
                                u"the submitted items with that label; a partial match earns half on both sides.",
                                u"note"))
        if show_examples:
            pieces.append(u"<h3>Examples</h3>" + _examples(matches))
        parts.append(section(u"Scenario %d (%s)" % (number, folder), *pieces))
    if notes:
        parts.append(section(u"Notes on the submission", *[paragraph(note) for note in notes]))
    if not show_examples:
        parts.append(paragraph(u"Per-sentence examples are shown only for phases whose gold annotations are public. "
                               + HIDDEN_GOLD_RULE, u"note"))
    return page(title, *parts)
