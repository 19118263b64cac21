"""Kind ``classification``: one label per id; accuracy and F1 with scikit-learn's semantics.

The classes are the union of the gold and predicted labels (scikit-learn with labels=None): a label the gold never
uses is allowed and simply counts as wrong. With ``labels`` declared in scoring.json, the classes are exactly those
(scikit-learn with labels=declared): a declared class the test set lacks still counts in the macro averages, a gold
label outside them is a reference data error, a predicted one is refused (or, with unknown_labels "warn", counts as
wrong without being a class). ``subset_labels``: the subset_* keys average over those classes only (F1 of positive
and negative, of FAVOR and AGAINST, micro-F1 without "others"). Per-class keys f1_<name>, precision_<name>,
recall_<name>: one class's figure (generic_config.label_key_name gives a label's name). Per-class counts and F1 come
from class_f1 (zero_division=0).
Per-item statistics: a row's class counts (generic_items.class_stats), from which the formulas give any key.
"""
import math
from collections import Counter

from class_f1 import ClassCounts, class_counts, macro_f1_of
from report_html import paragraph, section, table
from scoring_runtime import Items, ReferenceDataError, SubmissionError, quote

from generic_config import OPTION_KEYS, PER_CLASS_KEY, label_key_name

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


def _over(counts, labels):
    """The counts of exactly the classes ``labels`` (a class without rows: zeros), or all of them (None)."""
    if labels is None:
        return counts
    empty = ClassCounts()
    return dict((label, counts.get(label, empty)) for label in labels)


def _micro_f1(counts):
    """2 sum TP / (sum support + sum predicted) over the classes: scikit-learn's micro F1 with labels=; 0 for 0/0."""
    total = sum(c.support + c.predicted for c in counts.values())
    return 2.0 * sum(c.correct for c in counts.values()) / total if total else 0.0


def _mean(values):
    values = list(values)
    return math.fsum(values) / len(values) if values else 0.0


_SUBSET = {
    "subset_macro_f1": lambda counts: _mean(c.f1 for c in counts.values()),
    "subset_micro_f1": _micro_f1,
    "subset_macro_precision": lambda counts: _mean(c.precision for c in counts.values()),
    "subset_macro_recall": lambda counts: _mean(c.recall for c in counts.values()),
}
_PER_CLASS = {"f1": lambda c: c.f1, "precision": lambda c: c.precision, "recall": lambda c: c.recall}


def formula_of(key, labels=None, subset=None, label_of=None):
    """f(counts, rows) -> the value of ``key``. ``labels``: the declared classes (None: the union of gold and
    predicted labels); ``subset``: subset_labels; ``label_of``: {per-class key: its label}."""
    if key in _SUBSET:
        return lambda counts, rows: _SUBSET[key](_over(counts, subset))
    if label_of and key in label_of:
        measure, label = _PER_CLASS[key.split("_", 1)[0]], label_of[key]
        return lambda counts, rows: measure(counts.get(label, ClassCounts()))
    formula = FORMULAS[key]
    if labels is None or key == "accuracy":
        return formula
    if key == "micro_f1":
        return lambda counts, rows: _micro_f1(_over(counts, labels))
    # weighted_f1: the declared classes hold every gold row (a gold label outside them is refused), so rows is
    # their total support, as scikit-learn's weights
    return lambda counts, rows: formula(_over(counts, labels), rows)


def metrics(gold, predicted, keys=None, labels=None, subset=None, label_of=None):
    """(the metrics ``keys`` (default: FORMULAS') by key, per-class counts) for aligned label sequences."""
    counts = class_counts(gold, predicted)
    rows = float(len(gold))
    return dict((key, formula_of(key, labels, subset, label_of)(counts, rows))
                for key in (keys or FORMULAS)), counts


def build_items(key, ids, gold, predicted, labels=None, subset=None, label_of=None):
    """Items of the score ``key``, one per row: its class counts; right or wrong."""
    formula = formula_of(key, labels, subset, label_of)

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


def declared(config, name="labels"):
    """The stripped labels of scoring.json's ``labels`` or ``subset_labels``, in order; None when not given."""
    values = config.get(name)
    return [value.strip() for value in values] if values else None


def read_gold(ref_dir, config):
    """{id: label} of the gold; ReferenceDataError naming the file, line and problem (``new`` checks with it)."""
    gold_table, gold_label = read_gold_csv(ref_dir, config, [config["label_column"]])
    gold = cell_values(gold_table, gold_label, ReferenceDataError, "label")
    labels = declared(config)
    if labels is not None:
        known = set(labels)
        outside = [key for key, value in gold.items() if value not in known]
        if outside:  # the gold's label is not quoted: the gold may be hidden
            raise ReferenceDataError("%s, line %d: the label is not one of the %d labels declared in scoring.json "
                                     "(%d gold rows are outside them)"
                                     % (gold_label, gold_table[outside[0]][0], len(labels), len(outside)))
    return gold


