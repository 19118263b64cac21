"""The CHEERS Round 1 measures, as the task page defines them (see README.md for the organizers' deviations).

- relevance: macro-F1 of is_relevant over the classes present in gold or prediction (scikit-learn's semantics);
- sectors: mean of |Y ∩ {z}| / |Y ∪ {z}| over the sentences predicted relevant, leaving out gold-relevant
  sentences without sectors;
- HumImpact: the average of the two.

Per sentence (``sentence_items``): the relevance flag's class_stats under "relevance:", and for a counted sentence
"counted" (1) and "credit" (its sector credit); HumImpact is recombined from their sums.
"""
from class_f1 import class_counts, class_stats, macro_f1_of_stats
from class_f1 import macro_f1  # noqa: F401  (part of this module's API)
from scoring_runtime import Items, mean


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


def _hum_impact_of_stats(totals):
    """HumImpact from summed sentence statistics, by the same steps as the scores (credits' fsum over their count)."""
    counted = totals.get("counted", 0)
    sectors_accuracy = totals.get("credit", 0.0) / counted if counted else 0.0
    return hum_impact(macro_f1_of_stats(totals, "relevance:"), sectors_accuracy)


def _sector_detail(sectors, predicted_sector, sector_label):
    """What a sentence rightly predicted relevant lost on its sector."""
    gold = ", ".join(sector_label(s) for s in sorted(sectors))
    if predicted_sector in sectors:
        return "sector: predicted %s, one of %d gold sectors (%s): credit 1/%d" % (
            sector_label(predicted_sector), len(sectors), gold, len(sectors))
    return "sector: predicted %s, gold %s" % (_sector_name(predicted_sector, sector_label), gold)


def _sector_name(sector, sector_label):
    return "no sector" if sector < 0 else sector_label(sector)


def sentence_items(keys, rows, sector_label):
    """The Items of HumImpact, one per gold sentence. ``keys``: the gold's (doc_id, sentence_id) keys, in order;
    ``rows``: (Sentence, Prediction, sector credit or None) in the same order; ``sector_label(id)``: a sector's
    name for the details."""
    items = Items("sentence", "HumImpact", _hum_impact_of_stats)
    for (doc_id, sentence_id), (sentence, prediction, credit) in zip(keys, rows):
        stats = class_stats("relevance:", int(sentence.relevant), int(prediction.relevant))
        if credit is not None:
            stats["counted"] = 1
            if credit:
                stats["credit"] = credit
        item_id = "%s:%s" % (doc_id, sentence_id)
        if sentence.relevant != prediction.relevant:
            detail = ("predicted relevant with %s, gold not relevant" % _sector_name(prediction.sector, sector_label)
                      if prediction.relevant else "predicted not relevant, gold relevant")
            items.add(item_id, stats, "wrong", detail)
        elif credit is None or credit == 1.0:
            items.add(item_id, stats)
        else:
            items.add(item_id, stats, "partly", _sector_detail(sentence.sectors, prediction.sector, sector_label))
    return items
