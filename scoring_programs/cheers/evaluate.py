"""Scoring program of the CHEERS challenge, Round 1: sentence relevance and sector (HumImpact).

Usage: python3 evaluate.py INPUT OUTPUT, with the gold sentences CSV in INPUT/ref and the run file in INPUT/res.
"""
import os
import sys

# In the repository the shared runtime sits in ../common; in a built scoring program it sits beside this file.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "common"))

from scoring_runtime import SubmissionError, ReferenceDataError, Result, main  # noqa: E402,F401

import cheers_metric  # noqa: E402
import cheers_report  # noqa: E402
from cheers_gold import read_gold  # noqa: E402
from cheers_submission import read_run  # noqa: E402


def human_summary(relevance_f1, sectors_accuracy, humimpact):
    """The three lines the organizers' evaluation script printed, in percent with two decimals."""
    return ["Macro-averaged F1 score for is_relevant variable is: %.2f" % (100 * relevance_f1),
            "Accuracy for sector_ids variable is: %.2f" % (100 * sectors_accuracy),
            "HumImpact Score is: %.2f" % (100 * humimpact)]


def score(ref_dir, res_dir):
    gold = read_gold(ref_dir)
    predictions = read_run(res_dir, gold)
    rows = []
    for key, sentence in gold.sentences.items():
        prediction = predictions[key]
        credit = cheers_metric.sector_credit(sentence.relevant, sentence.sectors,
                                              prediction.relevant, prediction.sector)
        rows.append((sentence, prediction, credit))
    gold_flags = [int(s.relevant) for s, _, _ in rows]
    predicted_flags = [int(p.relevant) for _, p, _ in rows]
    relevance_f1 = cheers_metric.macro_f1(gold_flags, predicted_flags)
    sectors_accuracy = cheers_metric.sector_accuracy(c for _, _, c in rows)
    humimpact = cheers_metric.hum_impact(relevance_f1, sectors_accuracy)
    scores = [("relevance_f1_score_macro", relevance_f1), ("sectorids_accuracy", sectors_accuracy),
              ("HumImpact", humimpact)]
    html = cheers_report.build(gold, rows, gold_flags, predicted_flags,
                               cheers_metric.f1_per_class(gold_flags, predicted_flags), scores)
    return Result(scores, html=html, notes=human_summary(relevance_f1, sectors_accuracy, humimpact),
                  items=lambda: cheers_metric.sentence_items(gold.sentences, rows, gold.sector_label))


if __name__ == "__main__":
    sys.exit(main(score, cheers_report.TITLE, program="cheers"))
