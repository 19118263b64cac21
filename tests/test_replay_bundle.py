"""What a replay reads from a bundle when the bundle says nothing: each platform's defaults (mutation survivors)."""
import pytest

from codalab_bundles import replay
from codalab_bundles.zips import pack

V1 = """title: t
phases:
  1:
    phasenumber: 1
    label: Only
    start_date: 2025-01-01
    scoring_program: program.zip
    reference_data: ref.zip
"""
V2 = """version: 2
title: t
tasks:
  - {index: 0, name: T, scoring_program: program.zip, reference_data: ref.zip}
phases:
  - {index: 0, name: Only, start: 2025-01-01, tasks: [0]}
"""


def _bundle(tmp_path, text, name="b.zip"):
    path = tmp_path / name
    path.write_bytes(pack.zip_entries([("competition.yaml", text.encode())]))
    return replay.Bundle(path, platform="codalab" if "version: 2" not in text else "codabench")


@pytest.mark.parametrize("text, limit", [(V1, 300), (V2, 600)])
def test_a_phase_without_a_time_limit_gets_the_platforms_default(tmp_path, text, limit):
    """CodaLab v1.5's CompetitionPhase.execution_time_limit defaults to 300 s, Codabench's phase to 600 s."""
    bundle = _bundle(tmp_path, text)
    assert [(p.number, p.label, p.scoring_program, p.time_limit) for p in bundle.phases] == [
        (1, "Only", "program.zip", limit)]
    assert _bundle(tmp_path, text.replace("start", "execution_time_limit: 42\n    start" if text is V1 else
                                          "execution_time_limit: 42, start"), "c.zip").phases[0].time_limit == 42


@pytest.mark.parametrize("text", [V1, V2])
def test_a_bundle_naming_no_image_runs_in_both_platforms_default_image(tmp_path, text):
    assert _bundle(tmp_path, text).docker_image == "codalab/codalab-legacy:py37"
    named = text.replace("title: t\n", "title: t\n%s: my/image:1\n" % (
        "competition_docker_image" if text is V1 else "docker_image"))
    assert _bundle(tmp_path, named, "named.zip").docker_image == "my/image:1"


@pytest.mark.parametrize("text", ["title: t\nphases: {}\n", "version: 2\ntitle: t\nphases: []\n", "title: t\n"])
def test_a_bundle_without_phases_is_said_so(tmp_path, text):
    with pytest.raises(replay.ReplayError, match="competition.yaml has no phases"):
        _bundle(tmp_path, text)


def test_the_codalab_worker_substitutes_every_variable_in_its_order(tmp_path):
    """worker.py's substitutions, in its order ($predictions before $input), then split(' '): $shared too."""
    from codalab_bundles.replay.base_worker import Run
    from codalab_bundles.replay.codalab_worker import CodalabWorker
    run = Run(str(tmp_path), "/r", "/r/output", None, None, [], {"run": "/r", "shared": "/s", "output": "/r/output",
                                                                 "temp": "/r/temp"})
    command = "python3 $program/e.py $predictions $input $output $tmp $shared x"
    assert CodalabWorker().tokens(run, command) == [
        "python3", "/r/program/e.py", "/r/input/res", "/r/input", "/r/output", "/r/temp", "/s", "x"]


def test_the_input_metadata_codalab_gives_the_program():
    """What a v1.5 program finds in input/metadata: the submission's fields, the phase number among them."""
    from codalab_bundles.replay.codalab_worker import _input_metadata
    assert _input_metadata(3) == ("submitted-by: replay\nsubmitted-at: 2000-01-01T00:00:00\n"
                                  "competition-submission: 1\ncompetition-phase: 3\nautomatic-submission: False\n")


@pytest.mark.parametrize("said, shown", [
    (["Unable to find image 'x:1' locally", "docker: Error response from daemon: pull access denied for x.",
      "See 'docker run --help'."], "docker: Error response from daemon: pull access denied for x."),
    (["Unable to find image 'x:1' locally", "Error: manifest unknown", "See 'docker run --help'."],
     "Error: manifest unknown")])
