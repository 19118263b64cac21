"""The two-step macro-F1 of SemEval-2025 Task 9 (the official ``compute_score``), standard library only.

Macro-F1 itself (scikit-learn's semantics) is the shared class_f1 module.

Per row (``row_items``): the hazard's class_stats under "hazard:", and the product's under "product:" only when
the hazard is right, which is the row set of the second step; ``finish`` recombines them into the score.
"""
from itertools import compress
from operator import eq

from class_f1 import class_counts, class_stats, macro_f1_of, macro_f1_of_stats
from class_f1 import macro_f1  # noqa: F401  (part of this module's API)
from scoring_runtime import Items, quote


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


def _two_step_of_stats(totals):
    """The score from summed row statistics: no row with the right hazard leaves no product statistics, and
    macro_f1_of_stats then gives 0, the organizers' rule."""
    return (macro_f1_of_stats(totals, "hazard:") + macro_f1_of_stats(totals, "product:")) / 2.0


def _miss(column, predicted, gold):
    return "%s: predicted %s, gold %s" % (column, quote(predicted, 80), quote(gold, 80))


def row_items(key, ids, columns, hazards_gold, products_gold, hazards_pred, products_pred):
    """The Items of one sub-task's score (``key``), one per gold row (``ids``, in the gold's order). ``columns``:
    the (hazard, product) column names, for the details. A row whose hazard is wrong is "wrong" even with the
    right product: the product then does not count."""
    hazard_column, product_column = columns
    items = Items("row", key, _two_step_of_stats)
    for row_id, hazard, product, hazard_guess, product_guess in zip(
            ids, hazards_gold, products_gold, hazards_pred, products_pred):
        stats = class_stats("hazard:", hazard, hazard_guess)
        if hazard != hazard_guess:
            product_note = (_miss(product_column, product_guess, product) if product != product_guess else
                            "%s right, but not counted without the right %s" % (product_column, hazard_column))
            items.add(row_id, stats, "wrong", _miss(hazard_column, hazard_guess, hazard) + "; " + product_note)
            continue
        stats.update(class_stats("product:", product, product_guess))
        if product == product_guess:
            items.add(row_id, stats)
        else:
            items.add(row_id, stats, "partly", _miss(product_column, product_guess, product))
    return items
