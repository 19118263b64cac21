"""The local replay: the v1.5 worker's run directory, command, time limit and score parsing; then Codabench's."""
import functools
import json
import os
import subprocess
import sys
import zipfile

import pytest

from codalab_bundles import replay
from codalab_bundles.replay import codabench_worker
from codalab_bundles.authoring import build
from codalab_bundles.platforms import score_parsing as scores
from codalab_bundles.zips import pack
from conftest import ROOT
from toy_task import make_toy

v15 = functools.partial(replay.replay, platform="codalab")  # the v1.5 worker, as these tests describe


@pytest.fixture
def toy_bundle(tmp_path):
    return build.build_task(make_toy(tmp_path, limit=2), tmp_path / "dist").codalab


def submission(tmp_path, files, name="sub.zip"):
    path = tmp_path / name
    path.write_bytes(pack.zip_entries(sorted((k, v.encode() if isinstance(v, str) else v)
                                             for k, v in files.items())))
    return path


def test_sample_submission_scores(toy_bundle):
    report = v15(toy_bundle)
    assert report["status"] == "Finished" and report["exit_code"] == 0
    # dev gold "a b a", sample answers "a a a": 2 of 3
    assert report["scores"] == {"accuracy": 0.666666666666667, "hits": 2.0}
    assert report["columns_without_score"] == ["never_written"]
    assert report["keys_without_column"] == []
    assert report["other_platform_scores"]["ok"]
    assert report["detailed_results"] == "output/detailed_results.html"
    assert report["stderr"] == ""


def test_phase_selection_uses_that_phase_gold(toy_bundle, tmp_path):
    sub = submission(tmp_path, {"answers.txt": "b b a b\n"})
    report = v15(toy_bundle, sub, phase_number=2)
    assert report["phase_label"] == "Test"
    assert report["scores"]["hits"] == 3.0  # test gold "b b a a"
    with pytest.raises(replay.ReplayError):
        v15(toy_bundle, sub, phase_number=3)


def test_bad_submission_fails_with_the_participant_message(toy_bundle, tmp_path):
    report = v15(toy_bundle, submission(tmp_path, {"answers.txt": "a\n"}))
    assert report["status"] == "Failed" and report["exit_code"] == 1
    assert report["stderr"] == "Submission error: answers.txt: 1 answers for 3 questions\n"
    assert report["scores"] == {}
    assert "Scores.txt not found" in report["reason"] or "exited with status 1" in report["reason"]


def test_wrapper_folder_in_submission_is_tolerated_by_the_runtime(toy_bundle, tmp_path):
    report = v15(toy_bundle, submission(tmp_path, {"my-run/answers.txt": "a b b\n"}))
    assert report["status"] == "Finished"
    assert report["scores"]["hits"] == 2.0


def test_run_directory_is_laid_out_like_the_worker(toy_bundle, tmp_path):
    sub = submission(tmp_path, {"answers.txt": "a b a\n"})
    report = v15(toy_bundle, sub, keep=True, temp_dir=str(tmp_path / "codalab"))
    run = os.path.join(report["run_dir"], "run")
    try:
        listing = set(os.listdir(run))
        assert {"metadata", "program", "input", "output", "temp", "stdout.txt", "stderr.txt"} <= listing
        assert any(n.startswith("tmp") and n.endswith(".zip") for n in listing)  # the program download
        inputs = set(os.listdir(os.path.join(run, "input")))
        assert {"metadata", "ref", "res", "history", "scores"} <= inputs
        assert len([n for n in inputs if n.startswith("tmp") and n.endswith(".zip")]) == 2  # ref + res downloads
        assert "competition-phase: 1" in open(os.path.join(run, "input", "metadata")).read()
        assert open(os.path.join(run, "output", "metadata")).read().startswith("elapsedTime:")
        assert "exitCode: 0" in open(os.path.join(run, "output", "metadata")).read()
        assert report["command"] == ["python3 %s/program/evaluate.py %s/input %s/output" % (run, run, run)]
    finally:
        import shutil
        shutil.rmtree(report["run_dir"])


def test_time_limit_fails_like_the_worker(toy_bundle, tmp_path):
    report = v15(toy_bundle, submission(tmp_path, {"answers.txt": "SLEEP\n"}))
    assert report["status"] == "Failed"
    assert report["exit_code"] == -1
    assert report["reason"] == "Execution time limit exceeded!"
    assert report["stderr"].endswith("Execution time limit exceeded!\n")
    assert report["time_limit_seconds"] == 2


def test_internal_error_shows_no_traceback_and_no_gold(toy_bundle, tmp_path):
    report = v15(toy_bundle, submission(tmp_path, {"answers.txt": "CRASH\n"}))
    assert report["status"] == "Failed"
    assert report["stderr"] == ("Scoring failed with an internal error (KeyError); please report it to the "
                                "organizers\n")


