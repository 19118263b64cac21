"""The gold index (recipe_mpr_index.py): its content, when the scorer trusts it, and that it changes no result."""
import hashlib
import io
import json
import sys
import zipfile

import pytest
from hypothesis import given, settings, strategies as st

from codalab_bundles.authoring import build, taskdef
from conftest import ROOT
from test_recipe_mpr_data import GOLD_DIR
from test_recipe_mpr_scoring import FIVE, gold_query, ref_files, res_files

TASK = "recipe-mpr"
sys.path.insert(0, str(ROOT / "scoring_programs" / TASK))

from recipe_mpr_gold import ReferenceDataError, queries_of  # noqa: E402
from recipe_mpr_index import SUFFIX, index_of, index_text, load_index, write_index  # noqa: E402
from recipe_mpr_submission import _object_hook, ranks_by_index  # noqa: E402

# Specific is bit 0, Commonsense 1, Negated 2, Analogical 3, Temporal 4.
SMALL = [gold_query("q0", ["b", "a", "c"], "a", ("Specific", "Negated")), gold_query("q1", ["e", "d"], "e")]


@pytest.fixture
def small_gold(tmp_path):
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(SMALL, indent=1), encoding="utf-8")
    return str(path)


def parsed(predictions):
    """predictions.json as the scorer parses it (duplicate keys remembered)."""
    return json.loads(predictions, object_pairs_hook=_object_hook)


