"""migrate_leaderboard.convert on small leaderboard sections, from the two platforms' code:

- Codabench (codalab/codabench c7dbc756b07b, src/apps/leaderboards/models.py): ``Column.title`` and ``Column.key``
  are CharField(max_length=36), ``Leaderboard.key`` 36 and ``Leaderboard.title`` 64; ``Column.hidden`` hides a
  column; ``Column.sorting`` is "desc" or "asc"; ``Leaderboard.submission_rule`` one of Add, Force_Last,
  Force_Best, ...; column keys are unique per leaderboard, titles need not be (the migration keeps them unique so
  that participants can tell the columns apart).
- CodaLab (codalab/codalab-competitions, apps/web/models.py ``CompetitionDefBundle.unpack``): a column's sorting
  is ``'desc' if 'sort' not in vals else vals['sort']`` and ranks ascending only when it equals "asc"
  (``rank_values(..., sort_ascending=sdef.sorting=='asc')``), so anything else sorts descending;
  ``numeric_format`` defaults to "2"; ``SubmissionScoreDef`` has no ``hidden`` field, so CodaLab showed every
  column; apps/web/tasks.py puts a finished submission on the leaderboard by its phase's
  ``force_best_submission_to_leaderboard`` (the best one) or the competition's
  ``force_submission_to_leaderboard`` (every one).
"""
import datetime

import pytest

from codalab_bundles.migrate import leaderboard as ml
from codalab_bundles.migrate.report import CHANGE, LOSS, MANUAL, NOTE, REFUSED, Report

RESULTS = {"label": "Results", "rank": 1}
# Phases starting in 2020: CodaLab read the file in its own order, so the ranking column is known.
RECENT = ml.Context(first_start=datetime.datetime(2020, 1, 1))


def column(label=None, rank=None, board=RESULTS, **extra):
    found = {"leaderboard": board}
    if label is not None:
        found["label"] = label
    if rank is not None:
        found["rank"] = rank
    found.update(extra)
    return found


def section(columns, boards=None, groups=None):
    found = {"leaderboards": boards if boards is not None else {"Results": RESULTS}, "columns": columns}
    if groups is not None:
        found["column_groups"] = groups
    return found


def convert(board, context=RECENT, **spec):
    report = Report("old.zip", "new.zip")
    spec["leaderboard"] = board
    return ml.convert(spec, report, context), report


def findings(report, kind=None, where=None):
    return [item for item in report.items if (kind is None or item["kind"] == kind)
            and (where is None or item["where"] == where)]


def titles(out):
    return [c["title"] for c in out["columns"]]


# --- Codabench's lengths ---------------------------------------------------------------------------------------


def test_a_title_of_36_characters_is_kept_and_37_are_cut():
    out, report = convert(section({"a": column("A" * 36, 1), "b": column("B" * 37, 2),
                                   "c": column("C" * 35 + " D", 3)}))
    assert titles(out) == ["A" * 36, "B" * 36, "C" * 35]   # a cut never ends in a space
    renamed = findings(report, CHANGE, "leaderboard.columns")
    assert len(renamed) == 1 and "b %r" % ("B" * 36) in renamed[0]["message"] and "a %r" % ("A" * 36) not in \
        renamed[0]["message"] and "within 36 characters" in renamed[0]["message"]


def test_a_key_longer_than_36_characters_is_a_manual_step_that_codabench_would_refuse():
    long_key, fits = "k" * 37, "j" * 36
    out, report = convert(section({long_key: column("long", 1), fits: column("fits", 2)}))
    manual = findings(report, MANUAL)
    assert [m["where"] for m in manual] == ["leaderboard.columns." + long_key]
    assert manual[0]["breaks"] == REFUSED and "36 characters" in manual[0]["message"]
    assert [c["key"] for c in out["columns"]] == [long_key, fits]   # the program's key: the organizer shortens both


