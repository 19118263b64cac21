"""Kind ``multilabel``: a set of labels per id (one cell, labels joined by a separator; empty = no label).

Scores follow scikit-learn on binarized labels (columns: the union of gold and predicted labels), with one
``zero_division`` value z (0, scikit-learn's default, or 1) for every 0/0:
  samples_f1   mean over ids of 2|G&P| / (|G|+|P|); an id with G and P both empty scores z
  jaccard      mean over ids of |G&P| / |G|P|; both empty: z          (jaccard_score average='samples')
  micro_f1     2 sum|G&P| / (sum|G| + sum|P|); no label anywhere: z
  macro_f1     mean over labels of per-label F1 (class_f1); no label anywhere: z
  exact_match  share of ids with P = G (accuracy_score, subset accuracy)
With ``labels`` declared in scoring.json, the columns are those labels (MultiLabelBinarizer(classes=labels)): macro_f1
averages over every declared label, one in neither the gold nor the predictions scoring z; a gold label outside them
is a reference data error, a predicted one a submission error. When the other zero_division would change a
configured key (ids with both sets empty, declared labels nobody uses), a warning says by how much.
Per-item statistics: an id's F1, Jaccard or exact match (the means), or its label counts (micro_f1, macro_f1).
"""
import math

from class_f1 import ClassCounts, macro_f1_of
from report_html import paragraph, section, table
from scoring_runtime import Items, ReferenceDataError, SubmissionError, quote

from generic_items import class_stats, counts_of_stats, labels_text
from generic_result import make_result, scores_section
from generic_table import read_gold_csv, read_submission_csv


def label_sets(table, separator):
    """{id: frozenset of labels}; labels are stripped and empty ones dropped, so "" and " " mean no label."""
    return dict((key, frozenset(filter(None, (part.strip() for part in cells[0].split(separator)))))
                for key, (_, cells) in table.items())


def _ratio(numerator, denominator, zero):
    return numerator / float(denominator) if denominator else float(zero)


# micro_f1 and macro_f1 from the per-label counts: of the whole set (metrics) or of a resample (build_items).
def _micro(counts, zero):
    return _ratio(2 * sum(c.correct for c in counts.values()), sum(c.support + c.predicted for c in counts.values()),
                  zero)


def _macro(counts, zero):
    if not counts:
        return float(zero)
    if all(c.support or c.predicted for c in counts.values()):
        return macro_f1_of(counts)
    # a declared label in neither the gold nor the predictions: F1 0/0, z (scikit-learn's zero_division)
    return math.fsum(c.f1 if c.support or c.predicted else float(zero) for c in counts.values()) / len(counts)


def _declared(counts, labels):
    """The counts with every declared label (None: as they are), a label without rows at zero."""
    if labels is None:
        return counts
    return dict((label, counts.get(label) or ClassCounts()) for label in labels)


def metrics(gold, predicted, zero=0, labels=None):
    """(every multilabel metric by key, {label: ClassCounts}, {"f1": [per id], "jaccard": [per id]}) for aligned
    sequences of label sets; ``labels``: the declared labels (every label of the sets is among them)."""
    counts = _declared({}, labels)
    f1s, jaccards, exact = [], [], 0
    for truth, guess in zip(gold, predicted):
        common = len(truth & guess)
        f1s.append(_ratio(2 * common, len(truth) + len(guess), zero))
        jaccards.append(_ratio(common, len(truth | guess), zero))
        exact += truth == guess
        for name in truth | guess:
            c = counts.get(name)
            if c is None:
                c = counts[name] = ClassCounts()
            c.support += name in truth
            c.predicted += name in guess
            c.correct += name in truth and name in guess
    items = float(len(gold))
    values = {
        "samples_f1": math.fsum(f1s) / items,
        "jaccard": math.fsum(jaccards) / items,
        "micro_f1": _micro(counts, zero),
        "macro_f1": _macro(counts, zero),
        "exact_match": exact / items,
    }
    return values, counts, {"f1": f1s, "jaccard": jaccards}


# The statistic of each key that is a mean over ids.
_MEANS = {"samples_f1": "f1", "jaccard": "jaccard", "exact_match": "exact"}


def build_items(key, ids, gold, predicted, per_id, zero, labels=None):
    """Items of the score ``key``, one per id (``per_id``: metrics' values per id): right (the exact set), partly
    (some labels in common), wrong (none)."""
    if key in _MEANS:
        name = _MEANS[key]
        values = per_id.get(name) or [int(truth == guess) for truth, guess in zip(gold, predicted)]
        stats = [{"rows": 1, name: value} for value in values]

        def finish(totals):
            return totals.get(name, 0.0) / totals["rows"] if totals.get("rows") else 0.0
    else:
        formula = _micro if key == "micro_f1" else _macro
        stats = [class_stats(truth, guess) for truth, guess in zip(gold, predicted)]

        def finish(totals):
            return formula(_declared(counts_of_stats(totals), labels), zero) if totals.get("rows") else 0.0
    items = Items("row", key, finish)
    for item_id, truth, guess, row in zip(ids, gold, predicted, stats):
        if truth == guess:
            items.add(item_id, row)
            continue
        missing, extra = truth - guess, guess - truth
        detail = "; ".join(part for part in ("missing " + labels_text(missing) if missing else "",
                                             "extra " + labels_text(extra) if extra else "") if part)
        items.add(item_id, row, "partly" if truth & guess else "wrong", detail)
    return items


