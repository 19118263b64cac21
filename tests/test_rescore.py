"""rescore: past submissions scored through a bundle's program under the Codabench worker, as a leaderboard."""
import csv
import io
import subprocess
import sys

import pytest

from codalab_bundles import migrate, replay
from codalab_bundles.authoring import build, taskdef
from codalab_bundles.offline import rescore
from codalab_bundles.zips import pack
from conftest import ROOT, shared_path
from old_codalab_bundle import write_old_bundle


def zipped(path, files):
    path.write_bytes(pack.zip_entries(sorted((k, v.encode()) for k, v in files.items())))
    return path


@pytest.fixture(scope="module")
def wrapped_bundle(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rescore")
    target = folder / "new.zip"
    migrate.migrate(write_old_bundle(folder / "old.zip"), target, wrap_scores=True, check=False)
    return target


@pytest.fixture
def submissions(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    zipped(runs / "good.zip", {"answers.txt": "a b a\n"})       # gold "a b a": 3 of 3
    zipped(runs / "sample.zip", {"answers.txt": "a a a\n"})     # 2 of 3
    zipped(runs / "broken.zip", {"answer.txt": "a b a\n"})      # the old program cannot find answers.txt
    (runs / "notes.txt").write_text("not a submission\n")
    unzipped = tmp_path / "unzipped"
    unzipped.mkdir()
    (unzipped / "answers.txt").write_text("b b b\n")            # 1 of 3
    return [runs, unzipped]


def test_rescore_ranks_by_the_ranking_column(wrapped_bundle, submissions, tmp_path):
    columns, ranking, rows = rescore.rescore(wrapped_bundle, submissions, jobs=2)
    assert [c.key for c in columns] == ["acc", "f1", "avg", "seconds"]  # CodaLab's order: group A, then avg
    assert (ranking.key, ranking.sorting) == ("avg", "desc")
    # avg is Codabench's mean of acc and f1 (f1 is always 0.5 from this program)
    assert [(r["rank"], r["submission"], r["status"], r["scores"].get("avg")) for r in rows] == [
        (1, "good.zip", "Finished", 0.75), (2, "sample.zip", "Finished", (0.666667 + 0.5) / 2),
        (3, "unzipped/", "Finished", (0.333333 + 0.5) / 2), (None, "broken.zip", "Failed", None)]
    assert rows[0]["scores"] == {"acc": 1.0, "f1": 0.5, "seconds": 1.25, "avg": 0.75}
    assert rows[3]["error"].startswith("FileNotFoundError: [Errno 2] No such file or directory")
    assert rows[3]["error"].endswith("answers.txt'")
    page = rescore.write(tmp_path / "board.csv", "Old task", columns, ranking, rows)
    table = list(csv.reader(io.StringIO((tmp_path / "board.csv").read_text())))
    assert table[0] == ["rank", "submission", "status", "acc", "f1", "avg", "seconds", "error"]
    assert table[1] == ["1", "good.zip", "Finished", "1.0", "0.5", "0.75", "1.25", ""]
    assert table[4][:7] == ["", "broken.zip", "Failed", "", "", "", ""]
    text = open(page).read()
    assert text.index("good.zip") < text.index("sample.zip") < text.index("unzipped/") < text.index("broken.zip")
    assert "<td>1.0000</td><td>0.500</td><td>0.75</td><td>1.25</td>" in text  # each column's precision
    assert "Ranked by Avg rank (higher is better)" in text


def test_ranks_honour_ascending_sort_and_ties():
    column = rescore.Column("seconds", "Seconds", "asc", 2)
    rows = [{"submission": n, "scores": s} for n, s in (("c", {"seconds": 2.0}), ("a", {"seconds": 3.0}),
                                                        ("b", {"seconds": 2.0}), ("d", {}))]
    assert [(r["rank"], r["submission"]) for r in rescore.rank(rows, column)] == [
        (1, "b"), (1, "c"), (3, "a"), (None, "d")]


def test_cli_writes_both_files_and_says_what_failed(wrapped_bundle, submissions, tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "rescore", str(wrapped_bundle)]
                          + [str(s) for s in submissions] + ["--jobs", "3", "-o", str(tmp_path / "lb.csv")],
                          capture_output=True, text=True)
    assert proc.returncode == 1  # one submission failed
    assert "3 submission(s) scored, 1 failed; ranked by avg (desc)" in proc.stdout
    assert "broken.zip: Failed: FileNotFoundError" in proc.stdout
    assert "4/4" in proc.stderr  # the progress bar
    assert (tmp_path / "lb.csv").is_file() and (tmp_path / "lb.html").is_file()
    proc = subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "rescore", str(wrapped_bundle),
                           str(tmp_path / "missing")], capture_output=True, text=True)
    assert proc.returncode == 2 and "no such file or folder" in proc.stderr and "Traceback" not in proc.stderr


# ---------------------------------------------------------------------------------------------------------------
# The real eHealth-KD 2019 runs (../shared, skipped when absent)

KEYS = ["main_score", "m_prec", "m_rec", "a_f1", "a_prec", "a_rec", "b_f1", "b_prec", "b_rec"]


@pytest.fixture(scope="module")
def real_leaderboard(tmp_path_factory):
    runs = shared_path("ehealth-kd-2019", "published-submissions", "participant-runs")
    task = taskdef.load_task("ehealth-kd", {"test": str(shared_path("ehealth-kd-2019", "testing"))})
    bundle = build.build_task(task, tmp_path_factory.mktemp("ehealth-real")).codabench
    evaluation = [p.number for p in task.phases if p.label == "Evaluation"][0]
    _, _, rows = rescore.rescore(bundle, [runs], phase=evaluation, jobs=2)
    with open(str(runs / "official_scores.csv")) as handle:
        official = dict((row["run"], row) for row in csv.DictReader(handle))
    return dict((row["submission"], row) for row in rows), official


