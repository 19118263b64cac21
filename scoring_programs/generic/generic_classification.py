"""Kind ``classification``: one label per id; accuracy and F1 with scikit-learn's semantics.

The classes are the union of the gold and predicted labels (scikit-learn with labels=None): a label the gold never
uses is allowed and simply counts as wrong. Per-class counts and F1 come from class_f1 (zero_division=0).
Per-item statistics: a row's class counts (generic_items.class_stats), from which FORMULAS give any key.
"""
import math
from collections import Counter

from class_f1 import class_counts, macro_f1_of
from report_html import paragraph, section, table
from scoring_runtime import Items, ReferenceDataError, SubmissionError, quote

from generic_items import class_stats, counts_of_stats
from generic_result import make_result, scores_section
from generic_table import read_gold_csv, read_submission_csv

_TOP_CONFUSIONS = 20
_MATRIX_CLASSES = 12  # a full confusion matrix up to this many classes; beyond, only the most frequent confusions


def cell_values(table, label, error, what):
    """{id: stripped text} of a one-column table; an empty cell is an error."""
    values = {}
    for key, (line, cells) in table.items():
        value = cells[0].strip()
        if not value:
            raise error("%s, line %d: the %s is empty" % (label, line, what))
        values[key] = value
    return values


def _accuracy(counts, rows):
    return sum(c.correct for c in counts.values()) / rows


# Each metric from the per-class counts and the number of rows (a float): the same formulas score the whole set
# (metrics) and any resample of rows (build_items' finish), so both give identical floats.
FORMULAS = {
    "accuracy": _accuracy,
    "micro_f1": _accuracy,  # one label per id: micro precision = recall = F1 = accuracy
    "macro_f1": lambda counts, rows: macro_f1_of(counts),
    "weighted_f1": lambda counts, rows: math.fsum(c.support * c.f1 for c in counts.values()) / rows,
    "macro_precision": lambda counts, rows: math.fsum(c.precision for c in counts.values()) / len(counts),
    "macro_recall": lambda counts, rows: math.fsum(c.recall for c in counts.values()) / len(counts),
}


def metrics(gold, predicted):
    """(every classification metric by key, per-class counts) for aligned label sequences."""
    counts = class_counts(gold, predicted)
    rows = float(len(gold))
    return dict((key, formula(counts, rows)) for key, formula in FORMULAS.items()), counts


def build_items(key, ids, gold, predicted):
    """Items of the score ``key``, one per row: its class counts; right or wrong."""
    formula = FORMULAS[key]

    def finish(totals):
        rows = totals.get("rows", 0)
        return formula(counts_of_stats(totals), rows) if rows else 0.0
    items = Items("row", key, finish)
    for item_id, truth, guess in zip(ids, gold, predicted):
        stats = class_stats((truth,), (guess,))
        if truth == guess:
            items.add(item_id, stats)
        else:
            items.add(item_id, stats, "wrong", "predicted %s, gold %s" % (quote(guess), quote(truth)))
    return items


def read_gold(ref_dir, config):
    """{id: label} of the gold; ReferenceDataError naming the file, line and problem (``new`` checks with it)."""
    gold_table, gold_label = read_gold_csv(ref_dir, config, [config["label_column"]])
    return cell_values(gold_table, gold_label, ReferenceDataError, "label")


def _unknown_labels(predicted, gold, table, label, config):
    """Predicted labels that no gold item has: each becomes a class of its own in the macro averages, so they
    lower macro-F1 without a word unless said. Refused when scoring.json says unknown_labels: "refuse". The labels
    quoted are the participant's own, never the gold's."""
    known = set(gold.values())
    unknown = sorted(set(v for v in predicted.values() if v not in known))
    if not unknown:
        return []
    first = min(table[key][0] for key, value in predicted.items() if value in unknown)
    shown = ", ".join(quote(v) for v in unknown[:5]) + (" and %d more" % (len(unknown) - 5) if len(unknown) > 5 else "")
    what = ("%s: %d label(s) no gold item has, first on line %d: %s; each counts as a class of its own in the macro "
            "averages" % (label, len(unknown), first, shown))
    if config.get("unknown_labels", "warn") == "refuse":
        raise SubmissionError(what + " (this task accepts only the gold's labels)")
    return [what]


def score(ref_dir, res_dir, config):
    column = config["label_column"]
    gold = read_gold(ref_dir, config)
    table, label = read_submission_csv(res_dir, config, [column], gold)
    predicted = cell_values(table, label, SubmissionError, "label")
    warnings = _unknown_labels(predicted, gold, table, label, config)
    ids = list(gold)
    gold_labels, predicted_labels = [gold[k] for k in ids], [predicted[k] for k in ids]
    values, counts = metrics(gold_labels, predicted_labels)
    confusions = Counter((g, p) for g, p in zip(gold_labels, predicted_labels) if g != p)

    def render(scores, gold_public):
        return _page(scores, counts, confusions, len(ids), gold_public)
    return make_result(config, values, render, ["scored %d ids" % len(ids)], warnings,
                       lambda key: build_items(key, ids, gold_labels, predicted_labels))


def _page(scores, counts, confusions, items, gold_public):
    correct = sum(c.correct for c in counts.values())
    overview = scores_section(scores, [("ids scored", items), ("correct", correct)])
    if not gold_public:
        own = sorted((name for name, c in counts.items() if c.predicted), key=lambda n: (-counts[n].predicted, n))
        return [overview, section(
            "Classes predicted",
            table(["class", "predicted", "correct", "precision"],
                  [(n, counts[n].predicted, counts[n].correct, counts[n].precision) for n in own]))]
    names = sorted(counts, key=lambda n: (-counts[n].support, n))
    per_class = section(
        "Per class",
        table(["class", "gold", "predicted", "correct", "precision", "recall", "F1"],
              [(n, counts[n].support, counts[n].predicted, counts[n].correct, counts[n].precision,
                counts[n].recall, counts[n].f1) for n in names]),
        paragraph("Classes are the union of the gold and predicted labels; a class that is never predicted, or "
                  "never in the gold, has F1 0 and still counts in macro_f1.", "note"))
    return [overview, per_class, _confusion_section(names, confusions)]


def _confusion_section(names, confusions):
    if not confusions:
        return section("Confusions", paragraph("No errors."))
    if len(names) <= _MATRIX_CLASSES:
        rows = [[g] + [confusions.get((g, p), 0) if g != p else "-" for p in names] for g in names]
        return section("Confusions (rows: gold class, columns: predicted class; errors only)",
                       table(["gold \\ predicted"] + names, rows))
    top = sorted(confusions.items(), key=lambda item: (-item[1], item[0]))[:_TOP_CONFUSIONS]
    return section("Most frequent confusions",
                   table(["gold class", "predicted class", "ids"], [(g, p, n) for (g, p), n in top]))