def _unknown_labels(predicted, gold, table, label, config):
    """Predicted labels outside the classes: without declared labels, labels no gold item has, each a class of its
    own in the macro averages, which lowers macro-F1 without a word unless said; with declared labels, labels
    outside them, which count as wrong. Refused when scoring.json says unknown_labels: "refuse" (the default with
    declared labels). The labels quoted are the participant's own and the declared ones, never the gold's."""
    labels = declared(config)
    known = set(labels) if labels is not None else set(gold.values())
    unknown = sorted(set(v for v in predicted.values() if v not in known))
    if not unknown:
        return []
    first = min(table[key][0] for key, value in predicted.items() if value in unknown)
    shown = ", ".join(quote(v) for v in unknown[:5]) + (" and %d more" % (len(unknown) - 5) if len(unknown) > 5 else "")
    if labels is None:
        what = ("%s: %d label(s) no gold item has, first on line %d: %s; each counts as a class of its own in the "
                "macro averages" % (label, len(unknown), first, shown))
        accepted = "only the gold's labels"
    else:
        what = ("%s: %d label(s) outside the task's labels, first on line %d: %s; each counts as wrong and is not a "
                "class of the averages" % (label, len(unknown), first, shown))
        accepted = "only its labels: %s" % ", ".join(quote(v) for v in labels[:10]) + (
            " and %d more" % (len(labels) - 10) if len(labels) > 10 else "")
    if config.get("unknown_labels", "warn") == "refuse":
        raise SubmissionError("%s, line %d: the label %s is not one of the task's labels (this task accepts %s)"
                              % (label, first, quote(predicted_at(table, predicted, first)), accepted)
                              if labels is not None else what + " (this task accepts %s)" % accepted)
    return [what]


def predicted_at(table, predicted, line):
    """The predicted label on ``line``."""
    return next(value for key, value in predicted.items() if table[key][0] == line)


def per_class_labels(config, gold):
    """{per-class key in ``keys``: its label}: a key's name is label_key_name of a label declared in scoring.json
    (labels, else subset_labels), else of a gold label; a key no label names is a reference data error."""
    keys = [key for key in config["keys"] if key not in FORMULAS and key not in OPTION_KEYS["classification"]
            and PER_CLASS_KEY["classification"].match(key)]
    if not keys:
        return {}
    candidates = declared(config) or declared(config, "subset_labels") or sorted(set(gold.values()))
    names = {}
    for label in candidates:
        names.setdefault(label_key_name(label), []).append(label)
    label_of = {}
    for key in keys:
        name = PER_CLASS_KEY["classification"].match(key).group(2)
        found = names.get(name, [])
        if len(found) != 1:
            raise ReferenceDataError("scoring.json: score key %s names %s of the gold's labels (declare the task's "
                                     "labels in \"labels\" to name each class's keys)"
                                     % (quote(key), "none" if not found else "several"))
        label_of[key] = found[0]
    return label_of


def score(ref_dir, res_dir, config):
    column = config["label_column"]
    gold = read_gold(ref_dir, config)
    table, label = read_submission_csv(res_dir, config, [column], gold)
    predicted = cell_values(table, label, SubmissionError, "label")
    label_of = per_class_labels(config, gold)
    warnings = _unknown_labels(predicted, gold, table, label, config)
    ids = list(gold)
    gold_labels, predicted_labels = [gold[k] for k in ids], [predicted[k] for k in ids]
    labels, subset = declared(config), declared(config, "subset_labels")
    values, counts = metrics(gold_labels, predicted_labels, config["keys"], labels, subset, label_of)
    confusions = Counter((g, p) for g, p in zip(gold_labels, predicted_labels) if g != p)
    shown = dict(counts)
    for name in labels or ():
        shown.setdefault(name, ClassCounts())  # a declared class the test set lacks is a row of the table

    def render(scores, gold_public):
        return _page(scores, shown, confusions, len(ids), gold_public, labels)
    return make_result(config, values, render, ["scored %d ids" % len(ids)], warnings,
                       lambda key: build_items(key, ids, gold_labels, predicted_labels, labels, subset, label_of))


def _page(scores, counts, confusions, items, gold_public, labels=None):
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
                  "never in the gold, has F1 0 and still counts in macro_f1." if labels is None else
                  "Classes are the %d labels declared for the task; a class that is never predicted, or never in "
                  "the gold, has F1 0 and still counts in macro_f1; another predicted label (if any) counts as "
                  "wrong and is no class of the averages." % len(labels), "note"))
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
