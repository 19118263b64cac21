"""The CI script that ``new`` writes (ci/competition.sh), run step by step as its GitHub Actions workflow runs it,
against a real Codabench (issue 40): the local one of tools/codabench_local (an account of this test's own,
``d-ci-organizer``, not a superuser), or any site given by CODABENCH_URL and CODABENCH_TOKEN. Skipped, saying why,
when no site answers.

The tool is what organizers get: a wheel built from this repository, installed by the script's ``install`` step
into a fresh virtual environment (CODALAB_BUNDLES_SPEC names the wheel, as a repository variable would). Then
``check``; ``publish`` (refused: no competition recorded), ``publish --new`` (a new competition, recorded in
codabench.json), and after a commit that changes a phase's description and a page, ``publish`` again: the change is
read back from the site. A leaderboard column renamed (refused: listed, the run fails, the safe changes made), and
a gold changed (that task is not updated at all until ``--accept``)."""
import json
import os
import subprocess
import sys

import pytest

from codalab_bundles import __version__
from codalab_bundles.site import codabench_api
from conftest import ROOT
from test_codabench_live import URL, WHY
from test_installed_package import build_wheel

pytestmark = pytest.mark.skipif(URL is None, reason="needs a running Codabench: %s" % WHY)


def _account():
    """(site, token) of the organizer's account: the environment's, else d-ci-organizer on the local site."""
    if os.environ.get("CODABENCH_URL") and os.environ.get("CODABENCH_TOKEN"):
        return os.environ["CODABENCH_URL"], os.environ["CODABENCH_TOKEN"]
    proc = subprocess.run(["bash", str(ROOT / "tools" / "codabench_local" / "token.sh"), "--user", "d-ci-organizer"],
                          capture_output=True, text=True, timeout=120, check=True)
    found = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    return found["CODABENCH_URL"], found["CODABENCH_TOKEN"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """A wheel of this repository, as tests/test_installed_package.py builds it."""
    return build_wheel(tmp_path_factory.mktemp("ci-wheel"))


def _git(folder, *args):
    subprocess.run(["git", "-c", "user.name=d-ci", "-c", "user.email=d-ci@localhost.invalid"] + list(args),
                   cwd=str(folder), check=True, capture_output=True)


def test_the_ci_script_installs_checks_publishes_and_updates(wheel, tmp_path):
    server, token = _account()
    folder = tmp_path / "competition"
    made = subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "new", "senti", "--kind",
                           "classification", "--dir", str(folder), "--title", "CI test of issue 40"],
                          capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stderr
    _git(folder, "init", "-q")
    _git(folder, "add", "-A")
    _git(folder, "commit", "-qm", "the competition, as new wrote it")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    # CI's environment: the runner's Python (here a fresh venv, its dependencies from this interpreter), no path
    # into this repository; the token only where the workflow gives it (the publish step)
    env = dict((k, v) for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "PYTHONHOME") and not k.startswith(("CODABENCH_", "GITHUB_")))
    env.update(PATH="%s%s%s" % (venv / "bin", os.pathsep, env.get("PATH", "")), PYTHON=str(venv / "bin" / "python"),
               CODALAB_BUNDLES_SPEC=str(wheel), PIP_NO_INDEX="1")
    said = []

    def step(*args, **extra):
        proc = subprocess.run(["bash", "ci/competition.sh"] + list(args), cwd=str(folder), capture_output=True,
                              text=True, timeout=1800, env=dict(env, **extra))
        said.append(proc.stdout + proc.stderr)
        return proc

    def publish(*args):
        return step("publish", *args, CODABENCH_TOKEN=token, CODABENCH_URL=server)

    proc = step("install")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert proc.stdout.rstrip().endswith("codalab-bundles %s" % __version__)
    where = subprocess.run([env["PYTHON"], "-c", "import codalab_bundles; print(codalab_bundles.__file__)"],
                           cwd=str(tmp_path), env=env, capture_output=True, text=True, check=True).stdout
    assert str(venv) in where and str(ROOT) not in where  # the wheel's, installed by the step

    proc = step("check")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.stdout.count("status: Finished") == 2

    proc = publish()  # no competition recorded, and no --new: nothing made
    assert proc.returncode == 1 and "senti: codabench.json records no competition of it" in proc.stderr
    assert not (folder / "codabench.json").exists()

    proc = publish("--new")
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    record = json.loads((folder / "codabench.json").read_text())
    assert record["server"] == server.rstrip("/")
    competition = record["competitions"]["senti"]["id"]
    assert "senti: competition %d made on %s" % (competition, server.rstrip("/")) in proc.stdout
    assert proc.stdout.rstrip().endswith("  - codabench.json changed and is not committed: commit it (git add "
                                         "codabench.json && git commit): the next publish reads it from the "
                                         "repository")
    client = codabench_api.Client(server, token)

    def live():
        return client.call("reading the competition", "GET", "/api/competitions/%s/" % competition)
    site = live()
    assert site["title"] == "CI test of issue 40" and len(site["phases"]) == 2
    _git(folder, "add", "codabench.json")
    _git(folder, "commit", "-qm", "the competition on Codabench")
    proc = publish()
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "competition %d already is the bundle: nothing to change" % competition in proc.stdout

    # a phase's description and a page changed, committed: the update is applied, and the site reads back
    task = folder / "bundles" / "senti" / "task.yaml"
    text = task.read_text()
    old = "Submit predictions for the development set and see your scores at once."
    assert old in text
    task.write_text(text.replace(old, "Development phase, as changed by a commit of issue 40."))
    overview = folder / "bundles" / "senti" / "pages" / "overview.html.j2"
    overview.write_text(overview.read_text() + "<p>Added by the CI test of issue 40.</p>\n")
    _git(folder, "commit", "-qam", "a phase's description and the overview")
    proc = publish()
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "  ~ phase 1 description: live %s -> bundle Development phase, as changed by a commit of issue 40." \
        % old in proc.stdout
    assert "applied 2 change(s) in 2 call(s)" in proc.stdout
    assert "senti: competition %d is the bundle" % competition in proc.stdout
    site = live()
    phases = sorted(site["phases"], key=lambda p: p["index"])
    assert phases[0]["description"] == "Development phase, as changed by a commit of issue 40."
    pages = dict((p["title"], p["content"]) for p in site["pages"])
    assert pages["Overview"].rstrip().endswith("<p>Added by the CI test of issue 40.</p>")

    # a leaderboard column renamed (refused, listed, the run fails) with a safe change beside it (made)
    text = task.read_text()
    task.write_text(text.replace('label: "Accuracy"', 'label: "Accuracy (all items)"').replace(
        "Submit predictions for the test set. The leaderboard of this phase is final.", "Test phase, changed."))
    _git(folder, "commit", "-qam", "a column's label and the test phase's description")
    proc = publish()
    assert proc.returncode == 1
    assert "  ! leaderboard columns: live macro_f1, accuracy, weighted_f1 -> bundle macro_f1, accuracy, weighted_f1 " \
           "(not applied: leaderboard columns are changed in the site's editor" in proc.stdout
    assert "senti: competition %d: some changes cannot be made safely (marked ! above; the others were made)" \
        % competition in proc.stderr
    site = live()
    assert sorted(site["phases"], key=lambda p: p["index"])[1]["description"] == "Test phase, changed."
    columns = sorted(site["leaderboards"][0]["columns"], key=lambda c: c["index"])
    assert [c["title"] for c in columns] == ["Macro-F1", "Accuracy", "Weighted F1"]
    task.write_text(task.read_text().replace('label: "Accuracy (all items)"', 'label: "Accuracy"'))

    # the test gold changed, with a description: an update cannot carry the gold, so nothing of the task is changed
    gold = folder / "reference_data" / "senti" / "test" / "gold.csv"
    lines = gold.read_text().splitlines()
    lines[1] = lines[1].rsplit(",", 1)[0] + ("," + ("positive" if not lines[1].endswith("positive") else "negative"))
    gold.write_text("\n".join(lines) + "\n")
    task.write_text(task.read_text().replace("Test phase, changed.", "Test phase, changed again."))
    _git(folder, "commit", "-qam", "a corrected test gold")
    proc = publish()
    assert proc.returncode == 1 and "== publish" not in proc.stdout
    assert "senti: competition %d was not updated: these differ from what was published, and publish --update " \
           "cannot change them on a live competition: file reference_test.zip (changed)" % competition in proc.stderr
    assert sorted(live()["phases"], key=lambda p: p["index"])[1]["description"] == "Test phase, changed."
    proc = publish("--accept")  # the organizer replaced the gold on the site: the rest is updated, the build recorded
    assert proc.returncode == 1 and "senti: recorded this build's scoring program, data and settings as the " \
        "site's (--accept)" in proc.stdout
    assert sorted(live()["phases"], key=lambda p: p["index"])[1]["description"] == "Test phase, changed again."
    _git(folder, "commit", "-qam", "the gold replaced on the site")
    proc = publish()
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.stdout.rstrip().endswith("ci/competition.sh: done, nothing to fix")
    assert all(token not in text for text in said)  # never printed, in any step
