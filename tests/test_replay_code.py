"""The replay of code submissions as Codabench's worker runs them (codalab_bundles/replay/code_submission.py): the
prediction step (the ingestion program, or the submission's own command) before the scoring step, on the
hand-written bundles and cases of tests/code_bundles.py; locally and in Docker (network off). The same cases on a
real Codabench: test_replay_code_live.py."""
import pytest

import code_bundles
from codalab_bundles import replay
from codalab_bundles.replay import code_submission, codabench_worker
from docker_support import docker_image  # noqa: F401 (a fixture)

CHILD = "Child task failed or non-zero return code"


def _bundle(tmp_path, kind="ingestion", **kwargs):
    path = tmp_path / ("%s.zip" % kind)
    path.write_bytes(code_bundles.bundle(kind, **kwargs))
    return path


def _run(tmp_path, bundle, data, **kwargs):
    path = tmp_path / "submission.zip"
    path.write_bytes(data)
    return replay.replay(bundle, path, **kwargs)


def _container(report, kind="ingestion"):
    return [c for c in report["prediction"]["containers"] if c["kind"] == kind][0]


def test_legacy_substitutions_are_codabench_s_for_each_kind_and_step():
    command = "$program $input $output $submission_program $ingestion_program $predictions $hidden $shared $tmp"
    assert code_submission.legacy_command(command, "ingestion", False, False).split() == [
        "/app/program", "/app/input_data", "/app/output", "/app/ingested_program", "/app/program", "/app/output",
        "/app/input/ref", "/app/shared", "/app/output"]
    assert code_submission.legacy_command(command, "program", False, False).split()[:2] == ["/app/program",
                                                                                            "/app/input"]
    # ingestion_only_during_scoring: $program is a folder the worker never mounts, for both programs
    scoring = code_submission.legacy_command(command, "program", True, True).split()
    assert scoring[0] == "/app/ingestion_program" and scoring[5] == "/app/input/res"


def test_a_good_model_is_scored_through_its_predictions(tmp_path):
    report = _run(tmp_path, _bundle(tmp_path), code_bundles.submission("good"))
    assert report["status"] == "Finished" and report["scores"] == {"accuracy": 1.0}
    assert report["site_details"] == ""
    ingestion = _container(report)
    assert ingestion["exit_code"] == 0 and ingestion["stdout"] == "predicted 6 inputs\n"
    # the ingestion program's folder is /app/program, the submission /app/ingested_program, the inputs /app/input_data
    words = ingestion["command"].split()
    assert words[1].endswith("/ingestion_program/ingest.py") and words[2].endswith("/input_data")
    assert words[3].endswith("/output") and words[4].endswith("/program")
    meta = report["prediction"]["metadata"]
    assert meta["exitCode"] is None and meta["ingestionExitCode"] == 0  # no command of the submission's own ran
    assert meta["elapsedTime"] == meta["ingestionElapsedTime"] > 0
    assert any("copies its files into the prediction output" in n for n in report["prediction"]["notes"])
    assert report["prediction"]["problems"] == [] and report["prediction"]["failed_here"] is None


def test_a_crashing_model_fails_in_the_scoring_step_and_the_report_names_the_ingestion(tmp_path):
    report = _run(tmp_path, _bundle(tmp_path), code_bundles.submission("crash"))
    assert report["status"] == "Failed" and report["scores"] == {}
    assert report["site_details"] == CHILD  # what Codabench shows: the scoring program's exit status
    assert _container(report)["stderr"] == \
        "ingestion: model.predict raised ZeroDivisionError: integer division or modulo by zero\n"
    assert report["stderr"] == "score.py: no predictions.txt in the prediction step's output\n"
    assert report["reason"] == (
        "the scoring step failed: the scoring program exited with status 1; before it, in the prediction step: "
        "the ingestion program exited with status 1 (Codabench goes on to the scoring step all the same)")
    text = replay.format_report(report)
    assert "prediction step (before the scoring step):" in text and "ZeroDivisionError" in text


