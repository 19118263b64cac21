"""Scoring program of the Recipe-MPR competition: accuracy, MRR and per-type accuracy of recipe choices.

python3 evaluate.py INPUT OUTPUT, with the phase's gold JSON in INPUT/ref and predictions.json in INPUT/res.
"""
import os
import sys

# In the repository the shared runtime sits in ../common; in a built scoring program it sits beside this file.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "common"))

from scoring_runtime import SubmissionError, ReferenceDataError, Result, main  # noqa: E402,F401
from recipe_mpr_gold import load_reference  # noqa: E402
from recipe_mpr_metric import Evaluation  # noqa: E402
from recipe_mpr_submission import load_predictions  # noqa: E402
from recipe_mpr_report import render  # noqa: E402

TITLE = "Recipe-MPR: detailed results"


def score(ref_dir, res_dir):
    gold = load_reference(ref_dir)
    predictions = load_predictions(res_dir, gold)
    evaluation = Evaluation(gold, predictions.rankings)
    notes = ["scored %d queries (submission form: %s)" % (len(gold), predictions.form)]
    notes.extend(predictions.notes)
    notes.extend(evaluation.omitted_notes())
    return Result(evaluation.scores(), html=render(TITLE, evaluation, predictions.form), notes=notes)


if __name__ == "__main__":
    sys.exit(main(score, TITLE))
