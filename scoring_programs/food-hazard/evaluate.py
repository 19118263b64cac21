"""Scoring program of SemEval-2025 Task 9, Food Hazard Detection (ST1 and ST2 from one submission.csv).

python3 evaluate.py INPUT OUTPUT, with the gold incidents CSV in INPUT/ref and submission.csv in INPUT/res.
"""
import os
import sys

# In the repository the shared runtime sits in ../common; in a built scoring program it sits beside this file.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "common"))

from scoring_runtime import SubmissionError, ReferenceDataError, Result, main  # noqa: E402,F401
from scoring_runtime import find_reference_file, find_submission_file  # noqa: E402

from food_hazard_format import SUBMISSION_NAME, SUBTASKS, read_gold, read_submission  # noqa: E402
from food_hazard_metric import row_items, two_step_score  # noqa: E402
from food_hazard_report import detailed_results  # noqa: E402

TITLE = "SemEval-2025 Task 9: Food Hazard Detection"


def score(ref_dir, res_dir):
    gold = read_gold(find_reference_file(ref_dir, suffix=".csv"))
    predicted = read_submission(find_submission_file(res_dir, names=SUBMISSION_NAME), gold)
    scores, results, notes = [], [], []
    for subtask, hazard, product in SUBTASKS:
        if hazard not in predicted:
            notes.append("%s not scored: %s has no '%s' and '%s' columns"
                         % (subtask.upper(), SUBMISSION_NAME, hazard, product))
            continue
        result = two_step_score(gold.columns[hazard], gold.columns[product],
                                predicted[hazard], predicted[product])
        scores += [(subtask + "_score", result.score), (subtask + "_hazard_f1", result.hazard_f1),
                   (subtask + "_product_f1", result.product_f1)]
        results.append((subtask, hazard, product, result))
        notes.append("%s scored on %d rows (%d with the right %s)"
                     % (subtask.upper(), result.rows, result.rows_hazard_correct, hazard))
    # The ranking score is the first sub-task scored: ST1, or ST2 when only its columns were given.
    ranked, hazard, product, _ = results[0]

    def items():
        return row_items(ranked + "_score", gold.ids, (hazard, product),
                         gold.columns[hazard], gold.columns[product], predicted[hazard], predicted[product])
    return Result(scores, detailed_results(TITLE, results), notes,
                  hidden_gold_html=detailed_results(TITLE, results, gold_public=False), items=items)


if __name__ == "__main__":
    sys.exit(main(score, TITLE, program="food-hazard"))
