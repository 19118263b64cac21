"""Codabench's traps in a version 2 bundle (issue 40), each a hand-made bundle: what ``validate`` finds and what to
change, and what Codabench's own import (codalab/codabench at c7dbc756, tests/codabench_import.py) does with the
same bundle, where the import tool is set up.

- only the first leaderboard is attached to the phases (base_unpacker._save_competition); the others are created
  and nothing shows them;
- computation_indexes as text: the serializer's CharacterSeparatedField joins the characters of a string with
  commas, so '0,1' is refused and '10' means columns 1 and 0;
- max_submissions_per_person in a phase is dropped (the v2 unpacker reads max_submissions), as is any key the
  unpacker or the serializers do not read, at every level;
- a computation outside Column.COMPUTATION_CHOICES (avg, sum, min, max), avg_rank among them, is refused;
- auto-migration into the first phase is refused; a leaderboard whose every column is hidden is accepted and
  never loads.
"""
import pytest

import codabench_import
from codabench_cases import V2, bundle_bytes
from codalab_bundles import validate

COLUMN = "      - title: Accuracy\n        key: accuracy\n        index: 0\n"
DEV_PHASE = "    name: Development\n"


def _computed(indexes, computation="avg"):
    """V2 with a column f1 (index 1) and a computed column mean (index 2) over ``indexes`` (YAML text)."""
    return V2.replace(COLUMN, COLUMN + "      - title: F1\n        key: f1\n        index: 1\n"
                      "      - title: Mean\n        key: mean\n        index: 2\n        computation: %s\n"
                      "        computation_indexes: %s\n" % (computation, indexes))


def _in_dev_phase(line):
    return V2.replace(DEV_PHASE, DEV_PHASE + "    %s\n" % line)


TYPOS = (V2.replace("version: 2\n", "version: 2\nshow_detailed_results_in_submision_panel: false\n")
         .replace("    name: Main\n", "    name: Main\n    ingestion_only_durng_scoring: true\n")
         .replace(DEV_PHASE, DEV_PHASE + "    hide_outputs: true\n")
         .replace("    key: main\n", "    key: main\n    hiden: true\n")
         .replace("        index: 0\n", "        index: 0\n        hiden: true\n"))

BUNDLES = {
    "two leaderboards": V2 + "  - title: Track B\n    key: track_b\n    columns:\n"
                             "      - title: F1\n        key: f1\n        index: 0\n",
    "indexes as a list": _computed("[0, 1]"),
    "indexes as text with a comma": _computed('"0,1"'),
    "indexes as text of two digits": _computed('"10"'),
    "indexes as text of one digit": _computed('"1"'),
    "indexes as a number": _computed("1"),
    "max_submissions_per_person": _in_dev_phase("max_submissions_per_person: 7"),
    "max_submissions": _in_dev_phase("max_submissions: 7"),
    "auto_migration in a v2 phase": V2.replace("    name: Test\n", "    name: Test\n    auto_migration: true\n"),
    "typos at every level": TYPOS,
    "avg_rank": _computed("[0, 1]", "avg_rank"),
    "mean": _computed("[0, 1]", "mean"),
    "migration into the first phase": _in_dev_phase("auto_migrate_to_this_phase: true"),
    "every column hidden": V2.replace("        index: 0\n", "        index: 0\n        hidden: true\n"),
}


@pytest.fixture(scope="module")
def paths(tmp_path_factory):
    folder = tmp_path_factory.mktemp("traps")
    written = {}
    for n, (name, text) in enumerate(sorted(BUNDLES.items())):
        written[name] = folder / ("%02d.zip" % n)
        written[name].write_bytes(bundle_bytes((name, "2", text, None, None, {})))
    return written


@pytest.fixture(scope="module")
def imported(paths):
    """Codabench's import of every bundle above: {name: the tool's result}."""
    names = sorted(paths)
    results = codabench_import.import_or_skip([paths[n] for n in names])
    return dict(zip(names, results))


def _findings(paths, name, rule=None):
    _, found = validate.validate(str(paths[name]), replay=False)
    return [f for f in found if f.severity != "note" and (rule is None or f.rule == rule)]


def _columns(result):
    (board,) = [b for b in result["competition"]["leaderboards"] if b["used"]]
    return dict((c["key"], c) for c in board["columns"])


# --- only the first leaderboard -----------------------------------------------------------------------------------

def test_a_second_leaderboard_is_said_to_be_shown_nowhere(paths):
    (finding,) = _findings(paths, "two leaderboards")
    assert (finding.severity, finding.where) == ("warning", "leaderboards")
    assert "only the first leaderboard (Results)" in finding.message
    assert "'Track B'" in finding.message and "(columns f1)" in finding.message
    assert finding.fix.startswith("put every column in the first leaderboard")


def test_codabench_creates_the_second_leaderboard_and_attaches_only_the_first(imported):
    result = imported["two leaderboards"]
    assert result["ok"]
    assert [(b["key"], b["used"]) for b in result["competition"]["leaderboards"]] == [
        ("main", True), ("track_b", False)]
    assert [p["leaderboard"] for p in result["competition"]["phases"]] == ["main", "main"]


# --- computation_indexes as text ----------------------------------------------------------------------------------

def test_indexes_as_a_list_are_what_codabench_wants(paths, imported):
    assert _findings(paths, "indexes as a list") == []
    assert _columns(imported["indexes as a list"])["mean"]["computation_indexes"] == "0,1"