def test_the_leaderboard_title_keeps_64_characters_and_its_key_36():
    label, key = "T" * 65, "K" * 37
    board = dict(RESULTS, label=label)
    out, _ = convert(section({"a": column("A", 1, board=board)}, boards={key: board}))
    assert out["title"] == "T" * 64 and out["key"] == "K" * 36
    board = dict(RESULTS, label="U" * 64)
    out, _ = convert(section({"a": column("A", 1, board=board)}, boards={"K" * 36: board}))
    assert out["title"] == "U" * 64 and out["key"] == "K" * 36


def test_group_labels_prefix_their_columns_and_are_abbreviated_for_all_when_one_is_too_long():
    groups = {"ner": {"label": "Named Entity Recognition Results", "rank": 1},
              "pos": {"label": "Tagging", "rank": 2},
              "long": {"label": "Supercalifragilistic", "rank": 3}}
    columns = {"ner_p": column("Precision", 1, column_group=groups["ner"]),
               "ner_f": column("F1", 2, column_group=groups["ner"]),
               "pos_a": column("Accuracy", 1, column_group=groups["pos"]),
               "x": column("A label of twenty-one", 1, column_group=groups["long"])}
    out, report = convert(section(columns, groups=groups))
    # "Named Entity Recognition Results: Precision" has 43 characters: the group's initials, for both columns;
    # "Supercalifragilistic: A label of twenty-one" (43): one word, its first 8 letters.
    assert titles(out) == ["NERR: Precision", "NERR: F1", "Tagging: Accuracy", "Supercal: A label of twenty-one"]
    assert findings(report, LOSS, "leaderboard.column_groups")


def test_a_title_still_too_long_after_abbreviation_is_cut():
    groups = {"g": {"label": "Group One", "rank": 1}}
    out, _ = convert(section({"a": column("L" * 40, 1, column_group=groups["g"])}, groups=groups))
    assert titles(out) == [("GO: " + "L" * 40)[:36]]


# --- unique titles -----------------------------------------------------------------------------------------------


def test_titles_alike_but_for_case_get_their_key_after_the_first():
    out, report = convert(section({"f1": column("F1", 1), "f1_b": column("f1", 2), "f1_c": column("F1", 3),
                                   "acc": column("Accuracy", 4)}))
    assert titles(out) == ["F1", "f1 (f1_b)", "F1 (f1_c)", "Accuracy"]
    message = findings(report, CHANGE, "leaderboard.columns")[0]["message"]
    assert "f1_b 'f1 (f1_b)'" in message and "f1_c 'F1 (f1_c)'" in message and "acc" not in message


def test_titles_alike_once_cut_are_told_apart_within_36_characters():
    label = "Macro-averaged F1 over all the classes"   # 38 characters: both cut to the same 36
    out, _ = convert(section({"one": column(label, 1), "two": column(label, 2)}))
    assert titles(out) == [label[:36], label[:30] + " (two)"]
    assert all(len(t) <= 36 for t in titles(out))


@pytest.mark.parametrize("key, title", [
    ("k" * 32, "F (" + "k" * 32 + ")"),   # " (" + key + ")" has 35 characters: the title's first one before it
    ("k" * 33, "k" * 33),                # 36: no room left, the key alone
    ("k" * 34, "k" * 34),
])
def test_a_key_too_long_for_a_suffix_is_the_title(key, title):
    out, _ = convert(section({"first": column("F", 1), key: column("F", 2)}))
    assert titles(out) == ["F", title]


def test_a_column_without_a_label_is_titled_by_its_key():
    out, _ = convert(section({"acc": column(None, 1), "f1": column("  ", 2), "p": column(0, 3)}))
    assert titles(out) == ["acc", "f1", "0"]


# --- what puts a submission on the leaderboard ------------------------------------------------------------------

ONE = section({"a": column("A", 1)})


