"""Participants' files for a Recipe-MPR phase: the queries with their options reordered, and the starting kit;
and the gold index packed beside the gold (scoring_programs/recipe-mpr/recipe_mpr_index.py).

In the released dataset the correct option is always listed first, so the public data must not keep the gold
order. Each split's options are reordered with the builder's per-split seed; the answer's slot is drawn from a
shuffled, balanced list of slots, so every position holds the answer equally often (give or take one) and the
position carries no information. Answers and type flags are left out.
"""
import json
import os
import random
import shutil

from codalab_bundles.loading import load_file, scoring_module

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "scoring_programs")  # this competition folder's
# The scorer's gold reader, so that public query ids are exactly the ones the scorer expects.
_gold = scoring_module("recipe-mpr", "recipe_mpr_gold", PROGRAMS)
load_reference = _gold.load_reference
_index = scoring_module("recipe-mpr", "recipe_mpr_index", PROGRAMS)

PUBLIC_FILE = "queries.json"
SUBMISSION_FILE = "predictions.json"
KIT_DIR = os.path.join(HERE, "starting_kit")
KIT_FILES = ("README.md", "word_overlap_baseline.py")


def reference_files(ctx):
    """The gold index, named after the gold file it indexes (which the scorer finds as it finds the gold)."""
    gold = _gold.find_gold(str(ctx.reference_dir))
    name = os.path.relpath(gold, str(ctx.reference_dir)).replace(os.sep, "/") + _index.SUFFIX
    return [(name, _index.index_text(gold).encode("utf-8"))]


def public_option_orders(gold, seed):
    """For each query, its option ids in the order participants see them."""
    rng = random.Random(seed)
    slots = {}
    for size in sorted(set(len(q.options) for q in gold)):
        count = sum(1 for q in gold if len(q.options) == size)
        balanced = [i % size for i in range(count)]
        rng.shuffle(balanced)
        slots[size] = iter(balanced)
    orders = []
    for query in gold:
        order = [oid for oid in query.options if oid != query.answer]
        rng.shuffle(order)
        order.insert(next(slots[len(query.options)]), query.answer)
        orders.append(order)
    return orders


def public_queries(gold, seed):
    return [{"id": q.id, "query": q.text, "options": dict((oid, q.options[oid]) for oid in order)}
            for q, order in zip(gold, public_option_orders(gold, seed))]


def public_data(ctx):
    gold = load_reference(str(ctx.reference_dir))
    text = json.dumps(public_queries(gold, ctx.seed), indent=2, ensure_ascii=False) + "\n"
    with open(os.path.join(str(ctx.out_dir), PUBLIC_FILE), "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


def _baseline():
    return load_file(os.path.join(KIT_DIR, "word_overlap_baseline.py"))


def starting_kit(ctx):
    for name in KIT_FILES:
        shutil.copyfile(os.path.join(KIT_DIR, name), os.path.join(str(ctx.out_dir), name))
    _baseline().write_predictions(os.path.join(str(ctx.public_dir), PUBLIC_FILE),
                                  os.path.join(str(ctx.submission_dir), SUBMISSION_FILE))