def test_indexes_as_text_with_a_comma_are_refused(paths, imported):
    (finding,) = _findings(paths, "indexes as text with a comma")
    assert finding.severity == "error" and not finding.accepted
    assert "reads one character at a time ('0,,,1')" in finding.message
    assert finding.fix == "write a YAML list: computation_indexes: [0, 1]"
    result = imported["indexes as text with a comma"]
    assert not result["ok"]
    assert "Bad value for index, should be an integer but received: ." in result["error"]
    assert "received: ." in finding.message  # the validator quotes the import's own words


def test_indexes_as_text_of_digits_are_read_one_digit_at_a_time(paths, imported):
    (finding,) = _findings(paths, "indexes as text of two digits")
    assert finding.severity == "warning"
    assert "it stores the columns 1 and 0, not column 10" in finding.message
    assert _columns(imported["indexes as text of two digits"])["mean"]["computation_indexes"] == "1,0"
    (finding,) = _findings(paths, "indexes as text of one digit")
    assert finding.severity == "warning" and finding.fix == "write a YAML list: [1]"
    assert _columns(imported["indexes as text of one digit"])["mean"]["computation_indexes"] == "1"


def test_indexes_as_a_number_are_refused(paths, imported):
    (finding,) = _findings(paths, "indexes as a number")
    assert finding.severity == "error" and finding.rule == "schema"
    assert finding.fix == "a YAML list of the other columns' indexes, such as [0, 1]"
    assert imported["indexes as a number"]["error"].endswith("'int' object is not iterable")


# --- keys Codabench drops -----------------------------------------------------------------------------------------

def test_max_submissions_per_person_is_said_to_be_ignored(paths, imported):
    (finding,) = _findings(paths, "max_submissions_per_person")
    assert (finding.severity, finding.where) == ("warning", "phases.0")
    assert "ignores the key 'max_submissions_per_person'" in finding.message
    assert "reads max_submissions" in finding.message and finding.fix.startswith("write max_submissions:")
    dropped = imported["max_submissions_per_person"]["competition"]["phases"][0]
    kept = imported["max_submissions"]["competition"]["phases"][0]
    assert (dropped["max_submissions_per_person"], kept["max_submissions_per_person"]) == (100, 7)
    assert _findings(paths, "max_submissions") == []


def test_codalabs_name_in_a_v2_phase_is_given_its_v2_name(paths, imported):
    (finding,) = _findings(paths, "auto_migration in a v2 phase")
    assert finding.where == "phases.1" and finding.fix.startswith("write auto_migrate_to_this_phase:")
    test_phase = imported["auto_migration in a v2 phase"]["competition"]["phases"][1]
    assert test_phase["settings"]["auto_migrate_to_this_phase"] is False


def test_a_typo_at_every_level_is_named_with_the_key_meant(paths, imported):
    found = sorted((f.where, f.message.split("'")[1], f.fix) for f in _findings(paths, "typos at every level"))
    assert found == [
        ("(top level)", "show_detailed_results_in_submision_panel",
         "did you mean show_detailed_results_in_submission_panel?"),
        ("leaderboards.0", "hiden", "did you mean hidden?"),
        ("leaderboards.0.columns.0", "hiden", "did you mean hidden?"),
        ("phases.0", "hide_outputs", "did you mean hide_output?"),
        ("tasks.0", "ingestion_only_durng_scoring", "did you mean ingestion_only_during_scoring?"),
    ]
    # accepted, and every misspelt setting left at its default
    result = imported["typos at every level"]
    assert result["ok"]
    competition = result["competition"]
    assert competition["settings"]["show_detailed_results_in_submission_panel"] is True
    assert competition["phases"][0]["settings"]["hide_output"] is False
    (board,) = competition["leaderboards"]
    assert board["hidden"] is False and board["columns"][0]["hidden"] is False


# --- computations Codabench does not have -------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["avg_rank", "mean"])
def test_a_computation_codabench_lacks_is_refused(paths, imported, name):
    (finding,) = _findings(paths, name)
    assert finding.severity == "error" and finding.where == "leaderboards.0.columns.2.computation"
    assert "'%s' is not one of ['avg', 'sum', 'min', 'max', None]" % name in finding.message
    assert "refuses any other computation" in finding.fix
    assert not imported[name]["ok"]
    assert 'computation: "%s" is not a valid choice.' % name in imported[name]["error"]


# --- refused, or accepted and broken ------------------------------------------------------------------------------

def test_migration_into_the_first_phase_is_refused_with_its_fix(paths, imported):
    (finding,) = _findings(paths, "migration into the first phase")
    assert "You cannot auto migrate to the first phase of a competition" in finding.message
    assert finding.fix.startswith("remove auto_migrate_to_this_phase from the first phase")
    assert "You cannot auto migrate to the first phase of a competition" in \
        imported["migration into the first phase"]["error"]


def test_a_leaderboard_of_hidden_columns_is_accepted_and_said_to_be_broken(paths, imported):
    (finding,) = _findings(paths, "every column hidden", "leaderboard")  # also: what the API still shows of them
    assert finding.severity == "error" and finding.accepted
    assert "No columns exist on the leaderboard" in finding.message
    assert validate.imports([finding])
    result = imported["every column hidden"]
    assert result["ok"] and _columns(result)["accuracy"]["hidden"] is True