@pytest.mark.parametrize("spec, rule, kind, where", [
    ({"phases": {1: {"force_best_submission_to_leaderboard": True},
                 2: {"force_best_submission_to_leaderboard": True}}}, "Force_Best", CHANGE, "phases"),
    ({"phases": {1: {"force_best_submission_to_leaderboard": True}, 2: {}}}, "Force_Best", LOSS, "phases"),
    ({"phases": {1: {"force_best_submission_to_leaderboard": True}, 2: "not a phase"}}, "Force_Best", CHANGE,
     "phases"),
    ({"force_submission_to_leaderboard": True, "phases": {1: {}}}, "Force_Last", CHANGE,
     "force_submission_to_leaderboard"),
    ({"disallow_leaderboard_modifying": True, "phases": {1: {}}}, "Add", CHANGE, "disallow_leaderboard_modifying"),
    ({"phases": {1: {"force_best_submission_to_leaderboard": False}}}, "Add", None, None),
    ({"phases": None}, "Add", None, None),
    ({}, "Add", None, None),
])
def test_submission_rule(spec, rule, kind, where):
    out, report = convert(ONE, **spec)
    assert out["submission_rule"] == rule
    told = [item for item in report.items if item["where"] in ("phases", "force_submission_to_leaderboard",
                                                                "disallow_leaderboard_modifying")]
    assert [(item["kind"], item["where"]) for item in told] == ([(kind, where)] if kind else [])


# --- column settings ---------------------------------------------------------------------------------------------


def test_hidden_columns_are_hidden_on_codabench_and_said_to_be():
    out, report = convert(section({"a": column("A", 1, hidden=True), "b": column("B", 2, hidden=False),
                                   "c": column("C", 3)}))
    assert [c.get("hidden") for c in out["columns"]] == [True, None, None]
    assert [item["where"] for item in findings(report, CHANGE) if "hidden" in item["message"]] == \
        ["leaderboard.columns.a"]


@pytest.mark.parametrize("sort, sorting, told", [
    ("asc", "asc", False), ("desc", "desc", False), (None, "desc", False), ("", "desc", False),
    ("ascending", "desc", True), ("ASC", "desc", True), (1, "desc", True),
])
def test_sorting_asc_only_when_written_asc(sort, sorting, told):
    extra = {} if sort is None else {"sort": sort}
    out, report = convert(section({"a": column("A", 1, **extra)}))
    assert out["columns"][0]["sorting"] == sorting
    said = [i for i in findings(report, CHANGE, "leaderboard.columns.a") if "neither asc nor desc" in i["message"]]
    assert len(said) == (1 if told else 0)
    assert report.leaderboard["sorting"] == sorting


@pytest.mark.parametrize("numeric_format, precision, told", [
    (None, 2, False), ("4", 4, False), (0, 0, False), ("x", 2, True), ([], 2, True)])
def test_precision_from_numeric_format(numeric_format, precision, told):
    extra = {} if numeric_format is None else {"numeric_format": numeric_format}
    out, report = convert(section({"a": column("A", 1, **extra)}))
    assert out["columns"][0]["precision"] == precision
    said = [i for i in findings(report, CHANGE, "leaderboard.columns.a") if "numeric_format" in i["message"]]
    assert len(said) == (1 if told else 0)


def test_columns_keep_codalabs_order_and_indexes():
    out, _ = convert(section({"c": column("C", 3), "a": column("A", 1), "b": column("B", 2), "d": column("D")}))
    # rank first; a column without rank takes its place in the mapping (d is the 4th): after c's rank 3
    assert [(c["key"], c["index"]) for c in out["columns"]] == [("a", 0), ("b", 1), ("c", 2), ("d", 3)]


@pytest.mark.parametrize("rank", [True, "1", 1.0])
def test_a_rank_that_is_not_an_integer_is_the_columns_place(rank):
    out, _ = convert(section({"a": column("A", 2), "b": column("B", rank), "c": column("C", 1)}))
    # b is the 2nd in the mapping: its place, 2, ties with a's rank 2; a was created first
    assert [c["key"] for c in out["columns"]] == ["c", "a", "b"]


# --- sections that are missing or malformed ------------------------------------------------------------------------

EMPTY = {"title": "Results", "key": "main", "submission_rule": "Add", "columns": []}


@pytest.mark.parametrize("board", [None, "a string", ["a", "list"], {}, {"columns": None}, {"columns": []},
                                   {"columns": {}}, {"leaderboards": {"Results": RESULTS}}])
