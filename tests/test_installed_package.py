"""The tool as organizers get it (issue 21): the wheel built from this repository, installed into a fresh virtual
environment, run from an empty folder elsewhere with no path into this repository: new (with a gold directory, and
every other kind), build, validate, replay, migrate (an old bundle the test writes) and rescore."""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

from codalab_bundles import __version__, resources
from conftest import ROOT
from old_codalab_bundle import write_old_bundle

# What the wheel is built from: the package and what setup.py ships into it (a copy, so no build/ lands here).
SOURCES = ["pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "codalab_bundles"] + \
    [source for source, _ in resources.SHIPPED_FILES]


def build_wheel(base):
    """A wheel of this repository built in ``base`` (from a copy of what it ships, so no build/ lands here)."""
    pytest.importorskip("wheel", reason="building the wheel needs the wheel package (requirements-test.txt)")
    source = base / "source"
    for name in SOURCES:
        origin, target = ROOT / name, source / name
        if origin.is_dir():
            shutil.copytree(str(origin), str(target), ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "tests"))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(str(origin), str(target))
    wheels = base / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(wheels)], check=True, capture_output=True)
    return next(wheels.glob("codalab_bundles-*.whl"))


@pytest.fixture(scope="module")
def tool(tmp_path_factory):
    """The installed codalab-bundles command, and an environment without this repository on any path."""
    base = tmp_path_factory.mktemp("package")
    wheel = build_wheel(base)
    venv = base / "venv"
    # the runtime requirements come from this interpreter's site-packages; the tool itself only from the wheel
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True,
                   capture_output=True)
    env = dict((k, v) for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME"))
    env["PATH"] = "%s%s%s" % (venv / "bin", os.pathsep, env.get("PATH", ""))
    work = base / "work"
    work.mkdir()

    def run(*args, cwd=work, ok=(0,)):
        proc = subprocess.run(["codalab-bundles"] + [str(a) for a in args], cwd=str(cwd), env=env,
                              capture_output=True, text=True)
        assert proc.returncode in ok, (args, proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc

    run.work, run.python, run.env = work, python, env
    return run


def test_the_installed_package_reads_nothing_from_this_repository(tool):
    proc = subprocess.run([str(tool.python), "-c", "import codalab_bundles, codalab_bundles.resources as r; "
                           "print(codalab_bundles.__file__); print(r.COMMON); print(r.GENERIC); print(r.MAKE_LOGO)"],
                          cwd=str(tool.work), env=tool.env, capture_output=True, text=True, check=True)
    paths = proc.stdout.split()
    assert all(str(ROOT) not in p and "site-packages" in p for p in paths), paths
    assert paths[1].endswith("codalab_bundles/_shipped/scoring_programs/common")


def test_no_command_prints_the_commands_and_version(tool):
    proc = tool()
    for command in ("new", "build", "validate", "replay", "migrate", "rescore"):
        assert "\n  %s " % command in proc.stdout
    assert "usage: codalab-bundles" in proc.stdout and "exit status: 0 done" in proc.stdout
    assert tool("--version").stdout.strip() == "codalab-bundles %s" % __version__
    proc = tool("frobnicate", ok=(2,))
    assert "unknown command 'frobnicate'" in proc.stderr
    for command in ("new", "build", "validate", "replay", "migrate", "rescore", "score", "publish", "submit",
                    "results"):
        helped = tool(command, "--help").stdout
        assert helped.startswith("usage: codalab-bundles %s" % command)
        assert "codalab-bundles %s " % command in re.split("examples?:\n", helped)[1], command


def _gold(folder):
    for split, labels in (("dev", "pos neg neu pos pos neg"), ("test", "neg neg pos neu pos neu pos neg")):
        (folder / split).mkdir(parents=True)
        rows = ["%s%d,text %d,%s" % (split, i, i, label) for i, label in enumerate(labels.split())]
        (folder / split / "gold.csv").write_text("id,text,label\n" + "\n".join(rows) + "\n")


def test_an_organizers_competition_folder_from_new_to_rescore(tool, tmp_path):
    folder = tool.work / "sentiment-competition"
    folder.mkdir()
    _gold(folder / "G")
    proc = tool("new", "sentiment", "--kind", "classification", "--gold-dir", "G", cwd=folder)
    assert "wrote bundles/sentiment/task.yaml" in proc.stdout and "wrote README.md" in proc.stdout
    assert proc.stdout.strip().endswith("next: codalab-bundles build && codalab-bundles validate dist/sentiment.zip "
                                        "&& codalab-bundles replay dist/sentiment.zip")
    assert (folder / "reference_data" / "sentiment" / "test" / "gold.csv").read_text().count("\n") == 9
    readme = (folder / "README.md").read_text()
    assert "codalab-bundles build" in readme and "bundles/sentiment/task.yaml" in readme
    proc = tool("build", cwd=folder)
    assert "built dist/sentiment.zip (Codabench) and dist/sentiment-v1.5.zip (CodaLab v1.5)" in proc.stdout
    assert proc.stdout.count(": Finished macro_f1=") == 4  # two splits, both workers
    assert tool("validate", "dist/sentiment.zip", cwd=folder).stdout.strip().endswith("OK: nothing to change")
    replayed = tool("replay", "dist/sentiment.zip", cwd=folder).stdout
    assert "status: Finished" in replayed and "leaderboard columns without a score: none" in replayed

    # the other kinds, several tasks in one folder given by path
    for kind in ("multilabel", "spans", "ranking"):
        tool("new", "my-%s" % kind, "--kind", kind, "--dir", "others")
    proc = tool("build", "others")
    assert proc.stdout.count("built ") == 3
    for kind in ("multilabel", "spans", "ranking"):
        bundle = tool.work / "others" / "dist" / ("my-%s.zip" % kind)
        assert tool("validate", bundle).stdout.strip().endswith("OK: nothing to change")
        replayed = tool("replay", bundle).stdout
        assert "status: Finished" in replayed and "leaderboard columns without a score: none" in replayed

    # migrate an old CodaLab bundle; rescore submissions through the new bundle
    old = write_old_bundle(tool.work / "old.zip")
    proc = tool("migrate", "old.zip", ok=(1,))  # its Python 2 helper and key:value scores are manual steps
    assert "Next: do the manual steps above, then 'codalab-bundles validate old-codabench.zip'" in proc.stdout
    assert zipfile.ZipFile(str(tool.work / "old-codabench.zip")).read("competition.yaml").startswith(b"# ")
    assert old.exists()
    runs = tool.work / "runs"
    runs.mkdir()
    with zipfile.ZipFile(str(folder / "dist" / "sentiment.zip")) as bundle:
        with zipfile.ZipFile(io.BytesIO(bundle.read("starting_kit_dev.zip"))) as kit:
            (runs / "sample.zip").write_bytes(kit.read("sample_submission.zip"))
    proc = tool("rescore", folder / "dist" / "sentiment.zip", runs, "-o", "board.csv")
    assert proc.stdout.startswith("1 submission(s) scored, 0 failed; ranked by macro_f1 (desc)")
    rows = list(csv.DictReader(open(str(tool.work / "board.csv"))))
    assert [(r["rank"], r["submission"], r["status"]) for r in rows] == [("1", "sample.zip", "Finished")]

    # the paper's table from a folder of runs: two teams, one of them with the sample run on phase 1 (dev)
    teams = tool.work / "teams"
    for team in ("team-a", "team-b"):
        (teams / team).mkdir(parents=True)
        (teams / team / "run1.zip").write_bytes((runs / "sample.zip").read_bytes())
    proc = tool("results", teams, "--bundle", folder / "dist" / "sentiment.zip", "--phase", "1", "--samples", "50",
                "-o", "paper", "--json")
    assert [(r["rank"], r["team"], r["cluster"]) for r in json.loads(proc.stdout)["rows"]] == [
        (1, "team-a", 1), (1, "team-b", 1)]
    assert sorted(os.listdir(str(tool.work / "paper"))) == ["pairs.csv", "participants", "results.csv", "results.html",
                                                             "results.md", "results.png", "results.svg", "results.tex",
                                                             "runs.csv"]

    # a participant's view: the task's program on two files, per item, with an interval and a comparison
    (runs / "copy.zip").write_bytes((runs / "sample.zip").read_bytes())
    gold = folder / "reference_data" / "sentiment" / "dev" / "gold.csv"
    proc = tool("score", "sentiment", gold, runs / "sample.zip", "--ci", "--compare", runs / "copy.zip",
                "--per-item", "wrong", "--json", "--samples", "100", cwd=folder)
    report = json.loads(proc.stdout)
    assert report["signature"]["program"] == "generic-classification"
    assert report["comparison"]["p_approximate_randomization"] == 1.0  # a run against itself
    assert report["interval"]["low"] <= report["scores"]["macro_f1"] <= report["interval"]["high"]
    assert all(item["verdict"] != "right" for item in report["items"])
    proc = tool("rescore", folder / "dist" / "sentiment.zip", runs, "-o", "board.csv", "--ci", "--samples", "100")
    assert "not significantly different from the next row (p >= 0.05): copy.zip" in proc.stdout


def test_build_outside_a_competition_folder_says_what_to_do(tool):
    empty = tool.work / "empty"
    empty.mkdir()
    proc = tool("build", cwd=empty, ok=(2,))
    assert "holds no task" in proc.stderr and "codalab-bundles new NAME --kind KIND" in proc.stderr


def test_a_task_with_a_scoring_program_of_its_own_builds_in_an_organizers_folder(tool, built_bundles):
    """A seeded task (its own evaluate.py, derive hooks reading its scorer's modules) copied out of this
    repository, as an organizer with a custom scorer would have it."""
    folder = tool.work / "custom"
    for part in ("bundles", "scoring_programs", "reference_data"):
        shutil.copytree(str(ROOT / part / "recipe-mpr"), str(folder / part / "recipe-mpr"),
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "tests"))
    proc = tool("build", cwd=folder)
    assert "built dist/recipe-mpr.zip" in proc.stdout and ": Finished accuracy=" in proc.stdout
    # the same bytes as this repository's build of the task
    assert (folder / "dist" / "recipe-mpr.zip").read_bytes() == built_bundles["recipe-mpr"].codabench.read_bytes()
    assert tool("validate", "dist/recipe-mpr.zip", cwd=folder).stdout.strip().endswith("OK: nothing to change")


def test_a_custom_task_from_new_builds_and_scores_in_an_organizers_folder(tool):
    """new --kind custom with the installed tool: the skeleton evaluate.py finds the runtime the wheel ships (packed
    beside it by build and score), and its sample scores as counted by hand (tests/test_custom_kind.py)."""
    folder = tool.work / "custom-kind"
    folder.mkdir()
    proc = tool("new", "grading", "--kind", "custom", cwd=folder)
    assert "wrote scoring_programs/grading/evaluate.py" in proc.stdout
    assert not (folder / "scoring_programs" / "grading" / "scoring.json").exists()
    proc = tool("build", cwd=folder)
    assert proc.stdout.count(": Finished accuracy=0.7500") == 2 and proc.stdout.count(": Finished accuracy=0.6667") == 2
    assert tool("validate", "dist/grading.zip", cwd=folder).stdout.strip().endswith("OK: nothing to change")
    gold = folder / "reference_data" / "grading" / "dev" / "gold.csv"
    run = folder / "run.csv"
    run.write_text("id,label\n" + "".join("%d,positive\n" % i for i in range(1, 9)))  # 4 of the 8 are positive
    report = json.loads(tool("score", "grading", gold, run, "--json", "--ci", cwd=folder).stdout)
    assert report["scores"] == {"accuracy": 0.5} and report["signature"]["program"] == "grading"
    run.write_text("id,label\n1,positive\n")
    proc = tool("score", "grading", gold, run, cwd=folder, ok=(1,))
    assert proc.stderr == "Submission error: run.csv: 7 items have no prediction (the first: id '2')\n"
