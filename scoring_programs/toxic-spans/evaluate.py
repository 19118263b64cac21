"""Scoring program of SemEval-2021 Task 5, Toxic Spans Detection.

    python3 evaluate.py INPUT OUTPUT

INPUT/ref holds the gold (spans-gold.txt, or one CSV with columns spans,text), INPUT/res the submission
(spans-pred.txt). Writes spans_F1, spans_precision and spans_recall. See README.md for the metric.
"""
import os
import sys

# In the repository the shared runtime sits in ../common; in a built scoring program it sits beside this file.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "common"))

from scoring_runtime import SubmissionError, ReferenceDataError, Result, main  # noqa: E402,F401

from toxic_spans_layout import read_gold, read_predictions  # noqa: E402
from toxic_spans_metric import post_items, summarize  # noqa: E402
from toxic_spans_report import build_report  # noqa: E402

TITLE = "SemEval-2021 Task 5: Toxic Spans Detection"


def score(ref_dir, res_dir):
    gold = read_gold(ref_dir)
    predicted = read_predictions(res_dir, gold)
    summary = summarize(gold, predicted)
    f1, precision, recall = summary.means()
    return Result(
        [("spans_F1", f1), ("spans_precision", precision), ("spans_recall", recall)],
        html=build_report(TITLE, summary),
        notes=["scored %d posts" % summary.posts],
        hidden_gold_html=build_report(TITLE, summary, gold_public=False),
        items=lambda: post_items(gold, predicted))


if __name__ == "__main__":
    sys.exit(main(score, TITLE, program="toxic-spans"))