def test_a_docker_failure_quotes_dockers_error_line_not_its_help_hint(said, shown):
    from codalab_bundles.replay.docker_run import explain_failure
    assert "could not be pulled (%s)" % shown in explain_failure("x:1", said)


def test_what_a_replay_ran_with_is_said():
    import platform
    assert replay.ran_with(None) == "this machine's python3 (Python %s), not the platform's image" % (
        platform.python_version())
    assert replay.ran_with(replay.DockerExecutor("my/image:1")) == "the Docker image my/image:1"


def test_the_report_a_person_reads_names_the_scores_the_sites_leaderboard_stores():
    from codalab_bundles.replay.report import format_report, new_report

    class Worker(object):
        label = "Codabench"

    class Executor(object):
        label = "local python3"

    phase = replay.PhaseInfo(2, "Test", "program.zip", "ref.zip", None, 600)
    report = new_report("b.zip", "run.zip", phase, "codabench", Worker(), Executor(), 600, status="Finished",
                        exit_code=0, scores={"accuracy": 0.5, "macro_f1": 0.25}, command=["python3 e.py"])
    assert (report["stdout"], report["stderr"], report["worker"]) == ("", "", "Codabench (local python3)")
    lines = format_report(report).splitlines()
    assert lines[:9] == [
        "Replay of b.zip", "  phase 2 (Test), submission run.zip",
        "  as the Codabench (local python3) worker runs it: python3 e.py", "",
        "status: Finished (exit code 0, 0.00 s of 600 s allowed)",
        "scores the Codabench leaderboard stores:", "  accuracy  0.5", "  macro_f1  0.25",
        "leaderboard columns without a score: none"]
    with pytest.raises(TypeError, match="not report keys: colour"):
        new_report("b.zip", "run.zip", phase, "codabench", Worker(), Executor(), 600, colour="red")


@pytest.mark.parametrize("platform", ["codabench", "codalab"])
def test_a_program_without_a_command_fails_as_such_not_as_a_timeout(tmp_path, platform):
    """No command in the metadata: nothing runs, so nothing can have timed out; the run fails with the worker's
    own words."""
    from codalab_bundles.authoring import build, taskdef
    from test_validate import program_zip, rewrite
    from toy_task import make_toy
    task = make_toy(tmp_path)
    built = build.build_task(taskdef.load_task("toy", task.split_dirs, bundles_dir=tmp_path / "bundles"),
                             tmp_path / "dist")
    path = rewrite(getattr(built, platform), tmp_path / "no-command.zip", edit_files={
        "scoring_program.zip": program_zip({"metadata": "description: no command\n", "evaluate.py": "print(1)\n"})})
    report = replay.replay(str(path), None, 1, platform=platform)
    assert report["status"] == "Failed" and "Program command is not specified." in report["stderr"]
    assert "time limit" not in (report["reason"] or "").lower() and report["exit_code"] == 1


@pytest.mark.parametrize("other, said", [
    ({"ok": False, "error": "scores.txt is not YAML", "scores": {}, "platform": "CodaLab v1.5"},
     "CodaLab v1.5 would fail to read these scores: scores.txt is not YAML"),
    ({"ok": True, "error": None, "scores": {"accuracy": 0.4}, "platform": "CodaLab v1.5"},
     "CodaLab v1.5 would read different scores: {'accuracy': 0.4}"),
    ({"ok": True, "error": None, "scores": {"accuracy": 0.50000000001}, "platform": "CodaLab v1.5"},
     "CodaLab v1.5 would read the same scores (to the 10 decimals both platforms store).")])
def test_the_report_says_what_the_other_platform_would_read(other, said):
    from codalab_bundles.replay.report import format_report, new_report

    class Labelled(object):
        label = "Codabench"

    phase = replay.PhaseInfo(1, "Dev", "program.zip", "ref.zip", None, 600)
    report = new_report("b.zip", "run.zip", phase, "codabench", Labelled(), Labelled(), 600, status="Finished",
                        exit_code=0, scores={"accuracy": 0.5}, other_platform_scores=other, stderr="oops\n")
    lines = format_report(report).splitlines()
    assert said in lines
    assert lines[-2:] == ["stderr (what the participant sees under 'View scoring error log'):", "  | oops"]