def test_no_columns_is_a_manual_step(board):
    out, report = convert(board)
    assert out == EMPTY
    manual = findings(report, MANUAL)
    assert [(m["where"], m["breaks"]) for m in manual] == [("leaderboard", REFUSED)]
    assert "at least one column" in manual[0]["message"]


def test_leaderboard_key_absent_is_the_same_manual_step():
    report = Report("old.zip", "new.zip")
    assert ml.convert({"title": "t"}, report) == EMPTY
    assert findings(report, MANUAL)[0]["where"] == "leaderboard"


@pytest.mark.parametrize("boards", [None, {}, {"Results": "not a mapping"}])
def test_without_a_usable_leaderboards_mapping_the_table_is_results_main(boards):
    board = {"columns": {"a": column("A", 1), "b": column("B", 2, board=None)}}
    if boards is not None:
        board["leaderboards"] = boards
    out, report = convert(board)
    assert (out["title"], out["key"]) == ("Results", "main")
    assert [c["key"] for c in out["columns"]] == ["a", "b"]
    assert not findings(report, MANUAL)


def test_a_column_on_a_leaderboard_that_does_not_exist_goes_to_the_main_one():
    out, report = convert(section({"a": column("A", 1), "b": column("B", 2, board={"label": "Ghost", "rank": 2})}))
    assert [c["key"] for c in out["columns"]] == ["a", "b"]
    assert [i["where"] for i in findings(report, CHANGE) if "does not exist" in i["message"]] == \
        ["leaderboard.columns.b"]


def test_entries_that_are_not_mappings_are_skipped():
    out, _ = convert(section({"a": column("A", 1), "junk": "text", "none": None}, groups="not a mapping"))
    assert [c["key"] for c in out["columns"]] == ["a"]


def test_a_group_the_column_group_section_does_not_define_is_no_group():
    groups = {"g": {"label": "Defined", "rank": 1}}
    out, report = convert(section({"a": column("A", 2, column_group={"label": "Undefined"}),
                                   "b": column("B", 1, column_group=groups["g"])}, groups=groups))
    assert titles(out) == ["Defined: B", "A"]


# --- several leaderboards ---------------------------------------------------------------------------------------


def test_later_leaderboards_follow_the_first_titled_with_their_label():
    extra = {"label": "Extra Results", "rank": 2}
    boards = {"extra": extra, "main": RESULTS}   # by rank, not by the file's order
    out, report = convert(section({"x": column("F1", 1, board=extra), "a": column("F1", 1)}, boards=boards))
    assert (out["title"], out["key"]) == ("Results", "main")
    assert [(c["key"], c["title"]) for c in out["columns"]] == [("a", "F1"), ("x", "Extra Results: F1")]
    loss = findings(report, LOSS, "leaderboard.leaderboards")
    assert len(loss) == 1 and "'Extra Results'" in loss[0]["message"] and "x" in loss[0]["message"]


def test_an_empty_later_leaderboard_is_not_reported():
    boards = {"main": RESULTS, "extra": {"label": "Extra", "rank": 2}}
    _, report = convert(section({"a": column("A", 1)}, boards=boards))
    assert not findings(report, LOSS, "leaderboard.leaderboards")


# --- computed columns ---------------------------------------------------------------------------------------------


def test_an_unweighted_average_of_columns_sorted_alike_is_their_mean():
    columns = {"p": column("P", 1), "r": column("R", 2),
               "avg": column("Avg", 3, computed={"operation": "Avg", "fields": "p, r"})}
    out, report = convert(section(columns))
    assert out["columns"][2] == {"title": "Avg", "key": "avg", "index": 2, "sorting": "desc", "precision": 2,
                                 "computation": "avg", "computation_indexes": [0, 1]}
    assert findings(report, LOSS, "leaderboard.columns.avg")


