"""Per-class counts and macro-F1 with scikit-learn's semantics, standard library only (shared by the scorers).

Per class c, F1 = 2*TP / (gold rows of c + predicted rows of c); a class that is only predicted, or only in the
gold, scores 0. Macro-F1 is the unweighted mean over the union of gold and predicted classes, as
``sklearn.metrics.f1_score(average='macro')`` computes it (so one class everywhere, all correct, gives 1.0).

Per-item statistics (scoring_runtime.Items): ``class_stats`` gives one item's share of the counts, under names
that carry the class; ``counts_of_stats`` turns the statistics summed over any items (all of them, or a bootstrap
resample) back into ClassCounts, so ``macro_f1_of_stats`` gives exactly what ``macro_f1`` gives on those items'
labels (scikit-learn's classes: those of the resample).
"""
import math
from collections import Counter


class ClassCounts(object):
    """Rows of one class: in the gold (support), predicted, and predicted correctly."""
    __slots__ = ("support", "predicted", "correct")

    def __init__(self):
        self.support = 0
        self.predicted = 0
        self.correct = 0

    @property
    def precision(self):
        return float(self.correct) / self.predicted if self.predicted else 0.0

    @property
    def recall(self):
        return float(self.correct) / self.support if self.support else 0.0

    @property
    def f1(self):
        total = self.support + self.predicted
        return 2.0 * self.correct / total if total else 0.0


def class_counts(gold, predicted):
    """{label: ClassCounts} over the union of the labels in ``gold`` and ``predicted`` (equal-length sequences)."""
    counts = {}
    # Rows counted per (gold, predicted) pair in C; pairs come in the order they first appear, so the classes enter
    # ``counts`` in the order of their first row, as a loop over the rows would put them.
    for (truth, guess), rows in Counter(zip(gold, predicted)).items():
        if truth not in counts:
            counts[truth] = ClassCounts()
        counts[truth].support += rows
        if guess not in counts:
            counts[guess] = ClassCounts()
        counts[guess].predicted += rows
        if truth == guess:
            counts[truth].correct += rows
    return counts


def macro_f1_of(counts):
    """Unweighted mean of the per-class F1; 0 when there are no classes (no rows)."""
    if not counts:
        return 0.0
    # fsum: the result does not depend on the order of the classes (dict order follows the rows).
    return math.fsum(c.f1 for c in counts.values()) / len(counts)


def macro_f1(gold, predicted):
    """scikit-learn's ``f1_score(gold, predicted, average='macro')``."""
    if len(gold) != len(predicted):
        raise ValueError("gold and predicted differ in length")
    return macro_f1_of(class_counts(gold, predicted))


# ---------------------------------------------------------------------------------------------------------------
# Per-item statistics

SUPPORT, PREDICTED, CORRECT = "support:", "predicted:", "correct:"


def class_stats(prefix, gold, predicted):
    """One item's statistics: {prefix + "support:" + gold: 1, prefix + "predicted:" + predicted: 1, and
    prefix + "correct:" + gold: 1 when the two are equal}. Labels are written as text ("%s"), and compared so.
    ``prefix`` keeps label sets of one item apart (e.g. "hazard:" and "product:"): empty, or ending in ':' so that
    no prefix + "support:" begins another prefix's names."""
    return label_set_stats(prefix, ("%s" % (gold,),), ("%s" % (predicted,),))


def label_set_stats(prefix, gold, predicted):
    """class_stats for an item with a set of gold labels and a set of predicted labels (multilabel): 1 per label
    in each, and "correct" for every label in both."""
    stats = {}
    for label in gold:
        stats[prefix + SUPPORT + label] = 1
    for label in predicted:
        stats[prefix + PREDICTED + label] = 1
        if label in gold:
            stats[prefix + CORRECT + label] = 1
    return stats


def counts_of_stats(totals, prefix=""):
    """{label: ClassCounts} from class_stats summed over items ({name: total}; absent names count 0): the classes
    with gold or predicted rows among those items, with their counts, as class_counts gives on their labels."""
    counts = {}
    tags = ((prefix + SUPPORT, "support"), (prefix + PREDICTED, "predicted"))
    for name, value in totals.items():
        for tag, field in tags:
            if value and name.startswith(tag):
                label = name[len(tag):]
                if label not in counts:
                    counts[label] = ClassCounts()
                setattr(counts[label], field, value)
    correct = prefix + CORRECT
    for label, row in counts.items():
        row.correct = totals.get(correct + label, 0)
    return counts


def macro_f1_of_stats(totals, prefix=""):
    """macro_f1 of the items whose class_stats(prefix, ...) were summed into ``totals``; 0 when there are none.
    Exactly (==) macro_f1 on the same labels: the totals are whole numbers, so every float step is the same."""
    return macro_f1_of(counts_of_stats(totals, prefix))
