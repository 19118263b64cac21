"""Kind ``multilabel``: a set of labels per id (one cell, labels joined by a separator; empty = no label).

Scores follow scikit-learn on binarized labels (columns: the union of gold and predicted labels), with one
``zero_division`` value z (0, scikit-learn's default, or 1) for every 0/0:
  samples_f1   mean over ids of 2|G&P| / (|G|+|P|); an id with G and P both empty scores z
  jaccard      mean over ids of |G&P| / |G|P|; both empty: z          (jaccard_score average='samples')
  micro_f1     2 sum|G&P| / (sum|G| + sum|P|); no label anywhere: z
  macro_f1     mean over labels of per-label F1 (class_f1); no label anywhere: z
  exact_match  share of ids with P = G (accuracy_score, subset accuracy)
Per-item statistics: an id's F1, Jaccard or exact match (the means), or its label counts (micro_f1, macro_f1).
"""
import math

from class_f1 import ClassCounts, macro_f1_of
from report_html import paragraph, section, table
from scoring_runtime import Items

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
    return macro_f1_of(counts) if counts else float(zero)


def metrics(gold, predicted, zero=0):
    """(every multilabel metric by key, {label: ClassCounts}, {"f1": [per id], "jaccard": [per id]}) for aligned
    sequences of label sets."""
    counts = {}
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


def build_items(key, ids, gold, predicted, per_id, zero):
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
            return formula(counts_of_stats(totals), zero) if totals.get("rows") else 0.0
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


def read_gold(ref_dir, config):
    """The gold table ({id: row}); ReferenceDataError naming the file, line and problem (``new`` checks with it)."""
    return read_gold_csv(ref_dir, config, [config["labels_column"]])[0]


def score(ref_dir, res_dir, config):
    column, separator = config["labels_column"], config["separator"]
    gold_table = read_gold(ref_dir, config)
    table, _ = read_submission_csv(res_dir, config, [column], gold_table,
                                   " (leave the labels cell empty for an id without labels)")
    gold, predicted = label_sets(gold_table, separator), label_sets(table, separator)
    ids = list(gold)
    gold_sets, predicted_sets, zero = [gold[k] for k in ids], [predicted[k] for k in ids], config["zero_division"]
    values, counts, per_id = metrics(gold_sets, predicted_sets, zero)

    def render(scores, gold_public):
        return _page(scores, counts, len(ids), gold_public)
    return make_result(config, values, render, ["scored %d ids" % len(ids)],
                       items=lambda key: build_items(key, ids, gold_sets, predicted_sets, per_id, zero))


def _page(scores, counts, items, gold_public):
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
        paragraph("Labels are the union of the gold and predicted labels; macro_f1 is the mean of the F1 column.",
                  "note"))]
