"""migrate: an old CodaLab v1.5 bundle becomes a Codabench bundle that keeps its meaning, with a report of every
change, loss and manual step; --wrap-scores lets an unchanged old program score under the Codabench worker."""
import datetime
import io
import json
import os
import subprocess
import sys
import zipfile

import pytest
import yaml

from codalab_bundles import migrate, replay, validate
from codalab_bundles.migrate import legacy_scores_wrapper
from codalab_bundles.platforms import codabench_model
from codalab_bundles.zips import pack
from conftest import ROOT
from old_codalab_bundle import COMPETITION, PROGRAM, write_old_bundle

TASKS = ["cheers", "ehealth-kd", "food-hazard", "recipe-mpr", "toxic-spans"]


def competition_yaml(path):
    with zipfile.ZipFile(str(path)) as archive:
        return yaml.safe_load(archive.read("competition.yaml").decode("utf-8"))


def messages(report, kind):
    return [item["where"] + ": " + item["message"] for item in report.of(kind)]


def one(found, *fragments):
    """The one message holding every fragment."""
    hits = [m for m in found if all(f in m for f in fragments)]
    assert len(hits) == 1, (fragments, found)
    return hits[0]


@pytest.fixture(scope="module")
def old_bundle(tmp_path_factory):
    return write_old_bundle(tmp_path_factory.mktemp("old") / "old.zip")


@pytest.fixture(scope="module")
def migrated(old_bundle, tmp_path_factory):
    target = tmp_path_factory.mktemp("new") / "new.zip"
    return target, migrate.migrate(old_bundle, target)


# ---------------------------------------------------------------------------------------------------------------
# The project's five v1.5 bundles: migrated, they are the project's own v2 bundles


def _phases(spec):
    return [(p.name, p.start.stored, p.end.stored) for p in codabench_model.stored_phases(spec, "2")]


def _columns(spec):
    board = spec["leaderboards"][0]
    return [(c["key"], c["index"], c["sorting"], c["precision"], c.get("hidden", False)) for c in board["columns"]]


@pytest.mark.parametrize("task", TASKS)
def test_migrated_v15_bundle_is_the_projects_v2_bundle(built_bundles, task, tmp_path):
    built = built_bundles[task]
    report = migrate.migrate(built.codalab, tmp_path / "migrated.zip")
    ours, theirs = competition_yaml(built.codabench), competition_yaml(tmp_path / "migrated.zip")
    expected = _phases(ours)
    if task == "ehealth-kd":
        # The v2 bundle ends Evaluation at 14 May 23:59 UTC; a v1.5 phase cannot end before the next one starts,
        # so the migrated one ends one second before Post-Evaluation starts.
        name, start, _ = expected[2]
        expected[2] = (name, start, datetime.datetime(2019, 5, 19, 23, 59, 59))
    assert _phases(theirs) == expected
    assert _columns(theirs) == _columns(ours)
    assert theirs["leaderboards"][0].get("primary_index", 0) == ours["leaderboards"][0].get("primary_index", 0)
    assert theirs["pages"] == ours["pages"]
    assert theirs["terms"] == ours["terms"]
    for key in ("title", "registration_auto_approve", "docker_image", "enable_detailed_results"):
        assert theirs[key] == ours[key], key
    for old, new in zip(ours["phases"], theirs["phases"]):
        for key in ("max_submissions", "max_submissions_per_day", "execution_time_limit", "public_data",
                    "starting_kit"):
            assert new.get(key) == old.get(key), (new["name"], key)
    # phases scored against the same gold share one task, as the project's bundle does
    assert [p["tasks"] for p in theirs["phases"]] == [p["tasks"] for p in ours["phases"]]
    assert report.of(migrate.MANUAL) == []
    assert all(check["status"] == "Finished" and check["scores"] for check in report.checks)
    assert validate.passed(validate.validate(str(tmp_path / "migrated.zip"), replay=False)[1])


