"""detailed_results.html: the scores and per-class F1 of both steps of each sub-task.

Participants see this page during the test phase, so it shows per-class aggregates only, never a row's label;
when the gold is hidden, only the classes the submission predicted, with its own counts and precision
(scoring_runtime.HIDDEN_GOLD_RULE).
"""
from report_html import bar_chart, esc, page, paragraph, section, table
from scoring_runtime import HIDDEN_GOLD_RULE, predicted_only

CHART_CLASSES = 30  # bars for the most frequent gold classes; the table below a chart lists every class


def _by_support(counts):
    """Gold classes from most to least frequent, then classes that were only predicted; ties by name."""
    return sorted(counts.items(), key=lambda item: (-item[1].support, item[0]))


def _never_predicted(counts):
    return sorted(label for label, c in counts.items() if c.support and not c.predicted)


def class_table(counts):
    rows = []
    for label, c in _by_support(counts):
        note = "never predicted" if not c.predicted else ("not in the gold" if not c.support else "")
        rows.append((label, c.support, c.predicted, c.correct, c.precision, c.recall, c.f1, note))
    return table(["class", "gold rows", "predicted rows", "correct", "precision", "recall", "F1", ""], rows)


def _hidden_gold_step(heading, intro, counts, macro):
    rows = predicted_only([(label, c.predicted, c.correct, c.precision) for label, c in sorted(counts.items())],
                          lambda row: row[1])
    return section(heading, paragraph(intro), paragraph("Macro-F1 %.4f." % macro),
                   table(["predicted class", "predicted rows", "correct", "precision"], rows))


def _step(heading, intro, counts, macro):
    if not counts:
        return section(heading, paragraph(intro), paragraph("No rows to score: this step counts 0.", "bad"))
    gold_classes = sum(1 for c in counts.values() if c.support)
    never = _never_predicted(counts)
    ranked = [(label, c.f1) for label, c in _by_support(counts) if c.support][:CHART_CLASSES]
    chart_note = ("F1 of the %d most frequent gold classes:" % len(ranked) if gold_classes > len(ranked)
                  else "F1 per gold class:")
    parts = [paragraph(intro),
             paragraph("Macro-F1 %.4f over %d classes (%d in the gold, %d only predicted)."
                       % (macro, len(counts), gold_classes, len(counts) - gold_classes)),
             paragraph(chart_note, "note"), bar_chart(ranked, max_value=1.0, width=640)]
    if never:
        parts.append(u'<p class="bad">Never predicted (%d of %d gold classes, each F1 = 0): %s</p>'
                     % (len(never), gold_classes, esc("; ".join(never))))
    parts.append(class_table(counts))
    return section(heading, *parts)


def detailed_results(title, results, gold_public=True):
    """results: (subtask, hazard column, product column, SubtaskScore) for each scored sub-task."""
    step = _step if gold_public else _hidden_gold_step
    summary = table(["sub-task", "score", "hazard macro-F1", "product macro-F1", "rows", "rows with the hazard right"],
                    [(subtask.upper(), r.score, r.hazard_f1, r.product_f1, r.rows, r.rows_hazard_correct)
                     for subtask, _, _, r in results])
    sections = [section("Scores", summary, paragraph(
        "score = (hazard macro-F1 + product macro-F1) / 2. The product macro-F1 only counts the rows whose hazard "
        "is right, so the hazard decides most of the ranking. A class that is only predicted, or never predicted, "
        "has F1 = 0 and still counts in the average.", "note"))]
    for subtask, hazard, product, r in results:
        name = subtask.upper()
        sections.append(step("%s step 1: %s" % (name, hazard),
                             "All %d rows." % r.rows, r.hazard_counts, r.hazard_f1))
        sections.append(step("%s step 2: %s" % (name, product),
                             "Only the %d of %d rows whose %s is right." % (r.rows_hazard_correct, r.rows, hazard),
                             r.product_counts, r.product_f1))
    if not gold_public:
        sections.append(paragraph(HIDDEN_GOLD_RULE, "note"))
    return page(title + ": detailed results", *sections)
