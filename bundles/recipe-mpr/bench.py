"""Benchmark input for the recipe-mpr scoring program: synthetic gold and ranked predictions.

scale 1 is the size of the real dataset (500 queries of five options); 10 and 100 multiply it. The reference
folder holds the gold index beside the gold, as the builder packs it (bundles/recipe-mpr/derive.py); the variant
"no gold index" leaves it out, as for a gold not built here (a participant's own copy, an organizer's rescoring).
make_gold gives the builder a gold of each size (bench/run.py times the build).
"""
import json
import os
import random

from codalab_bundles.loading import scoring_module

REAL_SIZE = "500 queries"
REAL_QUERIES = 500
TYPES = ("Specific", "Commonsense", "Negated", "Analogical", "Temporal")
WORDS = ("baked chicken spicy vegan quick soup lasagna creamy grilled salmon tofu gluten-free slow-cooker "
         "breakfast dessert low-fat curry rice noodles garlic lemon").split()


def _text(rng, length):
    return " ".join(rng.choice(WORDS) for _ in range(length))


def make_input(input_dir, scale, seed=0, index=True):
    rng = random.Random(seed)
    gold, predictions = [], {}
    for i in range(REAL_QUERIES * scale):
        qid = "q%06d" % i
        options = ["%010x" % rng.getrandbits(40) for _ in range(5)]
        gold.append({
            "id": qid,
            "query": "Could I have %s? (%d)" % (_text(rng, 8), i),
            "query_type": dict((t, int(rng.random() < 0.3)) for t in TYPES),
            "options": dict((oid, _text(rng, 12)) for oid in options),
            "answer": options[0],
            "correctness_explanation": {"a": "b"},
        })
        rng.shuffle(options)
        predictions[qid] = options  # a full ranking per query: the longest valid submission
    for sub, name, data in (("ref", "test.json", gold), ("res", "predictions.json", predictions)):
        folder = os.path.join(str(input_dir), sub)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
            json.dump(data, handle)
    if index:
        scoring_module("recipe-mpr", "recipe_mpr_index").write_index(os.path.join(str(input_dir), "ref", "test.json"))


def make_input_without_index(input_dir, scale):
    make_input(input_dir, scale, index=False)


VARIANTS = [("no gold index", make_input_without_index)]


def make_gold(folder, scale):
    """The gold of the test split at this scale, for the builder: {split: gold folder}."""
    make_input(folder, scale, index=False)
    return {"test": os.path.join(str(folder), "ref")}


# The authors' baselines/eval.py: evaluate(queries, predicted option texts); a submission's top-ranked option id
# is turned into its text, as their baselines pass predictions.
OFFICIAL_REPO = "D3Mlab/Recipe-MPR"
OFFICIAL_FILES = ("baselines/eval.py",)
_OFFICIAL_DRIVER = """
import json, sys
sys.path.insert(0, sys.argv[1])
from eval import evaluate
queries = json.load(open(sys.argv[2], encoding="utf-8"))
ranked = json.load(open(sys.argv[3], encoding="utf-8"))
evaluate(queries, [query["options"][ranked[query["id"]][0]] for query in queries])
"""


def official_command(code_dir, input_dir, work_dir):
    return ["-c", _OFFICIAL_DRIVER, code_dir, os.path.join(str(input_dir), "ref", "test.json"),
            os.path.join(str(input_dir), "res", "predictions.json")]
