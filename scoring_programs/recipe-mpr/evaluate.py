"""Scoring program of the Recipe-MPR competition: accuracy, MRR and per-type accuracy of recipe choices.

python3 evaluate.py INPUT OUTPUT, with the phase's gold JSON in INPUT/ref and predictions.json in INPUT/res.
"""
import os
import sys
from itertools import repeat

# In the repository the shared runtime sits in ../common; in a built scoring program it sits beside this file.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "common"))

from scoring_runtime import SubmissionError, ReferenceDataError, Result, main  # noqa: E402,F401
from recipe_mpr_gold import find_gold, load_gold_file, queries_of, read_items  # noqa: E402
from recipe_mpr_index import SUFFIX as INDEX_SUFFIX, index_of, load_index  # noqa: E402
from recipe_mpr_metric import Evaluation, column_combinations, gold_columns, query_items  # noqa: E402
from recipe_mpr_submission import FORM_IDS, predictions_of, ranks_by_index, read_predictions  # noqa: E402
from recipe_mpr_report import render  # noqa: E402

TITLE = "Recipe-MPR: detailed results"


def score(ref_dir, res_dir):
    gold_path = find_gold(ref_dir)
    index, index_note = load_index(gold_path)
    notes = [index_note] if index_note else []
    items = gold = None
    if index is None:
        # Without an index the gold is read first, so a broken gold is reported before any submission error. Its
        # columns make an index when every query is well formed; otherwise queries_of says what is wrong.
        items = read_items(gold_path)
        index = index_of(items)
        if index is None:
            gold = queries_of(items, os.path.basename(gold_path))
    loaded = {}

    def gold_queries():
        if "gold" not in loaded:
            loaded["gold"] = gold if gold is not None else (
                queries_of(items, os.path.basename(gold_path)) if items is not None else load_gold_file(gold_path))
        return loaded["gold"]

    def options_by_id():
        # What each query's ranking is checked against as the file is read (so the first bad query ends it)
        if index is not None:
            return dict(zip(index.ids, map(frozenset, index.options)))
        return dict((query.id, query.options.keys()) for query in gold_queries())
    data = read_predictions(res_dir, options_by_id, gold_queries)
    ranks = ranks_by_index(data, index) if index is not None else None
    if ranks is not None:  # the index holds all the gold this submission needs
        ids, types, options = index.ids, index.types, list(map(len, index.options))
        # ranks_by_index took one option id per query, or a full ranking of every query's options.
        ranked = options if type(data[ids[0]]) is list else repeat(1)
        form = FORM_IDS
    else:
        gold = gold_queries()
        predictions = predictions_of(data, gold)
        ids, ranks, types, options, ranked = gold_columns(gold, predictions.rankings)
        form = predictions.form
        notes.extend(predictions.notes)
    evaluation = Evaluation(counts=column_combinations(ranks, types, options))
    notes.insert(0, "scored %d queries (submission form: %s)" % (len(ids), form))
    notes.extend(evaluation.omitted_notes())
    # The per-query figures, built only when asked for, from plain columns: holding the parsed gold or submission
    # for them would keep many objects alive, which the collector's later passes would walk through.
    per_query = lambda: query_items(zip(ids, ranks, options, ranked))  # noqa: E731
    return Result(evaluation.scores(), html=render(TITLE, evaluation, form), notes=notes, items=per_query)


if __name__ == "__main__":
    sys.exit(main(score, TITLE, program="recipe-mpr", derived=(INDEX_SUFFIX,)))
