"""Per-class counts and macro-F1 with scikit-learn's semantics, standard library only (shared by the scorers).

Per class c, F1 = 2*TP / (gold rows of c + predicted rows of c); a class that is only predicted, or only in the
gold, scores 0. Macro-F1 is the unweighted mean over the union of gold and predicted classes, as
``sklearn.metrics.f1_score(average='macro')`` computes it (so one class everywhere, all correct, gives 1.0).
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