def test_migration_is_byte_identical(built_bundles, tmp_path):
    source = built_bundles["toxic-spans"].codalab
    first = migrate.migrate(source, tmp_path / "a.zip", check=False)
    migrate.migrate(source, tmp_path / "b.zip", check=False)
    assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()
    assert first.target == str(tmp_path / "a.zip")
    # competition.yaml first, then the old bundle's files unchanged and in their order
    with zipfile.ZipFile(str(source)) as old, zipfile.ZipFile(str(tmp_path / "a.zip")) as new:
        assert new.namelist() == old.namelist()
        assert all(new.read(n) == old.read(n) for n in old.namelist() if n != "competition.yaml")


# ---------------------------------------------------------------------------------------------------------------
# An old-style bundle: every finding in the report


def test_old_style_schedule_and_settings(migrated):
    target, report = migrated
    spec = competition_yaml(target)
    # '8-7-2019' is read month first; +02:00 is converted to UTC; a date is midnight; ends one second before
    assert report.schedule == [
        {"phase": 1, "name": "Practice", "start": "2019-08-07 00:00:00", "end": "2019-09-01 09:59:59"},
        {"phase": 2, "name": "Evaluation", "start": "2019-09-01 10:00:00", "end": "2019-09-14 23:59:59"},
        {"phase": 3, "name": "Post-Evaluation", "start": "2019-09-15 00:00:00", "end": None}]
    assert [(p["max_submissions"], p["max_submissions_per_day"], p["execution_time_limit"])
            for p in spec["phases"]] == [(100, 999, 300), (100, 5, 300), (100, 999, 300)]
    assert spec["registration_auto_approve"] is True
    assert spec["docker_image"] == "codalab/codalab-legacy:py37"
    assert [p["title"] for p in spec["pages"]] == ["Overview", "Evaluation", "Data", "Faq"]
    assert spec["terms"] == "terms.html"
    assert spec["phases"][1]["hide_output"] is True
    assert spec["phases"][2]["auto_migrate_to_this_phase"] is True
    assert "auto_migrate_to_this_phase" not in spec["phases"][0]
    assert len(spec["tasks"]) == 1 and [p["tasks"] for p in spec["phases"]] == [[0], [0], [0]]
    # the dates are quoted strings, so Codabench keeps their time of day
    text = zipfile.ZipFile(str(target)).read("competition.yaml").decode()
    assert 'start: "2019-09-01 10:00:00"' in text and 'end: "2019-09-01 09:59:59"' in text


def test_old_style_leaderboard(migrated):
    target, report = migrated
    board = competition_yaml(target)["leaderboards"]
    assert len(board) == 1
    board = board[0]
    # CodaLab's order: group A (rank 1, created before any column) then avg (rank 1); then the second leaderboard.
    # The group and the second leaderboard become title prefixes; the average rank becomes the mean of acc and f1.
    assert [(c["key"], c["title"], c["index"], c["sorting"], c["precision"]) for c in board["columns"]] == [
        ("acc", "Subtask A: Accuracy", 0, "desc", 4), ("f1", "Subtask A: F1", 1, "desc", 3),
        ("avg", "Avg rank", 2, "desc", 2), ("seconds", "Extra: Seconds", 3, "asc", 2)]
    assert board["columns"][2]["computation"] == "avg" and board["columns"][2]["computation_indexes"] == [0, 1]
    assert board["submission_rule"] == "Force_Last"
    assert board["primary_index"] == 2  # avg ranked on CodaLab (selection_default)
    assert report.leaderboard["ranked_by"] == "avg"