@pytest.mark.parametrize("name", ["../evil.txt", "/etc/evil.txt", "a/../../evil.txt"])
def test_zip_entries_escaping_the_run_directory_are_refused(toy_bundle, tmp_path, name):
    path = tmp_path / "evil.zip"
    with zipfile.ZipFile(str(path), "w") as archive:
        archive.writestr(name, "x")
    with pytest.raises(replay.ReplayError) as info:
        v15(toy_bundle, path)
    assert "escapes" in str(info.value)
    assert not (tmp_path / "evil.txt").exists()


def test_submission_subfolder_with_metadata_is_promoted(toy_bundle, tmp_path):
    # The worker promotes a lone subfolder only when it holds a file called 'metadata'.
    sub = submission(tmp_path, {"inner/metadata": "description: x\n", "inner/answers.txt": "a b a\n"})
    report = v15(toy_bundle, sub)
    assert report["scores"]["hits"] == 3.0


@pytest.mark.parametrize("raw, ok, expected", [
    ("accuracy: 0.5|hits: 1", True, {"accuracy": 0.5, "hits": 1.0}),
    ("accuracy:0.5", True, {"accuracy": 0.5}),
    ("accuracy: 0.5|time: 12:30", False, None),
    ("accuracy: 0.5|accuracy: 0.7", False, None),
    ("accuracy: high", False, None),
])
def test_scores_txt_as_the_codalab_site_reads_it(toy_bundle, tmp_path, raw, ok, expected):
    report = v15(toy_bundle, submission(tmp_path, {"answers.txt": "WRITE:" + raw + "\n"}))
    # (the toy program turns '|' into newlines and writes the text as scores.txt)
    assert (report["status"] == "Finished") is ok, report["reason"]
    if ok:
        assert report["scores"] == expected


def test_parsers_disagree_where_the_platforms_do():
    columns = ["correct", "wrong"]
    codalab = scores.parse_codalab("correct:1\n", columns)
    assert codalab.ok and codalab.scores == {"correct": 1.0} and codalab.missing == ["wrong"]
    codabench = scores.parse_codabench(None, "correct:1\n", columns)  # the worker posts a string; nothing stored
    assert codabench.ok and codabench.scores == {} and codabench.missing == columns
    assert "n/a" in codabench.warnings[0]
    # the site stores scores in order and stops at one it cannot store
    stop = scores.parse_codabench('{"correct": 0.5, "wrong": "high"}', None, columns)
    assert stop.ok and stop.scores == {"correct": 0.5} and "cannot be stored" in stop.warnings[0]
    assert not scores.parse_codabench('{"correct": 0.5', None, columns).ok  # not JSON: the worker fails
    bom = scores.parse_codalab("\ufeffcorrect: 1\nwrong: 2\nextra: 3\n", columns)
    assert bom.scores == {"wrong": 2.0} and bom.ignored == ["\ufeffcorrect", "extra"]
    assert any("byte-order mark" in w for w in bom.warnings)
    assert not scores.parse_codalab("correct: 1e10\n", columns).ok
    assert not scores.parse_codalab("correct: 5\n", columns, computed=["correct"]).ok
    assert not scores.parse_codalab(None, columns).ok
    json_first = scores.parse_codabench('{"correct": 0.25}', "correct: 0.5\n", columns)
    assert json_first.scores == {"correct": 0.25}
    assert not scores.parse_codabench(None, None, columns).ok


def test_cli_json_report_is_the_last_line(toy_bundle, tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "replay", str(toy_bundle),
                           "--phase", "2", "--json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["status"] == "Finished" and report["phase"] == 2
    assert report["scores"] == {"accuracy": 0.5, "hits": 2.0}


def test_cli_exit_status_and_human_report_for_a_failure(toy_bundle, tmp_path):
    sub = submission(tmp_path, {"answers.txt": "a\n"})
    proc = subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "replay", str(toy_bundle), str(sub)],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert "status: Failed" in proc.stdout
    assert "  | Submission error: answers.txt: 1 answers for 3 questions" in proc.stdout


# --- Codabench worker emulation -------------------------------------------------------------------------------

@pytest.fixture
def toy_bundles(tmp_path):
    return build.build_task(make_toy(tmp_path, limit=2), tmp_path / "dist")


@pytest.mark.parametrize("which", [0, 1])  # the v1.5 bundle imported by Codabench, and the v2 bundle
def test_codabench_replay_scores_the_sample(toy_bundles, which):
    report = replay.replay(toy_bundles[which], platform="codabench")
    assert report["status"] == "Finished", report["stderr"]
    assert report["scores"] == {"accuracy": 2 / 3, "hits": 2.0}  # from scores.json, full precision
    assert report["detailed_results"] == "output/detailed_results.html"
    assert report["other_platform_scores"]["scores"] == {"accuracy": 0.666666666666667, "hits": 2.0}


