"""detailed_results.html for CHEERS: the relevance confusion matrix and the sector accuracy per gold sector.

Participants see this page in test phases too, so it shows counts and means only, never a sentence's gold.
"""
from report_html import bar_chart, page, paragraph, section, table

from scoring_runtime import mean

TITLE = "CHEERS Round 1: detailed results"


def _ratio(numerator, denominator):
    return float(numerator) / denominator if denominator else 0.0


def _relevance_section(gold_flags, predicted_flags, per_class_f1):
    counts = {}
    for g, p in zip(gold_flags, predicted_flags):
        counts[(g, p)] = counts.get((g, p), 0) + 1
    names = {0: "not relevant (0)", 1: "relevant (1)"}
    matrix = [["gold " + names[g], counts.get((g, 0), 0), counts.get((g, 1), 0)] for g in (0, 1)]
    per_class = []
    for label in (0, 1):
        tp = counts.get((label, label), 0)
        in_gold = counts.get((label, 0), 0) + counts.get((label, 1), 0)
        in_predicted = counts.get((0, label), 0) + counts.get((1, label), 0)
        f1 = per_class_f1.get(label)
        per_class.append([names[label], _ratio(tp, in_predicted), _ratio(tp, in_gold),
                          "not counted (absent)" if f1 is None else f1, in_gold])
    return section(
        "Relevance",
        paragraph("Confusion matrix: rows are the gold classes, columns the run's predictions."),
        table(["", "predicted 0", "predicted 1"], matrix),
        table(["class", "precision", "recall", "F1", "gold sentences"], per_class),
        paragraph("relevance_f1_score_macro is the mean of the F1 of the classes that occur in the gold or the "
                  "run.", "note"))


def _sector_section(gold, rows):
    """rows: (gold Sentence, Prediction, credit or None) for every sentence."""
    counted = [(s, p, c) for s, p, c in rows if c is not None]
    false_alarms = [c for s, p, c in counted if not s.relevant]
    left_out = sum(1 for s, p, c in rows if p.relevant and c is None)
    summary = [
        ["sentences predicted relevant", sum(1 for s, p, c in rows if p.relevant)],
        ["left out: relevant in gold but without a sector", left_out],
        ["counted in sectorids_accuracy", len(counted)],
        ["counted, but not relevant in gold (each scores 0)", len(false_alarms)],
        ["counted, predicted sector -1 (each scores 0)", sum(1 for s, p, c in counted if p.sector == -1)],
    ]
    # One pass over the counted sentences: per gold sector, its credits and exact hits; per sector, predictions.
    credits, hits, predicted = {}, {}, {}
    for sentence, prediction, credit in counted:
        predicted[prediction.sector] = predicted.get(prediction.sector, 0) + 1
        for sector in sentence.sectors:
            credits.setdefault(sector, []).append(credit)
            hits[sector] = hits.get(sector, 0) + (prediction.sector == sector)
    per_sector = []
    bars = []
    for sector in sorted(set(credits) | set(gold.sector_names)):
        label = gold.sector_label(sector)
        if sector in credits:
            accuracy = mean(credits[sector])
            bars.append((label, accuracy))
        per_sector.append([label, len(credits.get(sector, ())), hits.get(sector, 0), predicted.get(sector, 0),
                           accuracy if sector in credits else "-"])
    return section(
        "Sectors",
        table(["", "sentences"], summary),
        paragraph("Per gold sector, over the counted sentences whose gold includes it. A sentence with several "
                  "gold sectors appears under each of them with the same credit, whichever of them the run named: "
                  "naming one of its |Y| gold sectors earns 1/|Y|, so the mean stays below 1 where sentences have "
                  "several sectors."),
        table(["gold sector", "counted sentences", "the run named this sector", "times the run named it",
               "mean credit"], per_sector),
        bar_chart(bars, max_value=1.0))


def build(gold, rows, gold_flags, predicted_flags, per_class_f1, scores):
    """The page; ``scores`` is the list of (key, value) written to scores.txt."""
    return page(
        TITLE,
        section("Scores", table(["measure", "value"], [[k, v] for k, v in scores]),
                paragraph("%d sentences scored from %s." % (len(rows), gold.label), "note")),
        _relevance_section(gold_flags, predicted_flags, per_class_f1),
        _sector_section(gold, rows))
