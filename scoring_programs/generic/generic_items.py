"""Per-item statistics (scoring_runtime.Items) shared by the generic kinds: per-class counts as additive statistics
(classification rows, multilabel ids) and the words of the details.

A row's statistics are "rows": 1 and, per label, "support:<label>" (in the gold), "predicted:<label>" and
"correct:<label>" (both); summed over any rows they give the class counts of those rows, from which the kinds'
formulas compute every F1 exactly as on the whole set.

TODO(class_f1): scoring_programs/common/class_f1.py is getting the shared helper for these statistics (macro-F1
from summed class counts, same names); point class_stats and counts_of_stats at it when merging.
"""
from class_f1 import ClassCounts
from scoring_runtime import quote

_FIELDS = ("support", "predicted", "correct")
_SHOWN_LABELS = 5


def class_stats(gold, predicted):
    """The statistics of one row whose gold and predicted labels are the collections ``gold`` and ``predicted``
    (one label each for a classification row, sets for multilabel)."""
    stats = {"rows": 1}
    for label in gold:
        stats["support:" + label] = 1
    for label in predicted:
        stats["predicted:" + label] = 1
        if label in gold:
            stats["correct:" + label] = 1
    return stats


def counts_of_stats(totals):
    """{label: ClassCounts} from statistics summed over rows; only the labels those rows have (a class absent from
    a resample is not a class of it, as for scikit-learn)."""
    counts = {}
    for name, value in totals.items():
        field, colon, label = name.partition(":")
        if colon and value and field in _FIELDS:
            c = counts.get(label)
            if c is None:
                c = counts[label] = ClassCounts()
            setattr(c, field, getattr(c, field) + value)
    return counts


def labels_text(labels):
    """Labels for a detail, sorted and quoted: "'a', 'b' and 3 more"."""
    labels = sorted(labels)
    shown = ", ".join(quote(label) for label in labels[:_SHOWN_LABELS])
    return shown + (" and %d more" % (len(labels) - _SHOWN_LABELS) if len(labels) > _SHOWN_LABELS else "")


def ordinal(number):
    """1st, 2nd, 3rd, 4th, 11th, 21st, ..."""
    if 10 <= number % 100 <= 20:
        return "%dth" % number
    return "%d%s" % (number, {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th"))