def test_codabench_layout_and_command(toy_bundles, tmp_path):
    report = replay.replay(toy_bundles.codabench, submission(tmp_path, {"answers.txt": "a b a\n"}), platform="codabench",
                           keep=True, temp_dir=str(tmp_path / "cb"))
    root = report["run_dir"]
    try:
        assert report["command"] == ["python3 %s/program/evaluate.py %s/input %s/output" % (root, root, root)]
        assert sorted(os.listdir(os.path.join(root, "input"))) == ["ref", "res"]  # no metadata, history, tmp files
        assert report["time_limit_seconds"] == 2
        assert report["phase_label"] == "Development"
    finally:
        import shutil
        shutil.rmtree(root)


def test_codabench_fails_when_the_program_writes_output_metadata_but_keeps_its_scores(toy_bundles, tmp_path):
    sub = submission(tmp_path, {"answers.txt": "META a b a\n"})
    assert v15(toy_bundles.codalab, sub)["status"] == "Finished"  # v1.5 does not mind
    report = replay.replay(toy_bundles.codabench, sub)
    assert report["status"] == "Failed" and "output/metadata" in report["reason"]
    # the worker posts the scores before it writes its own output/metadata and fails: the site keeps them
    assert report["scores"] == {"accuracy": 1.0, "hits": 3.0}  # dev gold "a b a"
    assert any("already stored" in w for w in report["warnings"])


def test_codabench_scores_txt_without_a_space_finishes_with_no_score(toy_bundles, tmp_path):
    sub = submission(tmp_path, {"answers.txt": "WRITE:accuracy:0.5\n"})
    assert v15(toy_bundles.codalab, sub)["scores"] == {"accuracy": 0.5}
    report = replay.replay(toy_bundles.codabench, sub)
    assert report["status"] == "Finished" and report["scores"] == {}
    assert report["columns_without_score"] == ["accuracy", "hits", "never_written"]
    assert any("stores no score" in w for w in report["score_warnings"])


def test_codabench_lets_a_run_past_the_time_limit_finish_with_a_warning(toy_bundles, tmp_path):
    sub = submission(tmp_path, {"answers.txt": "SLOW a b a\n"})  # sleeps 3 s; the toy's limit is 2 s
    report = replay.replay(toy_bundles.codabench, sub)
    assert report["status"] == "Finished" and report["scores"] == {"accuracy": 1.0, "hits": 3.0}
    assert report["time_limit_seconds"] == 2 and report["elapsed_seconds"] > 2
    assert len(report["warnings"]) == 1 and "catches its own alarm" in report["warnings"][0]
    assert "stdout and stderr stay empty on the site" in report["warnings"][0]
    assert report["stderr"] == "" and "Execution time limit exceeded!" not in report["program_stderr"]
    failed = v15(toy_bundles.codalab, sub)  # CodaLab stops it at the limit
    assert failed["status"] == "Failed" and failed["reason"] == "Execution time limit exceeded!"


def test_codabench_stops_a_run_at_the_soft_time_limit(toy_bundles, tmp_path, monkeypatch):
    # 2 s + 20 min on the site; 2 s + 1 s here
    monkeypatch.setattr(codabench_worker, "CODABENCH_SOFT_LIMIT_PADDING", 1)
    report = replay.replay(toy_bundles.codabench, submission(tmp_path, {"answers.txt": "SLEEP\n"}))
    assert report["status"] == "Failed" and report["reason"] == "Child task failed or non-zero return code"
    assert report["scores"] == {} and report["elapsed_seconds"] < 30


@pytest.mark.parametrize("content", [b"", b"not a zip at all"])
def test_a_submission_that_is_not_a_zip_fails_as_on_each_worker(toy_bundles, tmp_path, content):
    sub = tmp_path / "empty.zip"
    sub.write_bytes(content)
    report = replay.replay(toy_bundles.codabench, sub)
    assert report["status"] == "Failed" and report["reason"] == "Bad or empty zip file"
    assert "10 times" in report["warnings"][0] and report["scores"] == {}
    v1 = v15(toy_bundles.codalab, sub)
    assert v1["status"] == "Failed" and "not a zip file" in v1["reason"]
    assert "Bad or empty zip file" in replay.format_report(report)
    assert "not a zip file" in replay.format_report(v1)


def test_codabench_caps_the_time_limit_at_600_seconds():
    phase = replay.PhaseInfo(1, "x", None, None, None, 3600)
    assert replay.CodabenchWorker().time_limit(phase) == 600
    assert replay.CodalabWorker().time_limit(phase) == 3600


def test_codabench_splits_commands_like_a_shell():
    run = replay.Run("/r", "/r/program", "/r/output", None, None, [], {"program": "/r/program", "input": "/r/in",
                                                                      "output": "/r/out", "shared": "/r/sh"})
    tokens = replay.CodabenchWorker().tokens(run, "python3 '$program/my score.py'  $input $output", True)
    assert tokens == ["python3", "/app/program/my score.py", "/app/input", "/app/output"]
    v15 = replay.Run("/t", "/t/run", "/t/run/output", None, None, [], {"run": "/t/run", "shared": "/s"})
    assert replay.CodalabWorker().tokens(v15, "python  $program/x.py $input") == [
        "python", "", "/t/run/program/x.py", "/t/run/input"]  # double space: an empty argument on v1.5
