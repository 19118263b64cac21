"""The two-step macro-F1 of SemEval-2025 Task 9 (the official ``compute_score``), standard library only.

Per class c, F1 = 2*TP / (gold rows of c + predicted rows of c), which is scikit-learn's formula; a class that is
only predicted, or only in the gold, scores 0. Macro-F1 averages over the union of gold and predicted classes.
"""
import math


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
    for truth, guess in zip(gold, predicted):
        if truth not in counts:
            counts[truth] = ClassCounts()
        counts[truth].support += 1
        if guess not in counts:
            counts[guess] = ClassCounts()
        counts[guess].predicted += 1
        if truth == guess:
            counts[truth].correct += 1
    return counts


def macro_f1_of(counts):
    """Unweighted mean of the per-class F1; 0 when there are no classes (no rows)."""
    if not counts:
        return 0.0
    # fsum: the result does not depend on the order of the classes (dict order follows the rows).
    return math.fsum(c.f1 for c in counts.values()) / len(counts)


def macro_f1(gold, predicted):
    """scikit-learn's ``f1_score(gold, predicted, average='macro')``."""
    return macro_f1_of(class_counts(gold, predicted))


class SubtaskScore(object):
    """The two steps of one sub-task and what they were computed from (for the detailed results)."""

    def __init__(self, hazard_counts, product_counts, rows, rows_hazard_correct):
        self.hazard_counts = hazard_counts
        self.product_counts = product_counts
        self.rows = rows
        self.rows_hazard_correct = rows_hazard_correct
        self.hazard_f1 = macro_f1_of(hazard_counts)
        # With no correct hazard the official function fails (NaN or an exception); the organizers score it 0.
        self.product_f1 = macro_f1_of(product_counts) if rows_hazard_correct else 0.0
        self.score = (self.hazard_f1 + self.product_f1) / 2.0


def two_step_score(hazards_gold, products_gold, hazards_pred, products_pred):
    """Hazard macro-F1 on all rows; product macro-F1 only on the rows whose hazard is right; their mean."""
    hazard_counts = class_counts(hazards_gold, hazards_pred)
    kept = [i for i, (truth, guess) in enumerate(zip(hazards_gold, hazards_pred)) if truth == guess]
    product_counts = class_counts([products_gold[i] for i in kept], [products_pred[i] for i in kept])
    return SubtaskScore(hazard_counts, product_counts, len(hazards_gold), len(kept))
