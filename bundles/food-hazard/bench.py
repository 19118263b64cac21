"""Benchmark input for the food-hazard scoring program: synthetic gold and predictions at `scale` x the test set.

The gold reuses the sample-data generator (bundles/food-hazard/sample_data.py), with texts repeated to the size of
the real test file (about 2.5 MB for 997 rows), since parsing the CSV is most of the work. The submission has the
index column, rows shuffled (so alignment by id is exercised) and about a third of the labels changed.
"""
import csv
import os
import random

from codalab_bundles.loading import load_file

REAL_SIZE = "997 rows"
REAL_ROWS = 997
TEXT_REPEAT = 7  # generated notices average ~340 characters, the real ones ~2,350

_GENERATOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sample_data.py")


def _generator():
    return load_file(_GENERATOR)


def _write(path, header, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def make_input(input_dir, scale, seed=0):
    generator = _generator()
    rng = random.Random(seed)
    gold = generator.incidents(REAL_ROWS * scale, seed)
    for row in gold:
        row["text"] = "\n".join([row["text"]] * TEXT_REPEAT)
    os.makedirs(os.path.join(input_dir, "ref"), exist_ok=True)
    with open(os.path.join(input_dir, "ref", "incidents_test.csv"), "w", encoding="utf-8", newline="") as handle:
        handle.write(generator.to_csv(gold))

    hazards = sorted({(row["hazard-category"], row["hazard"]) for row in gold})
    products = sorted({(row["product-category"], row["product"]) for row in gold})
    predictions = []
    for i, row in enumerate(gold):
        hazard = (row["hazard-category"], row["hazard"]) if rng.random() < 0.7 else rng.choice(hazards)
        product = (row["product-category"], row["product"]) if rng.random() < 0.6 else rng.choice(products)
        predictions.append([i, hazard[0], product[0], hazard[1], product[1]])
    rng.shuffle(predictions)
    _write(os.path.join(input_dir, "res", "submission.csv"),
           ["", "hazard-category", "product-category", "hazard", "product"], predictions)


# The organizers publish compute_score in their baseline notebook; it is run as they use it, with pandas and
# scikit-learn, on the gold and the submission read with pandas (the submission aligned on the gold's index).
OFFICIAL_REPO = "food-hazard-detection-semeval-2025/food-hazard-detection-semeval-2025.github.io"
OFFICIAL_FILES = ("code/The_Food_Hazard_Detection_Challenge_SemEval_2025_The_BERT_Baseline.ipynb",)
_OFFICIAL_DRIVER = """
import json, sys
import pandas as pd
cells = json.load(open(sys.argv[1], encoding="utf-8"))["cells"]
exec(next("".join(c["source"]) for c in cells if "def compute_score" in "".join(c["source"])))
gold = pd.read_csv(sys.argv[2], index_col=0)
submission = pd.read_csv(sys.argv[3], index_col=0).loc[gold.index]
for hazard, product in (("hazard-category", "product-category"), ("hazard", "product")):
    print(compute_score(gold[hazard], gold[product], submission[hazard], submission[product]))
"""


def official_command(code_dir, input_dir, work_dir):
    notebook = os.path.join(code_dir, os.path.basename(OFFICIAL_FILES[0]))
    return ["-c", _OFFICIAL_DRIVER, notebook, os.path.join(str(input_dir), "ref", "incidents_test.csv"),
            os.path.join(str(input_dir), "res", "submission.csv")]
