"""The CHEERS Round 1 measures, as the task page defines them (see README.md for the organizers' deviations).

- relevance: macro-F1 of is_relevant over the classes present in gold or prediction (scikit-learn's semantics);
- sectors: mean of |Y ∩ {z}| / |Y ∪ {z}| over the sentences predicted relevant, leaving out gold-relevant
  sentences without sectors;
- HumImpact: the average of the two.
"""
from class_f1 import class_counts, macro_f1  # noqa: F401  (macro_f1: part of this module's API)
from scoring_runtime import mean


def f1_per_class(gold, predicted):
    """{class: F1} for every class occurring in gold or prediction, in class order."""
    return dict((label, counts.f1) for label, counts in sorted(class_counts(gold, predicted).items()))


def sector_credit(gold_relevant, gold_sectors, predicted_relevant, predicted_sector):
    """One sentence's share of the sector accuracy, or None when the sentence is not counted.

    Counted: predicted relevant, unless the gold is relevant with no sector. A gold non-relevant sentence has
    Y = ∅ and so earns 0, like a wrong or missing (-1) sector.
    """
    if not predicted_relevant or (gold_relevant and not gold_sectors):
        return None
    y, z = frozenset(gold_sectors), frozenset([predicted_sector])
    return len(y & z) / float(len(y | z))


def sector_accuracy(credits):
    """Mean of the counted sentences' credits (None entries are not counted); 0 when none is counted."""
    counted = [c for c in credits if c is not None]
    return mean(counted) if counted else 0.0


def hum_impact(relevance_f1, sectors_accuracy):
    return 0.5 * relevance_f1 + 0.5 * sectors_accuracy