@pytest.mark.parametrize("computed, extra_sort", [
    ({"operation": "Avg", "fields": "p, r", "weights": "1, 2"}, "desc"),   # weighted
    ({"operation": "Avg", "fields": "p, r"}, "asc"),                       # sorted unlike
    ({"operation": "Avg", "fields": "p, missing"}, "desc"),                # a field that is no column
    ({"operation": "Avg", "fields": ""}, "desc"),                          # no field
    ({"operation": "Max", "fields": "p, r"}, "desc"),                      # not an average
    ("not a mapping", "desc"),
])
def test_other_computed_columns_are_left_out(computed, extra_sort):
    columns = {"p": column("P", 1), "r": column("R", 2, sort=extra_sort),
               "avg": column("Avg", 3, computed=computed)}
    out, report = convert(section(columns))
    assert [c["key"] for c in out["columns"]] == ["p", "r"]
    assert "left out" in findings(report, LOSS, "leaderboard.columns.avg")[0]["message"]


def test_a_ranking_column_left_out_ranks_by_the_first_column():
    columns = {"p": column("P", 2), "r": column("R", 3),
               "avg": column("Avg", 1, selection_default=1, computed={"operation": "Max", "fields": "p, r"})}
    out, report = convert(section(columns))
    assert "primary_index" not in out and report.leaderboard["ranked_by"] == "p"
    assert any("has no Codabench equivalent: the leaderboard is ranked by p" in i["message"]
               for i in findings(report, LOSS, "leaderboard"))


# --- the ranking column -------------------------------------------------------------------------------------------


def test_the_column_with_the_highest_selection_default_ranks_through_primary_index():
    out, report = convert(section({"a": column("A", 1, selection_default=1), "b": column("B", 2, selection_default=3),
                                   "c": column("C", 3, selection_default=2)}))
    assert out["primary_index"] == 1
    assert report.leaderboard["ranked_by"] == "b" and report.leaderboard["codalab_ranking"]["codalab_ranked_by"] == "b"
    assert any("primary_index: 1" in i["message"] for i in findings(report, CHANGE, "leaderboard"))


def test_the_first_column_ranking_needs_no_primary_index():
    out, report = convert(section({"a": column("A", 1, selection_default=2), "b": column("B", 2)}))
    assert "primary_index" not in out and report.leaderboard["ranked_by"] == "a"


def test_rank_by_chooses_another_column_or_is_refused():
    board = section({"a": column("A", 1), "b": column("B", 2)})
    out, report = convert(board, ml.Context(first_start=datetime.datetime(2020, 1, 1), rank_by="b"))
    assert out["primary_index"] == 1 and report.leaderboard["codalab_ranking"]["why"] == "as asked (--rank-by)"
    with pytest.raises(ValueError, match="--rank-by nope: the main leaderboard has no such column"):
        convert(board, ml.Context(rank_by="nope"))


def test_every_conversion_notes_that_the_editor_could_change_the_ranking():
    _, report = convert(ONE)
    assert any("editor could change the ranking column" in i["message"] for i in findings(report, NOTE))


# --- CodaLab's order of columns without rank ---------------------------------------------------------------------
# CompetitionDefBundle.unpack: a column group's or a column's ordering is its 'rank', else its 1-based place in its
# mapping (``list(...keys()).index(key) + 1``); CompetitionPhase.scores sorts the headers by ordering, stably, in
# the order the score sets were created (groups, then plain columns, then computed ones).


def test_a_column_without_rank_is_ordered_by_its_place_ties_kept_in_creation_order():
    out, _ = convert(section({"a": column("A"), "b": column("B", 1), "c": column("C", 2)}))
    # a is 1st: ordering 1, tied with b's rank 1, and created before it
    assert [c["key"] for c in out["columns"]] == ["a", "b", "c"]
    out, _ = convert(section({"b": column("B", 2), "a": column("A"), "c": column("C", 3)}))
    # a is 2nd: ordering 2, tied with b's rank 2, created after it
    assert [c["key"] for c in out["columns"]] == ["b", "a", "c"]


def test_a_group_without_rank_is_ordered_by_its_place_before_columns_of_the_same_rank():
    groups = {"g": {"label": "G"}}
    # g is the 1st group: ordering 1, tied with z's rank 1: groups were created before columns.
    out, _ = convert(section({"y": column("Y", 2), "z": column("Z", 1), "x": column("X", 1, column_group=groups["g"])},
                             groups=groups))
    assert titles(out) == ["G: X", "Z", "Y"]
    # A column of rank 0 comes before it.
    out, _ = convert(section({"y": column("Y", 2), "z": column("Z", 0), "x": column("X", 1, column_group=groups["g"])},
                             groups=groups))
    assert titles(out) == ["Z", "G: X", "Y"]