@pytest.mark.parametrize("run", ["lsi2_uned_574805.zip", "talp_576639.zip", "abravo_576683.zip", "vsp_576661.zip"])
def test_rescored_participant_runs_get_the_official_scores(real_leaderboard, run):
    rows, official = real_leaderboard
    assert sorted(rows) == sorted(official)
    row = rows[run]
    assert row["status"] == "Finished", row["error"]
    for key in KEYS:
        assert row["scores"][key] == pytest.approx(float(official[run][key]), abs=1e-9), key


# ---------------------------------------------------------------------------------------------------------------
# --ci: intervals and tests against the next row, from the program itself (score_files.py)


def _program_json(bundle, phase, *args):
    """What the bundle's program prints for ``args`` (evaluate.py's two-file options), with the phase's gold."""
    import json
    import tempfile
    from codalab_bundles.offline import two_files as score_command
    with tempfile.TemporaryDirectory() as workdir:
        program = score_command.program_dir(str(bundle), workdir, phase_number=phase)
        opened = replay.Bundle(str(bundle))
        ref = workdir + "/ref"
        replay.get_bundle(opened.read(opened.phase(phase).reference_data, "gold"), ref, "ref", workdir)
        proc = subprocess.run([sys.executable, program + "/evaluate.py", "--gold", ref] + [str(a) for a in args]
                              + ["--json"], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)


def test_ci_adds_each_rows_interval_and_marks_rows_no_test_separates(built_bundles, tmp_path):
    import zipfile
    bundle = built_bundles["toxic-spans"].codabench
    with zipfile.ZipFile(str(bundle)) as outer:
        kit = zipfile.ZipFile(io.BytesIO(outer.read("starting_kit_trial.zip")))
    sample = kit.read("sample_submission.zip")
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a-sample.zip").write_bytes(sample)
    (runs / "b-copy.zip").write_bytes(sample)
    lines = zipfile.ZipFile(io.BytesIO(sample)).read("spans-pred.txt").decode().splitlines()
    zipped(runs / "c-empty.zip", {"spans-pred.txt": "".join(line.split("\t")[0] + "\t[]\n" for line in lines)})
    settings = rescore.IntervalSettings(samples=200, seed=7)
    _, ranking, rows = rescore.rescore(bundle, [runs], phase=1, jobs=2, intervals=settings)
    assert [(r["submission"], r["rank"]) for r in rows] == [("a-sample.zip", 1), ("b-copy.zip", 1), ("c-empty.zip", 3)]
    # Two identical runs: every resample and every randomization round gives a difference of 0, so p = 1.
    assert rows[0]["p_next"] == 1.0 and rows[0]["tied_with_next"] is True
    assert rows[0]["interval"] == rows[1]["interval"]
    assert "p_next" not in rows[2]
    # The figures are the program's own, for the phase's gold.
    own = _program_json(bundle, 1, "--pred", runs / "b-copy.zip", "--compare", runs / "c-empty.zip", "--ci",
                        "--samples", 200, "--seed", 7)
    assert rows[1]["interval"] == own["interval"] and own["interval"]["key"] == ranking.key == "spans_F1"
    assert rows[1]["p_next"] == own["comparison"]["p_approximate_randomization"]
    assert rows[1]["tied_with_next"] is (rows[1]["p_next"] >= 0.05)
    columns, _ = rescore.leaderboard(replay.Bundle(str(bundle)))
    page = rescore.write(tmp_path / "board.csv", "Toxic", columns, ranking, rows)
    table = list(csv.reader(io.StringIO((tmp_path / "board.csv").read_text())))
    assert table[0][-5:] == ["interval_low", "interval_high", "p_next", "tied_with_next", "error"]
    assert table[1][-2:] == ["yes", ""] and table[3][-3:] == ["", "", ""]
    assert "1.0000 (not significant)" in open(page).read()


def test_ci_refuses_a_program_that_cannot_score_two_files(wrapped_bundle, submissions):
    with pytest.raises(rescore.RescoreError, match="cannot score two files"):
        rescore.rescore(wrapped_bundle, submissions, jobs=2, intervals=rescore.IntervalSettings())


def test_ci_on_the_real_participant_runs_separates_every_row(tmp_path):
    runs = shared_path("ehealth-kd-2019", "published-submissions", "participant-runs")
    task = taskdef.load_task("ehealth-kd", {"test": str(shared_path("ehealth-kd-2019", "testing"))})
    bundle = build.build_task(task, tmp_path).codabench
    evaluation = [p.number for p in task.phases if p.label == "Evaluation"][0]
    _, _, rows = rescore.rescore(bundle, [runs], phase=evaluation, jobs=2,
                                 intervals=rescore.IntervalSettings(samples=300))
    assert [r["submission"] for r in rows] == ["talp_576639.zip", "abravo_576683.zip", "lsi2_uned_574805.zip",
                                               "vsp_576661.zip"]
    for row in rows:
        assert row["interval"]["low"] < row["scores"]["main_score"] < row["interval"]["high"]
        assert row["interval"]["items"] == 100 and row["interval"]["unit"] == "sentence"
    # Gaps of 0.05 to 0.10 in main_score over 100 sentences: no randomization round comes near (p at its floor,
    # 1/301, or close to it).
    assert [r["tied_with_next"] for r in rows[:3]] == [False, False, False]
    assert all(r["p_next"] < 0.01 for r in rows[:3])
