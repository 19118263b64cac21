"""Public and private test scores, and a blind test phase, on a real Codabench (the local one of tools/codabench_local;
skipped, saying why, when it does not answer, or when its accounts cannot be made with token.sh).

The example of tests/private_example.py (toxic-spans with a private part of its test set: the real test set of
../shared/datasets when present, else the sample) is built with the Evaluation phase open now and the Final phase
two days ahead, published, and submitted to by a robot account (two runs) and a plain participant (one run). Then:
- before the reveal, nothing private is readable by either participant, nor without an account, through any
  endpoint of tests/participant_view.py (the public figures are: the probe sees what is there);
- the reveal is the rebuilt bundle with ``reveal: true`` and the Final phase starting now, applied with
  ``publish --update ID --apply`` (its diff: the private column shown, the dates);
- Codabench's own migration (its scheduler, every 5 minutes) re-runs the submission each participant has on the
  leaderboard (Force_Last: the last one) in the Final phase, whose scores hold the private figure, equal to the
  private posts' F1 computed here from the definition, and shown on the leaderboard.
The blind shape: the Evaluation phase stores no figure at all before the reveal.
"""
import datetime
import json
import os
import subprocess
import sys
import time

import pytest

from codalab_bundles.site import codabench_api
from conftest import ROOT
from participant_view import readable
from private_example import (mean_f1, private_posts, read_predictions, read_test_gold, task_yaml,
                             write_competition)
from test_codabench_live import URL, TOKEN, WHY, _sample

pytestmark = pytest.mark.skipif(URL is None, reason="needs a running Codabench: %s" % WHY)

REAL_TEST = ROOT.parent / "shared" / "datasets" / "toxic-spans" / "tsd_test.csv"
MIGRATION_WAIT = 480  # Codabench's scheduler looks for migrations every 300 s; then the runs themselves


def _account(kind, name):
    proc = subprocess.run(["bash", str(ROOT / "tools" / "codabench_local" / "token.sh"), kind, name],
                          capture_output=True, text=True, timeout=120)
    found = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    if proc.returncode or "CODABENCH_TOKEN" not in found:
        pytest.skip("cannot make the participant accounts with token.sh: %s" % proc.stderr.strip()[-200:])
    return found["CODABENCH_TOKEN"]


def _cli(token, *args):
    env = dict(os.environ, CODABENCH_URL=URL, CODABENCH_TOKEN=token)
    return subprocess.run([sys.executable, str(ROOT / "build_bundle.py")] + [str(a) for a in args],
                          capture_output=True, text=True, env=env, timeout=3600)


def _build(folder):
    proc = _cli(TOKEN, "build", folder)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return folder / "dist" / "toxic-spans.zip"


def _runs(bundle, folder):
    """The sample submission of the test split, and a second run: the sample with every odd post's spans emptied."""
    import zipfile
    sample = _sample(bundle, "test", folder)
    text = zipfile.ZipFile(str(sample)).read("spans-pred.txt").decode()
    second = folder / "second.zip"
    with zipfile.ZipFile(str(second), "w") as out:
        out.writestr("spans-pred.txt", "\n".join(
            line if int(line.split("\t")[0]) % 2 == 0 else line.split("\t")[0] + "\t[]"
            for line in text.splitlines()) + "\n")
    return sample, second


def _figures(value):
    """How a score shows on the site: its stored 10 decimals (cut to 4) and the leaderboard's rounding to 4."""
    return sorted({("%.10f" % value)[:6], "%.4f" % value})