def test_old_style_report_names_every_finding(migrated):
    _, report = migrated
    changes, losses, manual = (messages(report, k) for k in (migrate.CHANGE, migrate.LOSS, migrate.MANUAL))
    one(changes, "has_registration", "open registration", "registration_auto_approve: true")
    one(changes, "competition_docker_image", "codalab/codalab-legacy:py37")
    one(changes, "phases.1.start_date", "'8-7-2019' read as 2019-08-07 00:00:00 UTC", "month first")
    one(changes, "phases.2.start_date", "converted to 2019-09-01 10:00:00 UTC")
    one(changes, "one second before the next one starts")
    one(changes, "max_submissions_per_day absent in phase(s) 1, 3", "999")
    one(changes, "execution_time_limit absent in phase(s) 1, 2, 3", "300")
    one(changes, "force_submission_to_leaderboard", "Force_Last")
    one(losses, "leaderboard 'Extra'", "seconds", "follow those of 'Results'")
    one(losses, "column_groups", "Subtask A", "prefix")
    one(changes, "leaderboard.columns", "acc 'Subtask A: Accuracy'", "seconds 'Extra: Seconds'")
    one(changes, "avg ranks, as on CodaLab", "primary_index: 2")
    one(losses, "leaderboard.columns.avg", "average rank of acc, f1", "mean of their scores")
    one(losses, "hide_results", "hide_output: true")
    one(losses, "color in phase(s) 1")
    one(messages(report, migrate.NOTE), "admin_names", "collaborators")  # it works without them
    one(manual, "py2_report.py:2: SyntaxError", "print")
    one(manual, "key:value without a space", "--wrap-scores")
    one(manual, "output/metadata", "--wrap-scores")
    assert len(manual) == 3, manual
    assert report.checks[0]["status"] == "Failed" and report.checks[0]["scores"] == {}


def test_old_style_migrated_bundle_passes_validate(migrated):
    target, _ = migrated
    findings = validate.validate(str(target), replay=False)[1]
    assert [f for f in findings if f.severity == "error"] == []


def test_wrap_scores_lets_the_unchanged_program_score_on_codabench(old_bundle, tmp_path):
    target = tmp_path / "wrapped.zip"
    report = migrate.migrate(old_bundle, target, wrap_scores=True)
    manual = messages(report, migrate.MANUAL)
    assert len(manual) == 1, manual  # the Python 2 helper remains (the admins are a note)
    one(manual, "py2_report.py:2")
    result = replay.replay(str(target), None, 1, platform="codabench")
    assert result["status"] == "Finished", result
    # gold "a b a", sample "a a a": 2 of 3; the old program's output/metadata is gone, so the worker's own is written
    # and the old computed column, now Codabench's avg, filled by the replay as the site fills it
    assert result["scores"] == {"acc": 0.666667, "f1": 0.5, "seconds": 1.25, "avg": 0.5833335}
    assert result["score_warnings"] == [] and result["warnings"] == []
    assert result["columns_without_score"] == []  # avg: computed from acc and f1, above
    program = zipfile.ZipFile(str(target)).read("program.zip")
    with zipfile.ZipFile(io.BytesIO(program)) as inner:
        assert inner.read("metadata").decode() == ("command: python3 $program/legacy_scores_wrapper.py $output -- "
                                                   "python3 $program/evaluate.py $input $output\n")
        assert inner.read("evaluate.py").decode() == PROGRAM["evaluate.py"]


def test_wrapper_reads_scores_like_codalab():
    assert legacy_scores_wrapper.codalab_scores("acc:0.5\n\nf1 : 1e-3\nn: 7") == {"acc": 0.5, "f1": 0.001, "n": 7.0}
    with pytest.raises(ValueError, match="line 1"):
        legacy_scores_wrapper.codalab_scores("time: 12:30\n")
    with pytest.raises(ValueError, match="'high' is not a number"):
        legacy_scores_wrapper.codalab_scores("acc:0.5\nlevel: high\n")


def _run_wrapper(folder, program_text):
    """Run the wrapper on a one-file old program in folder/program, writing to folder/output."""
    program, output = folder / "program", folder / "output"
    program.mkdir(parents=True)
    output.mkdir()
    (program / "old.py").write_text(program_text)
    wrapper = str(ROOT / "codalab_bundles" / "migrate" / "legacy_scores_wrapper.py")
    proc = subprocess.run([sys.executable, wrapper, str(output), "--", sys.executable, str(program / "old.py"),
                           str(output)], capture_output=True, text=True)
    return proc, output