def test_a_computed_column_ties_after_plain_ones_and_appears_once_in_its_group():
    groups = {"g": {"label": "G", "rank": 1}}
    computed = {"operation": "Avg", "fields": "p, r"}
    out, _ = convert(section({"avg": column("Avg", 1, column_group=groups["g"], computed=computed),
                              "p": column("P", 1, column_group=groups["g"]), "r": column("R", 2,
                                                                                       column_group=groups["g"])},
                             groups=groups))
    assert titles(out) == ["G: P", "G: Avg", "G: R"]
    assert out["columns"][1]["computation_indexes"] == [0, 2]


# --- which column CodaLab ranked by, by era ---------------------------------------------------------------------
# Without selection_default, CodaLab ranked by the first column it created, in the order it iterated the file's
# mapping: Python 2.7's dict order before October 2014, the file's order after. For the keys "f1" then "F1b",
# Python 2.7's dict iterates F1b first (codalab_bundles/python27_order, checked against a real Python 2.7).
TWO = section({"f1": column("F1", 1), "F1b": column("G", 2)})


def ranking_of(board, **context):
    out, report = convert(board, ml.Context(**context))
    return out, report, report.leaderboard["codalab_ranking"]


def leaderboard_messages(report):
    return " | ".join(i["message"] for i in report.items if i["where"] == "leaderboard")


def test_before_october_2014_python_27s_order_ranked():
    out, report, ranking = ranking_of(TWO, first_start=datetime.datetime(2013, 5, 1))
    assert (ranking["file_order"], ranking["python27_order"]) == ("f1", "F1b")
    assert (ranking["era"], ranking["earliest_start"], ranking["codalab_ranked_by"], ranking["chosen"]) == \
        ("python27", "2013-05-01", "F1b", "F1b")
    assert out["primary_index"] == 1 and report.leaderboard["ranked_by"] == "F1b"
    text = leaderboard_messages(report)
    assert "the first column it created (no column has selection_default)" in text
    assert "the phases start on 2013-05-01" in text and "Python 2.7's order" in text


def test_after_october_2014_the_files_order_ranked():
    out, report, ranking = ranking_of(TWO, first_start=datetime.datetime(2015, 1, 1))
    assert (ranking["era"], ranking["codalab_ranked_by"], ranking["chosen"], ranking["why"]) == \
        ("file", "f1", "f1", "as on CodaLab")
    assert "primary_index" not in out


@pytest.mark.parametrize("first_start, told", [(datetime.datetime(2014, 10, 15), "earliest start 2014-10-15, while "
                                                                                 "both ran"),
                                               (None, "its dates (none) do not tell which")])
def test_when_the_dates_cannot_tell_the_files_order_is_chosen_and_said_to_be_a_choice(first_start, told):
    out, report, ranking = ranking_of(TWO, first_start=first_start)
    assert (ranking["era"], ranking["codalab_ranked_by"], ranking["chosen"]) == (None, None, "f1")
    assert ranking["why"] == "chosen: see the note on the ranking column"
    notes = [i for i in findings(report, NOTE, "leaderboard") if "migrate --rank-by KEY" in i["message"]]
    assert len(notes) == 1 and told in notes[0]["message"] and "a choice" in notes[0]["message"]
    assert notes[0]["message"].startswith("CodaLab ranked by the first column it created (no column has "
                                          "selection_default), which depends on the order it read the file in: f1 "
                                          "in the file's order")


def test_when_both_orders_agree_the_era_does_not_matter():
    board = section({"a": column("A", 1), "c": column("C", 2), "b": column("B", 3)})  # Python 2.7: a, c, b
    for start in (datetime.datetime(2013, 1, 1), datetime.datetime(2014, 10, 15), None):
        _, report, ranking = ranking_of(board, first_start=start)
        assert (ranking["codalab_ranked_by"], ranking["chosen"]) == ("a", "a")
        assert "whichever order it read the file in" in leaderboard_messages(report)


