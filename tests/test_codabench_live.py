"""publish, submit and publish --update against a real Codabench (issue 22): the local one of
tools/codabench_local (its own code, site and compute worker, on loopback), or any site given by CODABENCH_URL and
CODABENCH_TOKEN. Skipped, saying why, when no site answers; CI does not run it.

For every seeded task: publish the built bundle; the stored phases must be task.yaml's; submit the starting kit's
sample to every phase (--even-if-closed: the seeded competitions' dates are past) and the site's scores must equal
the local replay's; then publish --update a changed date and page, and read them back from the site."""
import json
import os
import subprocess
import sys
import urllib.request
import zipfile

import pytest

from codalab_bundles.authoring import taskdef
from codalab_bundles.site import codabench_api
from conftest import ROOT


def _site():
    url, token = os.environ.get("CODABENCH_URL"), os.environ.get("CODABENCH_TOKEN")
    if not (url and token):
        script = ROOT / "tools" / "codabench_local" / "token.sh"
        if not script.is_file():
            return None, None, "no CODABENCH_URL/CODABENCH_TOKEN and no tools/codabench_local/token.sh"
        try:
            proc = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            return None, None, "tools/codabench_local/token.sh did not answer in 120 s"
        found = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
        url, token = found.get("CODABENCH_URL"), found.get("CODABENCH_TOKEN")
        if proc.returncode or not (url and token):
            return None, None, "the local Codabench is not running (bash tools/codabench_local/start.sh starts it)"
    try:
        urllib.request.urlopen(url.rstrip("/") + "/api/competitions/front_page/", timeout=10).read()
    except OSError as exc:
        return None, None, "no Codabench answers at %s: %s" % (url, exc)
    return url, token, None


URL, TOKEN, WHY = _site()
pytestmark = pytest.mark.skipif(URL is None, reason="needs a running Codabench: %s" % WHY)


TOKEN_SH = ROOT / "tools" / "codabench_local" / "token.sh"


