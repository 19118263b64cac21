"""Per-item statistics (scoring_runtime.Items) shared by the generic kinds: per-class counts as additive statistics
(classification rows, multilabel ids) and the words of the details.

A row's statistics are "rows": 1 and, per label, "support:<label>" (in the gold), "predicted:<label>" and
"correct:<label>" (both), as class_f1.label_set_stats writes them; summed over any rows, class_f1.counts_of_stats
gives the class counts of those rows, from which the kinds' formulas compute every F1 exactly as on the whole set.
"""
from class_f1 import counts_of_stats, label_set_stats  # noqa: F401  (counts_of_stats: used by the kinds from here)
from scoring_runtime import quote

_SHOWN_LABELS = 5


def class_stats(gold, predicted):
    """The statistics of one row whose gold and predicted labels are the collections ``gold`` and ``predicted``
    (one label each for a classification row, sets for multilabel)."""
    stats = label_set_stats("", gold, predicted)
    stats["rows"] = 1
    return stats


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