def test_index_holds_ids_answers_sorted_options_and_type_masks(small_gold):
    index = json.loads(index_text(small_gold))
    with open(small_gold, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    assert index == {"format": "recipe-mpr gold index, version 1", "gold_sha256": digest,
                     "ids": ["q0", "q1"], "answers": ["a", "e"], "options": [["a", "b", "c"], ["d", "e"]],
                     "types": [1 + 4, 0]}
    loaded, note = load_index(write_index(small_gold)[:-len(SUFFIX)])
    assert note is None
    assert loaded.types == [("Specific", "Negated"), ()]


@pytest.mark.parametrize("predictions,ranks", [
    ('{"q0": ["c", "a", "b"], "q1": ["e", "d"]}', [2, 1]),  # full rankings, in any key order
    ('{"q1": ["d", "e"], "q0": ["a", "b", "c"]}', [1, 2]),
    ('{"q0": "a", "q1": "d"}', [1, None]),  # one option id per query
])
def test_ranks_by_index_for_what_needs_no_message(small_gold, predictions, ranks):
    index, _ = load_index(write_index(small_gold)[:-len(SUFFIX)])
    assert ranks_by_index(parsed(predictions), index) == ranks


@pytest.mark.parametrize("predictions", [
    '{"q0": ["a", "b"], "q1": ["e", "d"]}',  # a partial ranking: fine, but left to the full reader
    '{"q0": ["a", "b", "b"], "q1": ["e", "d"]}',  # ranked twice
    '{"q0": ["a", "b", "x"], "q1": ["e", "d"]}',  # not an option
    '{"q0": ["a", "b", "c"], "q1": "a"}',  # a string and a list: left to the full reader
    '{"q0": "a", "q1": "a"}',  # another query's option
    '{"q0": "a"}',  # a query missing
    '{"q0": "a", "q2": "d"}',  # an unknown query in its place
    '{"q0": "a", "q1": "d", "q2": "d"}',  # an extra query
    '{"q0": "a", "q1": "d", "q0": "b"}',  # a query twice
    '{"q0": [1, "a", "b"], "q1": ["e", "d"]}',  # items that cannot be sorted together
    '{"q0": [{}, {}, {}], "q1": ["e", "d"]}',
    '{"q0": 1, "q1": 2}',
    '[{"query": "Could I have recipe number q0?", "pred": "x"}]',  # the dataset's form
])
def test_ranks_by_index_declines_the_rest(small_gold, predictions):
    index, _ = load_index(write_index(small_gold)[:-len(SUFFIX)])
    assert ranks_by_index(parsed(predictions), index) is None


def test_no_index_is_no_note(small_gold):
    assert load_index(small_gold) == (None, None)


@pytest.mark.parametrize("text,fragment", [
    ("{not json", "gold.json.index cannot be used (Expecting property name"),
    ('{"format": "something else"}', "cannot be used (not a recipe-mpr gold index, version 1)"),
    (None, "cannot be used (its queries are not well formed)"),  # an answer that is not an option
])
def test_a_broken_index_is_passed_over_with_a_note(small_gold, text, fragment):
    if text is None:
        index = json.loads(index_text(small_gold))
        index["answers"][1] = "z"
        text = json.dumps(index)
    with open(small_gold + SUFFIX, "w", encoding="utf-8") as handle:
        handle.write(text)
    index, note = load_index(small_gold)
    assert index is None and fragment in note and note.endswith("read gold.json instead")


def test_a_stale_index_is_passed_over_and_the_gold_scores(score_submission):
    # The index of FIVE, beside a gold whose q0 answer has moved from o00 to o01: scores follow the gold.
    stale = ref_files(FIVE, indexed=True)
    moved = [dict(q, answer="o01") if q["id"] == "q0" else q for q in FIVE]
    files = dict(ref_files(moved), **{"gold.json.index": stale["gold.json.index"]})
    run = score_submission(TASK, files, res_files({"q0": "o01", "q1": "o11", "q2": "o20", "q3": "o30", "q4": "o40"}))
    assert run.returncode == 0, run.stderr
    assert run.scores["accuracy"] == 0.4  # q0 and q1 right, by the gold (the index would say q1 only: 0.2)
    assert "gold.json.index is not the index of this gold.json (made from another version of it)" in run.stdout


@pytest.mark.parametrize("submission", [
    {"q%d" % i: ["o%d%d" % (i, k) for k in (2, 0, 4, 1, 3)] for i in range(5)},  # the index's path
    {"q%d" % i: "o%d%d" % (i, (i * 2) % 5) for i in range(5)},  # the index's path
    {"q%d" % i: ["o%d%d" % (i, k) for k in (3, 4)] for i in range(5)},  # the gold's path
])
def test_the_same_results_with_and_without_the_index(score_submission, submission):
    runs = [score_submission(TASK, ref_files(FIVE, indexed), res_files(submission)) for indexed in (False, True)]
    assert runs[0].returncode == runs[1].returncode == 0
    assert runs[0].scores_txt == runs[1].scores_txt
    assert runs[0].stdout == runs[1].stdout and runs[0].html == runs[1].html


def test_the_builder_packs_a_current_index_beside_each_gold_and_never_in_public_data(tmp_path):
    # An organizer's gold folder holding a stale index: the builder writes the current one in its place.
    gold = tmp_path / "gold" / "test"
    gold.mkdir(parents=True)
    (gold / "test.json").write_bytes((GOLD_DIR / "test" / "test.json").read_bytes())
    (gold / ("test.json" + SUFFIX)).write_text("stale", encoding="utf-8")
    task = taskdef.load_task(TASK, {"test": str(gold)})
    path, _ = build.build_task(task, tmp_path / "dist")
    bundle = zipfile.ZipFile(str(path))
    for split, folder in (("dev", GOLD_DIR / "dev"), ("test", gold)):
        reference = zipfile.ZipFile(io.BytesIO(bundle.read("reference_%s.zip" % split)))
        assert reference.namelist() == [split + ".json", split + ".json" + SUFFIX]
        assert reference.read(split + ".json" + SUFFIX).decode("utf-8") == index_text(str(folder / (split + ".json")))
        public = zipfile.ZipFile(io.BytesIO(bundle.read("public_data_%s.zip" % split)))
        assert public.namelist() == ["queries.json"]


# ---------------------------------------------------------------------------------------------------------------
# Without an index: the gold's columns make one (index_of), when the gold reader would accept every query


def test_index_of_a_gold_without_ids_or_flags():
    items = [{"query": "Soup?", "options": {"b": "B", "a": "A"}, "answer": "b"},
             {"id": "x", "query": "Cake?", "query_type": {"Negated": 1, "Temporal": 0, "other": 7},
              "options": {"c": "C"}, "answer": "c"},
             {"id": None, "query": "Tea?", "query_type": {}, "options": {"e": "E", "d": "D"}, "answer": "d"}]
    index = index_of(items)
    assert (index.ids, index.answers, index.options, index.types) == (
        ["q000", "x", "q002"], ["b", "c", "d"], [["a", "b"], ["c"], ["d", "e"]], [(), ("Negated",), ()])


QUERY = st.fixed_dictionaries({
    "query": st.sampled_from(["Soup?", "", " \t", 3]),
    "options": st.sampled_from([{"a": "A", "b": "B"}, {"b": "B"}, {}, {"a": 1}, ["a"]]),
    "answer": st.sampled_from(["a", "b", None, ["a"]]),
}, optional={
    "id": st.sampled_from(["q000", "q001", "x", "", None, 5]),
    "query_type": st.sampled_from([None, {}, {"Specific": 1}, {"Negated": True, "Temporal": 0}, {"Specific": 2},
                                   {"Analogical": [1]}, ["Specific"], "Specific"]),
})
GOLD = st.lists(st.one_of(QUERY, st.sampled_from([[], "q", None])), min_size=1, max_size=4)


@given(GOLD)
@settings(max_examples=500, deadline=None)
def test_index_of_is_the_gold_readers_index_or_none(items):
    """index_of agrees with the query-by-query reader wherever it gives an index, and gives none for a gold that
    the reader refuses (which then says why)."""
    index = index_of(items)
    try:
        queries = queries_of(items, "gold.json")
    except ReferenceDataError:
        assert index is None
        return
    if index is not None:
        assert index.ids == [q.id for q in queries]
        assert index.answers == [q.answer for q in queries]
        assert index.options == [sorted(q.options) for q in queries]
        assert index.types == [q.types for q in queries]


def test_index_text_is_the_same_by_columns_and_by_queries(tmp_path, monkeypatch):
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(SMALL + [dict(gold_query("q2", ["f"], "f"), query_type=None)]), encoding="utf-8")
    by_columns = index_text(str(path))
    import recipe_mpr_index
    monkeypatch.setattr(recipe_mpr_index, "index_of", lambda items: None)
    assert index_text(str(path)) == by_columns
    assert json.loads(by_columns)["types"] == [1 + 4, 0, 0]