def test_the_rule_says_whether_a_column_had_a_selection_default():
    board = section({"a": column("A", 1), "b": column("B", 2, selection_default=1)})
    _, report, ranking = ranking_of(board, first_start=datetime.datetime(2015, 1, 1))
    assert ranking["chosen"] == "b"
    assert "the first column it created with the highest selection_default" in leaderboard_messages(report)
    board = section({"a": column("A", 1, selection_default=0), "b": column("B", 2, selection_default=0)})
    _, report, _ = ranking_of(board, first_start=datetime.datetime(2015, 1, 1))
    assert "(no column has selection_default)" in leaderboard_messages(report)


def test_a_key_python_27_gave_no_reproducible_order_leaves_the_files_order():
    # A float key (YAML 1.5:) has no reproducible Python 2.7 hash order: only the file's order is known.
    board = section({1.5: column("A", 1), "b": column("B", 2)})
    out, report, ranking = ranking_of(board, first_start=datetime.datetime(2013, 1, 1))
    assert (ranking["python27_order"], ranking["file_order"], ranking["codalab_ranked_by"]) == (None, "1.5", "1.5")
    assert [c["key"] for c in out["columns"]] == ["1.5", "b"]


def test_a_dump_cannot_tell_the_column_shown_first_is_chosen():
    # A dump lists columns alphabetically and leaves out selection_default: the column shown first (lowest rank)
    # that is not computed.
    board = section({"avg": column("Avg", 1, computed={"operation": "Avg", "fields": "b, z"}),
                     "z": column("Z", 2), "b": column("B", 3)})
    out, report, ranking = ranking_of(board, first_start=datetime.datetime(2013, 1, 1), dump=True)
    assert (ranking["era"], ranking["codalab_ranked_by"], ranking["chosen"]) == ("dump", None, "z")
    assert "CodaLab dump" in leaderboard_messages(report)
    assert report.leaderboard["ranked_by"] == "z"


def test_a_dump_of_only_computed_columns_chooses_the_first_shown():
    board = section({"avg": column("Avg", 1, computed={"operation": "Max", "fields": "x"})})
    _, report, ranking = ranking_of(board, dump=True)
    assert ranking["chosen"] == "avg"


def test_the_dump_choice_is_said_to_be_a_choice():
    board = section({"z": column("Z", 1), "b": column("B", 2)})
    _, report, ranking = ranking_of(board, dump=True)
    assert ranking["why"] == "chosen: see the note on the ranking column"
    assert "the column CodaLab showed first (lowest rank): a choice" in leaderboard_messages(report)


# --- a computed column shown first -------------------------------------------------------------------------------
# CodaLab created computed columns after the others, so one shown first (rank 1) never ranked on its own.

SHOWN_FIRST = section({"avg": column("Avg", 1, computed={"operation": "Avg", "fields": "p, r"}),
                       "p": column("P", 2), "r": column("R", 3)})


def test_a_computed_column_shown_first_is_kept_in_place_and_codalabs_ranking_kept():
    out, report, ranking = ranking_of(SHOWN_FIRST, first_start=datetime.datetime(2015, 1, 1))
    assert [c["key"] for c in out["columns"]] == ["avg", "p", "r"] and out["primary_index"] == 1
    assert ranking["chosen"] == ranking["codalab_ranked_by"] == "p"
    note = findings(report, NOTE, "leaderboard.columns.avg")
    assert len(note) == 1 and "(rank 1)" in note[0]["message"] and "ranked by p" in note[0]["message"]
    assert "migrate --rank-by avg" in note[0]["message"]
    assert "p is kept, as participants saw the old leaderboard sorted" in note[0]["message"]
    assert any("p ranks, as on CodaLab, though it is not the first column shown: written primary_index: 1"
               == i["message"] for i in findings(report, CHANGE, "leaderboard"))


