"""The two-step macro-F1 of SemEval-2025 Task 9 (the official ``compute_score``), standard library only.

Macro-F1 itself (scikit-learn's semantics) is the shared class_f1 module.
"""
from itertools import compress
from operator import eq

from class_f1 import class_counts, macro_f1, macro_f1_of  # noqa: F401  (macro_f1: part of this module's API)


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
    kept = list(map(eq, hazards_gold, hazards_pred))
    product_counts = class_counts(list(compress(products_gold, kept)), list(compress(products_pred, kept)))
    return SubtaskScore(hazard_counts, product_counts, len(hazards_gold), sum(kept))