def test_an_infinite_loop_runs_to_the_site_s_soft_limit_and_then_the_scoring_step_fails(tmp_path, monkeypatch):
    # 2 s + 20 min on the site; 2 s + 1 s here. At the soft limit the worker records exit status 1 for the
    # ingestion, leaves its container running, and goes on to the scoring step (seen on the local Codabench)
    monkeypatch.setattr(codabench_worker, "CODABENCH_SOFT_LIMIT_PADDING", 1)
    report = _run(tmp_path, _bundle(tmp_path, time_limit=2), code_bundles.submission("loop"))
    assert report["status"] == "Failed" and report["site_details"] == CHILD
    assert report["stderr"] == "score.py: no predictions.txt in the prediction step's output\n"
    assert report["reason"].endswith("before it, in the prediction step: the ingestion program exited with status 1 "
                                     "(Codabench goes on to the scoring step all the same)")
    ingestion = _container(report)
    assert ingestion["timed_out"] and ingestion["exit_code"] == 1 and 3 <= ingestion["elapsed_seconds"] < 20
    assert ingestion["logs_lost"] and ingestion["stderr"] == ""  # past the alarm the worker keeps no logs
    assert report["prediction"]["metadata"]["ingestionExitCode"] == 1
    assert any("leaves the container running" in n for n in report["prediction"]["notes"])


def test_writes_outside_the_output_are_listed_and_never_reach_the_scoring_step(tmp_path):
    report = _run(tmp_path, _bundle(tmp_path), code_bundles.submission("outside"))
    assert report["status"] == "Finished" and report["scores"] == {"accuracy": 1.0}
    assert report["prediction"]["written_outside_output"] == ["input_data/written_by_model.txt",
                                                             "program/written_by_model.txt"]


def test_the_reference_data_is_out_of_reach_in_the_prediction_step_only(tmp_path):
    report = _run(tmp_path, _bundle(tmp_path), code_bundles.submission("reads_gold"))
    assert report["status"] == "Finished" and report["scores"] == {"accuracy": 0.0}
    exposed = _run(tmp_path, _bundle(tmp_path, "during_scoring"), code_bundles.submission("reads_gold"))
    assert exposed["status"] == "Finished" and exposed["scores"] == {"accuracy": 1.0}
    assert any("can read the gold" in n for n in exposed["prediction"]["notes"])
    assert _container(exposed)["what"].startswith("the ingestion program (in the scoring step")


def test_the_submission_s_own_command_runs_with_the_input_data(tmp_path):
    bundle = _bundle(tmp_path, "own_command")
    report = _run(tmp_path, bundle, code_bundles.own_command_submission("good"))
    assert report["status"] == "Finished" and report["scores"] == {"accuracy": 1.0}
    program = _container(report, "program")
    assert program["what"] == "the submission's own metadata command" and program["exit_code"] == 0
    assert report["prediction"]["metadata"]["exitCode"] == 0
    assert report["prediction"]["metadata"]["ingestionExitCode"] is None


def test_a_submission_with_metadata_but_no_command_and_no_ingestion_program_fails(tmp_path):
    report = _run(tmp_path, _bundle(tmp_path, "own_command"),
                  code_bundles.own_command_submission("good", metadata="description: no command\n"))
    assert report["status"] == "Failed" and report["prediction"]["containers"] == []
    assert report["site_details"] == "Bad or empty zip file"  # the scoring step already started finds nothing
    assert report["reason"].startswith("the prediction step failed: Metadata file not found; Codabench has")
    assert any("nothing is predicted" in n for n in report["prediction"]["notes"])


def test_an_ingestion_program_without_a_command_never_runs_and_the_scoring_step_finds_nothing(tmp_path):
    bundle = _bundle(tmp_path, ingestion_metadata="description: no command\n")
    report = _run(tmp_path, bundle, code_bundles.submission("good"))
    assert report["status"] == "Failed" and report["site_details"] == CHILD
    assert "Program directory missing 'command' in metadata" in report["reason"]
    missing = _run(tmp_path, _bundle(tmp_path, ingestion_metadata=""), code_bundles.submission("good"))
    assert "Program directory missing 'metadata.yaml/metadata'" in missing["reason"]


def test_programs_and_data_given_as_folders_are_zipped_as_codabench_s_import_does(tmp_path):
    path = tmp_path / "folders.zip"
    path.write_bytes(code_bundles.bundle(folders=True))
    import zipfile
    assert "ingestion_program/ingest.py" in zipfile.ZipFile(str(path)).namelist()
    report = _run(tmp_path, path, code_bundles.submission("good"))
    assert report["status"] == "Finished" and report["scores"] == {"accuracy": 1.0}


def test_the_codalab_replay_says_it_does_not_run_code_submissions(tmp_path):
    with pytest.raises(replay.ReplayError, match="runs the scoring step only"):
        _run(tmp_path, _bundle(tmp_path), code_bundles.submission("good"), platform="codalab")