def test_wrapper_passes_on_failures_and_runs_from_the_run_folder(tmp_path):
    proc, output = _run_wrapper(tmp_path / "a", "import os, sys\nopen(os.path.join(sys.argv[1], 'metadata'), 'w')"
                                ".write('x')\nsys.exit(3)\n")
    assert proc.returncode == 3 and not (output / "metadata").exists() and not (output / "scores.json").exists()
    proc, output = _run_wrapper(tmp_path / "b", "import os, sys\nopen(os.path.join(sys.argv[1], 'scores.txt'), "
                                "'w').write('a:1:2\\n')\n")
    assert proc.returncode == 1 and "exactly one ':'" in proc.stderr and not (output / "scores.json").exists()
    # CodaLab ran the program from the folder holding program/, input/ and output/
    proc, output = _run_wrapper(tmp_path / "c", "import os\nprint(os.getcwd())\n")
    assert proc.returncode == 0 and proc.stdout == "%s\n" % (tmp_path / "c")


# ---------------------------------------------------------------------------------------------------------------
# Other inputs


def test_bundle_zipped_with_its_folder_and_program_folder_are_rerooted(tmp_path):
    program = dict(("scorer/%s" % k, v) for k, v in PROGRAM.items() if k != "py2_report.py")
    source = write_old_bundle(tmp_path / "flat.zip", program=program)
    with zipfile.ZipFile(str(source)) as archive:
        entries = [("my-competition/" + n, archive.read(n)) for n in archive.namelist()]
    (tmp_path / "folder.zip").write_bytes(pack.zip_entries(entries))
    report = migrate.migrate(tmp_path / "folder.zip", tmp_path / "out.zip", wrap_scores=True)
    changes = messages(report, migrate.CHANGE)
    one(changes, "(zip)", "my-competition/")
    one(changes, "program.zip", "folder scorer/")
    assert report.checks[0]["status"] == "Finished"
    assert report.checks[0]["scores"]["acc"] == 0.666667


def test_cli_report_and_errors(old_bundle, tmp_path):
    script = str(ROOT / "build_bundle.py")
    proc = subprocess.run([sys.executable, script, "migrate", str(old_bundle), "-o", str(tmp_path / "n.zip"),
                           "--json"], capture_output=True, text=True)
    assert proc.returncode == 1  # manual steps are left
    data = json.loads(proc.stdout)
    assert data["output"] == str(tmp_path / "n.zip") and len(data["manual"]) == 3 and data["exit_status"] == 1
    (tmp_path / "empty.zip").write_bytes(b"")
    proc = subprocess.run([sys.executable, script, "migrate", str(tmp_path / "empty.zip")], capture_output=True,
                          text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "cannot open" in proc.stderr
    proc = subprocess.run([sys.executable, script, "migrate", str(tmp_path / "n.zip")], capture_output=True,
                          text=True)
    assert proc.returncode == 2 and "already a Codabench (version 2) bundle" in proc.stderr
    broken = write_old_bundle(tmp_path / "broken.zip", competition=COMPETITION.replace("start_date: 2019-09-15",
                                                                                        "start_date: soon"))
    proc = subprocess.run([sys.executable, script, "migrate", str(broken)], capture_output=True, text=True)
    assert proc.returncode == 2 and "phases.3.start_date: 'soon' is not a date" in proc.stderr
    assert not os.path.exists(migrate.default_output(broken))


def test_wrapper_targets_python36():
    """It runs in codalab/codalab-legacy:py37 and older images."""
    from test_python36_compat import vermin
    run = vermin(ROOT / "codalab_bundles" / "migrate" / "legacy_scores_wrapper.py")
    assert run.returncode == 0, run.stdout + run.stderr