def declared_labels(config):
    """The stripped declared labels, in order, or None."""
    return [label.strip() for label in config["labels"]] if config.get("labels") else None


def _outside(table, sets, labels):
    """(line, label) of the first label outside ``labels`` in file order, and how many rows have one."""
    known = set(labels)
    rows = sorted((table[key][0], sorted(s - known)[0]) for key, s in sets.items() if not s <= known)
    return (rows[0] if rows else None), len(rows)


def read_gold(ref_dir, config):
    """The gold table ({id: row}); ReferenceDataError naming the file, line and problem (``new`` checks with it)."""
    table, label = read_gold_csv(ref_dir, config, [config["labels_column"]])
    labels = declared_labels(config)
    if labels is not None:
        first, rows = _outside(table, label_sets(table, config["separator"]), labels)
        if first:  # the gold's label is not quoted: the gold may be hidden
            raise ReferenceDataError("%s, line %d: a label is not one of the %d labels declared in scoring.json "
                                     "(%d gold rows have one outside them)" % (label, first[0], len(labels), rows))
    return table


def zero_division_note(config, values, gold_sets, predicted_sets, labels):
    """A warning when the other zero_division would change a configured key, saying by how much; None otherwise."""
    zero = config["zero_division"]
    other = metrics(gold_sets, predicted_sets, 1 - zero, labels)[0]
    changed = [(key, other[key] - values[key]) for key in config["keys"] if other[key] != values[key]]
    if not changed:
        return None
    empty = sum(1 for truth, guess in zip(gold_sets, predicted_sets) if not truth and not guess)
    unused = 0
    if labels:
        used = set().union(*gold_sets) | set().union(*predicted_sets)
        unused = sum(1 for label in labels if label not in used)
    why = []
    if empty:
        why.append("%d of the %d ids have no label in the gold and none predicted" % (empty, len(gold_sets)))
    if unused:
        why.append("%d declared label(s) are neither in the gold nor predicted" % unused)
    if not why:
        why.append("no label is in the gold nor predicted")
    return ("zero_division: %s; each such 0/0 scores %d here (zero_division %d); with zero_division %d %s"
            % ("; ".join(why), zero, zero, 1 - zero,
               ", ".join("%s would be %.6f (%+.6f)" % (key, values[key] + delta, delta) for key, delta in changed)))


def score(ref_dir, res_dir, config):
    column, separator = config["labels_column"], config["separator"]
    gold_table = read_gold(ref_dir, config)
    table, label = read_submission_csv(res_dir, config, [column], gold_table,
                                       " (leave the labels cell empty for an id without labels)")
    gold, predicted = label_sets(gold_table, separator), label_sets(table, separator)
    labels = declared_labels(config)
    if labels is not None:
        first, rows = _outside(table, predicted, labels)
        if first:
            raise SubmissionError("%s, line %d: the label %s is not one of the task's labels (%d rows have labels "
                                  "outside them; the labels: %s)" % (
                                      label, first[0], quote(first[1]), rows,
                                      ", ".join(quote(v) for v in labels[:10]) +
                                      (" and %d more" % (len(labels) - 10) if len(labels) > 10 else "")))
    ids = list(gold)
    gold_sets, predicted_sets, zero = [gold[k] for k in ids], [predicted[k] for k in ids], config["zero_division"]
    values, counts, per_id = metrics(gold_sets, predicted_sets, zero, labels)
    note = zero_division_note(config, values, gold_sets, predicted_sets, labels)

    def render(scores, gold_public):
        return _page(scores, counts, len(ids), gold_public, labels is not None)
    return make_result(config, values, render, ["scored %d ids" % len(ids)], [note] if note else [],
                       items=lambda key: build_items(key, ids, gold_sets, predicted_sets, per_id, zero, labels))


def _page(scores, counts, items, gold_public, declared=False):
    predicted = sum(c.predicted for c in counts.values())
    overview = scores_section(scores, [("ids scored", items), ("labels predicted, per id on average",
                                                                predicted / float(items))])
    if not gold_public:
        own = sorted((n for n, c in counts.items() if c.predicted), key=lambda n: (-counts[n].predicted, n))
        return [overview, section("Labels predicted", table(
            ["label", "predicted", "correct", "precision"],
            [(n, counts[n].predicted, counts[n].correct, counts[n].precision) for n in own]))]
    names = sorted(counts, key=lambda n: (-counts[n].support, n))
    return [overview, section(
        "Per label",
        table(["label", "gold", "predicted", "correct", "precision", "recall", "F1"],
              [(n, counts[n].support, counts[n].predicted, counts[n].correct, counts[n].precision,
                counts[n].recall, counts[n].f1) for n in names]),
        paragraph("Labels are the %s; macro_f1 is the mean of the F1 column%s." % (
            ("labels declared for the task", " (a label in neither the gold nor the predictions: zero_division)")
            if declared else ("union of the gold and predicted labels", "")), "note"))]