def _publish_open(bundle):
    proc = _cli(TOKEN, "publish", bundle, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    competition = json.loads(proc.stdout)["id"]
    client = codabench_api.Client(URL, TOKEN)
    client.call("publishing", "POST", "/api/competitions/%s/toggle_publish/" % competition, {})
    client.call("allowing robots", "PATCH", "/api/competitions/%s/" % competition,
                {"allow_robot_submissions": True, "whitelist_emails": []})
    return competition, client


def _submit(token, path, competition):
    proc = _cli(token, "submit", path, "--competition", competition, "--phase", 2, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["status"] == "Finished", result
    return result


def _migrated(client, phase_id, count):
    """The submissions of ``phase_id`` once ``count`` of them have finished (the organizer's listing)."""
    deadline = time.monotonic() + MIGRATION_WAIT
    while True:
        found = client.call("reading the final phase", "GET", "/api/submissions/?phase=%s" % phase_id)
        if len(found) >= count and all(s["status"] in ("Finished", "Failed") for s in found):
            return found
        assert time.monotonic() < deadline, "no migration after %d s: %s" % (MIGRATION_WAIT, found)
        time.sleep(15)


def _reveal(folder, shape, evaluation_start, competition):
    """task.yaml with reveal: true and the Final phase starting a minute ago, built and applied to the live
    competition; returns what publish --update showed before applying."""
    now = datetime.datetime.utcnow().replace(microsecond=0)
    (folder / "bundles" / "toxic-spans" / "task.yaml").write_text(
        task_yaml(shape, dates=(evaluation_start, now - datetime.timedelta(minutes=1)), reveal=True))
    revealed = _build(folder)
    shown = _cli(TOKEN, "publish", revealed, "--update", competition)
    assert shown.returncode == 1, shown.stdout + shown.stderr
    applied = _cli(TOKEN, "publish", revealed, "--update", competition, "--apply")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    return shown.stdout


def _scenario(tmp_path, shape):
    now = datetime.datetime.utcnow().replace(microsecond=0)
    evaluation_start = now - datetime.timedelta(days=2)
    folder = write_competition(tmp_path / shape, shape, dates=(evaluation_start, now + datetime.timedelta(days=2)),
                               test_gold=REAL_TEST if REAL_TEST.is_file() else None)
    bundle = _build(folder)
    robot, alice = _account("--bot", "b-robot1"), _account("--user", "b-alice")
    competition, client = _publish_open(bundle)
    sample, second = _runs(bundle, tmp_path)
    submitted = [(sample.name, _submit(robot, sample, competition)), (second.name, _submit(robot, second, competition)),
                 (second.name, _submit(alice, second, competition))]
    gold = read_test_gold(folder)
    private = private_posts(len(gold))
    public = [i for i in range(len(gold)) if i not in private]
    figures = {}
    for path in (sample, second):
        predicted = read_predictions(path)
        figures[path.name] = (mean_f1(gold, predicted, public), mean_f1(gold, predicted, private),
                              mean_f1(gold, predicted, range(len(gold))))
    return folder, competition, client, evaluation_start, (robot, alice), submitted, figures


def test_public_and_private_scores_on_a_real_codabench(tmp_path):
    folder, competition, client, start, (robot, alice), submitted, figures = _scenario(tmp_path, "private")
    for name, result in submitted:  # the site stores the public posts' figure only
        assert set(result["scores"]) == {"spans_F1"}
        assert result["scores"]["spans_F1"] == pytest.approx(figures[name][0], abs=1e-9)
    secret = sorted(set(n for f in figures.values() for n in _figures(f[1]) + _figures(f[2])))
    public = sorted(set(n for f in figures.values() for n in _figures(f[0])))
    assert not set(secret) & set(public)
    for token in (None, alice, robot):
        seen = readable(URL, token, competition, secret)
        assert seen == [], seen
        assert readable(URL, token, competition, public)  # the probe reads what is there
    shown = _reveal(folder, "private", start, competition)
    assert "~ column private_spans_F1 hidden: live True -> bundle False" in shown
    assert "~ phase 3 start" in shown and "~ phase 2 end" in shown
    live = client.call("reading", "GET", "/api/competitions/%s/" % competition)
    phases = sorted(live["phases"], key=lambda p: p["index"])
    final = _migrated(client, phases[2]["id"], 2)
    assert sorted(s["owner"] for s in final) == ["b-alice", "b-robot1"]  # Force_Last: each one's last run
    for submission in final:
        scores = dict((s["column_key"], float(s["score"])) for s in submission["scores"])
        assert scores["spans_F1"] == pytest.approx(figures["second.zip"][0], abs=1e-9)
        assert scores["private_spans_F1"] == pytest.approx(figures["second.zip"][1], abs=1e-9)
    board = codabench_api.Client(URL, alice).call("leaderboard", "GET", "/api/phases/%s/get_leaderboard/"
                                                  % phases[2]["id"])
    assert "private_spans_F1" in [c["key"] for c in board["tasks"][0]["columns"]]
    assert [s["score"] for row in board["submissions"] for s in row["scores"]
            if s["column_key"] == "private_spans_F1"] == ["%.4f" % figures["second.zip"][1]] * 2


def test_a_blind_phase_on_a_real_codabench(tmp_path):
    folder, competition, client, start, (robot, alice), submitted, figures = _scenario(tmp_path, "blind")
    assert [result["scores"] for _, result in submitted] == [{}, {}, {}]
    every = sorted(set(n for f in figures.values() for value in f for n in _figures(value)))
    for token in (None, alice, robot):
        assert readable(URL, token, competition, every) == []
    live = client.call("reading", "GET", "/api/competitions/%s/" % competition)
    phases = sorted(live["phases"], key=lambda p: p["index"])
    assert (phases[1]["hide_score_output"], phases[1]["hide_prediction_output"], phases[1]["hide_output"]) == (
        True, True, False)
    shown = _reveal(folder, "blind", start, competition)
    assert "~ phase 2 hide_score_output: live True -> bundle False" in shown
    final = _migrated(client, phases[2]["id"], 2)
    for submission in final:
        scores = dict((s["column_key"], float(s["score"])) for s in submission["scores"])
        assert scores["private_spans_F1"] == pytest.approx(figures["second.zip"][1], abs=1e-9)
    live = client.call("reading", "GET", "/api/competitions/%s/" % competition)
    phases = sorted(live["phases"], key=lambda p: p["index"])
    assert (phases[1]["hide_score_output"], phases[1]["hide_prediction_output"]) == (False, False)