def local_account(*args):
    """An account of the local Codabench made by tools/codabench_local/token.sh (e.g. "--bot", "robot1"): its
    CODABENCH_URL, CODABENCH_TOKEN, ...; the test is skipped when the site under test is not that one."""
    proc = subprocess.run(["bash", str(TOKEN_SH)] + list(args), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    found = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    if found.get("CODABENCH_URL", "").rstrip("/") != URL.rstrip("/"):
        pytest.skip("accounts are made by tools/codabench_local/token.sh for the local Codabench (%s); the site under "
                    "test is %s" % (found.get("CODABENCH_URL"), URL))
    return found


def cli_as(token, *args):
    """build_bundle.py run with the site under test and ``token`` in its environment."""
    env = dict(os.environ, CODABENCH_URL=URL, CODABENCH_TOKEN=token)
    return subprocess.run([sys.executable, str(ROOT / "build_bundle.py")] + [str(a) for a in args],
                          capture_output=True, text=True, env=env, timeout=1800)


def published_for_robots(organizer, bundle):
    """``bundle`` published by ``organizer`` (a local_account), open to robot submissions and public: its id."""
    proc = cli_as(organizer["CODABENCH_TOKEN"], "publish", bundle, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    competition = json.loads(proc.stdout)["id"]
    client = codabench_api.Client(URL, organizer["CODABENCH_TOKEN"])
    client.call("allowing robot submissions", "PATCH", "/api/competitions/%s/" % competition,
                {"allow_robot_submissions": True, "whitelist_emails": []})
    client.call("publishing", "POST", "/api/competitions/%s/toggle_publish/" % competition, {}, safe=False)
    return competition


def _cli(*args):
    env = dict(os.environ, CODABENCH_URL=URL or "", CODABENCH_TOKEN=TOKEN or "")
    return subprocess.run([sys.executable, str(ROOT / "build_bundle.py")] + [str(a) for a in args],
                          capture_output=True, text=True, env=env, timeout=3600)


def _sample(bundle, split, folder):
    with zipfile.ZipFile(str(bundle)) as archive:
        kit = zipfile.ZipFile(__import__("io").BytesIO(archive.read("starting_kit_%s.zip" % split)))
    path = folder / ("sample_%s.zip" % split)
    path.write_bytes(kit.read("sample_submission.zip"))
    return path


@pytest.mark.parametrize("name", taskdef.task_names())
def test_publish_and_score_every_phase_on_a_real_codabench(built_bundles, name, tmp_path):
    bundle = built_bundles[name].codabench
    proc = _cli("publish", bundle, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    published = json.loads(proc.stdout)
    assert published["differences"] == []
    task = taskdef.load_task(name)
    assert [(n, s, e) for n, s, e in published["phases"]] == [
        (p.label, str(p.start), p.end and str(p.end)) for p in task.phases]
    for phase in task.phases:
        sample = _sample(bundle, phase.split, tmp_path)
        proc = _cli("submit", sample, "--competition", published["id"], "--phase", phase.number, "--even-if-closed",
                    "--expect-replay", bundle, "--json")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        result = json.loads(proc.stdout)
        assert result["status"] == "Finished" and result["differences"] == []
        assert result["row"] is not None  # on the leaderboard, its scores the site's own


def test_update_a_live_competition(built_bundles, tmp_path):
    from test_validate import rewrite
    bundle = built_bundles["toxic-spans"].codabench
    published = json.loads(_cli("publish", bundle, "--json").stdout)
    same = _cli("publish", bundle, "--update", published["id"])
    assert same.returncode == 0 and "already is the bundle: nothing to change" in same.stdout
    changed = rewrite(bundle, tmp_path / "changed.zip",
                      lambda y: y.replace('end: "2021-01-30 23:59:59"', 'end: "2021-01-29 23:59:59"'),
                      {"overview.html": b"<p>The overview, changed.</p>\n"})
    shown = _cli("publish", changed, "--update", published["id"])
    assert shown.returncode == 1 and "~ phase 2 end" in shown.stdout and "~ page 1 (Overview)" in shown.stdout
    applied = _cli("publish", changed, "--update", published["id"], "--apply")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    client = codabench_api.Client(URL, TOKEN)
    live = client.call("reading", "GET", "/api/competitions/%s/" % published["id"])
    phases = sorted(live["phases"], key=lambda p: p["index"])
    assert phases[1]["end"].startswith("2021-01-29T23:59:59")
    assert sorted(live["pages"], key=lambda p: p["index"])[0]["content"] == "<p>The overview, changed.</p>"
    again = _cli("publish", changed, "--update", published["id"])
    assert again.returncode == 0 and "nothing to change" in again.stdout


def test_bad_input_gets_the_step_the_status_and_codabenchs_words(built_bundles, tmp_path):
    from test_validate import rewrite
    bundle = built_bundles["toxic-spans"].codabench
    env_token = TOKEN
    try:
        globals()["TOKEN"] = "not-a-token"
        proc = _cli("publish", bundle)
    finally:
        globals()["TOKEN"] = env_token
    assert proc.returncode == 2
    assert "publish: creating the competition_bundle dataset: HTTP 403: Invalid token." in proc.stderr
    assert "not-a-token" not in proc.stdout + proc.stderr
    refused = rewrite(bundle, tmp_path / "refused.zip", None, {"overview.html": b""})
    proc = _cli("publish", refused)
    assert proc.returncode == 2
    assert "Codabench refused the bundle: Page 'overview.html' is empty, it must contain content. (no competition " \
           "was made, and the site deleted the upload)" in proc.stderr
    published = json.loads(_cli("publish", bundle, "--json").stdout)
    sample = _sample(bundle, "test", tmp_path)
    proc = _cli("submit", sample, "--competition", published["id"], "--phase", 2)
    assert proc.returncode == 2 and "phase 2 (Evaluation) is closed: it ended at 2021-01-30 23:59:59 UTC" \
        in proc.stderr