def test_in_docker_the_model_has_no_network(tmp_path, docker_image):  # noqa: F811
    bundle = _bundle(tmp_path)
    local = _run(tmp_path, bundle, code_bundles.submission("network"))
    assert local["status"] == "Finished"  # locally the network is this machine's
    executor = replay.DockerExecutor(docker_image)
    report = _run(tmp_path, bundle, code_bundles.submission("network"), executor=executor)
    assert report["status"] == "Failed" and report["site_details"] == CHILD
    assert _container(report)["stderr"] == ("ingestion: model.predict raised OSError: no route out of this "
                                            "container: the network is off\n")
    assert "--network none" in _container(report)["command"]
    good = _run(tmp_path, bundle, code_bundles.submission("good"), executor=executor)
    assert good["status"] == "Finished" and good["scores"] == {"accuracy": 1.0}
    shown = _container(good)["command"]
    assert "/program:/app/ingested_program " in shown and "/ingestion_program:/app/program " in shown
    assert "/input_data:/app/input_data " in shown and "/app/input " not in shown  # no reference data mounted
    assert "-w /app/program " in shown


def test_program_in_a_scoring_time_ingestion_command_points_to_a_folder_never_mounted(tmp_path):
    bundle = _bundle(tmp_path, "during_scoring", ingestion_metadata="command: python3 $program/ingest.py "
                     "/app/input_data /app/output /app/ingested_program\n")
    report = _run(tmp_path, bundle, code_bundles.submission("good"))
    assert report["status"] == "Failed"  # the scoring program deferred to the ingestion program, which never ran
    assert report["site_details"] == "Could not find scores file, did the scoring program output it?"
    ingestion = _container(report)
    assert ingestion["exit_code"] == 2 and "/.not-mounted/ingestion_program/ingest.py" in ingestion["stderr"]
    assert "; beside it, the ingestion program (in the scoring step, ingestion_only_during_scoring) exited with " \
           "status 2" in report["reason"]


def test_the_scoring_time_ingestion_starts_only_once_the_scoring_program_has_ended(tmp_path):
    # the worker's event loop is blocked reading the first container's logs: the ingestion program starts after the
    # scoring program, so a scoring program waiting for its predictions gives up (10 s here); seen on the local
    # Codabench. Held back past the worker's 10 s websocket wait, the ingestion is recorded with exit status 1.
    waits = _run(tmp_path, _bundle(tmp_path, "during_scoring_wait"), code_bundles.submission("good"))
    assert waits["status"] == "Failed" and waits["site_details"] == CHILD
    assert waits["stderr"] == "score.py: no predictions.txt in the prediction step's output\n"
    ingestion = _container(waits)
    assert ingestion["held_back_seconds"] >= 10 and ingestion["returned"] == 0 and ingestion["exit_code"] == 1
    assert ingestion["stdout"] == "predicted 6 inputs\n"  # it did run, after the scoring program
    assert any("never run at once" in n for n in waits["prediction"]["notes"])
    # what works on Codabench: the scoring program exits at once and the ingestion program, run after it, scores
    defers = _run(tmp_path, _bundle(tmp_path, "during_scoring"), code_bundles.submission("good"))
    assert defers["status"] == "Finished" and defers["scores"] == {"accuracy": 1.0}
    assert defers["stdout"] == "the ingestion program scores\n"


def test_food_hazard_s_code_variant_replays_as_its_offline_run_scores_it(tmp_path):
    """The authoring side's code-submission food-hazard (bundles/food-hazard/task-code.yaml): its starting kit's
    baseline, replayed as Codabench runs it, gets the scores of the participants' offline run (authoring/code_run),
    and validate finds nothing to say of its code-submission task."""
    from codalab_bundles import validate
    from codalab_bundles.authoring import build, code_run, taskdef
    from test_code_submission import TASK, competition
    folder = competition(tmp_path)
    bundle = build.build_task(taskdef.load_task(TASK, bundles_dir=folder / "bundles"), folder / "dist").codabench
    report = replay.replay(bundle, None, 1)
    offline = code_run.run(bundle, 1)
    assert report["status"] == offline["status"] == "Finished"
    assert report["scores"] == offline["scores"] and len(report["scores"]) == 6
    assert _container(report)["exit_code"] == 0 and report["prediction"]["problems"] == []
    _, findings = validate.validate(str(bundle), replay=False)
    assert [f for f in findings if f.rule == "code-submission"] == []