def test_a_computed_column_shown_first_and_chosen_gets_no_such_note():
    out, report, ranking = ranking_of(SHOWN_FIRST, first_start=datetime.datetime(2015, 1, 1), rank_by="avg")
    assert "primary_index" not in out and ranking["chosen"] == "avg"
    assert not findings(report, NOTE, "leaderboard.columns.avg")
    assert not findings(report, LOSS, "leaderboard")


def test_a_plain_column_shown_first_gets_no_such_note():
    _, report, _ = ranking_of(section({"p": column("P", 1), "r": column("R", 2, selection_default=1)}),
                              first_start=datetime.datetime(2015, 1, 1))
    assert [i["where"] for i in findings(report, NOTE)] == ["leaderboard"]


def test_rank_by_a_later_column_is_said_to_be_asked_for():
    out, report, _ = ranking_of(TWO, first_start=datetime.datetime(2015, 1, 1), rank_by="F1b")
    assert out["primary_index"] == 1
    assert "F1b ranks (as asked (--rank-by)), though it is not the first column shown: written primary_index: 1" in \
        [i["message"] for i in findings(report, CHANGE, "leaderboard")]


def test_the_first_column_ranking_is_no_loss():
    out, report, _ = ranking_of(TWO, first_start=datetime.datetime(2015, 1, 1))
    assert "primary_index" not in out and not findings(report, LOSS)
    assert report.leaderboard == {"title": "Results", "columns": ["f1", "F1b"], "ranked_by": "f1",
                                  "sorting": "desc", "codalab_ranking": report.leaderboard["codalab_ranking"]}


def test_a_main_leaderboard_without_columns_ranks_by_nothing():
    extra = {"label": "Extra", "rank": 2}
    out, report = convert(section({"x": column("X", 1, board=extra)}, boards={"main": RESULTS, "extra": extra}))
    assert [c["title"] for c in out["columns"]] == ["Extra: X"] and "primary_index" not in out
    assert report.leaderboard["codalab_ranking"] is None
    assert not findings(report, LOSS, "leaderboard")


# --- the era also orders columns without rank ---------------------------------------------------------------------


@pytest.mark.parametrize("first_start, order", [(datetime.datetime(2013, 1, 1), ["F1b", "f1"]),
                                                (datetime.datetime(2015, 1, 1), ["f1", "F1b"])])
def test_columns_without_rank_follow_the_order_codalab_read_them_in(first_start, order):
    # Without rank, a column's ordering is its place in CodaLab's iteration of the mapping: Python 2.7's dict order
    # (F1b first) before October 2014.
    out, _ = convert(section({"f1": column("F1"), "F1b": column("G")}), ml.Context(first_start=first_start))
    assert [c["key"] for c in out["columns"]] == order


def test_a_title_of_exactly_36_characters_keeps_its_group_unabbreviated():
    groups = {"g": {"label": "Group One", "rank": 1}, "h": {"label": "Group Two", "rank": 2}}
    label = "L" * 25       # "Group One: " + 25 = 36; one more character and the group is abbreviated
    out, _ = convert(section({"a": column(label, 1, column_group=groups["g"]),
                              "b": column(label + "M", 1, column_group=groups["h"])}, groups=groups))
    assert titles(out) == ["Group One: " + label, "GT: " + label + "M"]


def test_an_average_of_one_column_takes_its_sorting():
    columns = {"p": column("P", 1, sort="asc"), "avg": column("Avg", 2, computed={"operation": "Avg", "fields": "p"})}
    out, _ = convert(section(columns))
    assert out["columns"][1]["sorting"] == "asc" and out["columns"][1]["computation_indexes"] == [0]


def test_an_average_of_a_computed_column_is_left_out():
    # Only plain columns sorted alike can be averaged (the docstring of _mean_of).
    columns = {"p": column("P", 1), "avg": column("Avg", 2, computed={"operation": "Avg", "fields": "p"}),
               "avg2": column("Avg2", 3, computed={"operation": "Avg", "fields": "avg, p"})}
    out, report = convert(section(columns))
    assert [c["key"] for c in out["columns"]] == ["p", "avg"]
    assert "left out" in findings(report, LOSS, "leaderboard.columns.avg2")[0]["message"]
