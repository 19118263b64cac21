"""Tracks and a computed column on a real Codabench (issue 40): food-hazard's ST1 and ST2 as two tracks
(bundles/food-hazard/task-tracks.yaml) with their average ranking the leaderboard, on the local Codabench of
tools/codabench_local. Skipped, saying why, when no site answers, when the site is not the local one (the accounts are
made by its token.sh), or when the real test data is absent (../shared/datasets/food-hazard).

Once per module: build the example with the real test gold, publish it as the account e-organizer, allow robot
submissions, and submit to the Evaluation phase, each as its own robot account (each a team), every one with
--expect-replay (the site's status and scores, every track's run and the computed average, equal the local replay's):
- e-fh-real: a participant's published test predictions (both tracks);
- e-fh-baseline: the starting kit's sample, the keyword baseline (both tracks);
- e-fh-mixed: the participant's ST1 columns with the baseline's ST2 columns (both tracks);
- e-fh-st1: the participant's predictions made to track st1 only (submit --tracks st1).
Then the site's leaderboard is read as a participant reads it (no token) and compared with the bundle, with the
model of its order (platforms/codabench_leaderboard.row_order), with ``results`` and with ``rescore``."""
import csv
import io
import json
import urllib.request
import zipfile

import pytest

from codalab_bundles.platforms import codabench_leaderboard as board
from codalab_bundles.site import codabench_api
from conftest import shared_path
from test_codabench_live import URL, WHY, cli_as, local_account, published_for_robots
from test_tracks import ST1, ST2, _csv, _rows, competition

pytestmark = pytest.mark.skipif(URL is None, reason="needs a running Codabench: %s" % WHY)

PHASE = 2  # Evaluation: the test split
TEAMS = ("e-fh-real", "e-fh-baseline", "e-fh-mixed", "e-fh-st1")


_account, _cli = local_account, cli_as


def _zip(path, text):
    with zipfile.ZipFile(str(path), "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("submission.csv", text)
    return path


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    predictions = shared_path("food-hazard", "published-predictions", "test_predictions_participant.csv")
    gold = shared_path("food-hazard", "incidents_test.csv")
    tmp = tmp_path_factory.mktemp("tracks-live")
    (tmp / "gold").mkdir()
    (tmp / "gold" / "incidents_test.csv").write_bytes(gold.read_bytes())
    organizer = _account("--user", "e-organizer")
    folder = competition(tmp / "competition")
    proc = _cli(organizer["CODABENCH_TOKEN"], "build", folder, "--reference", "test=%s" % (tmp / "gold"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    bundle = folder / "dist" / "food-hazard.zip"
    competition_id = published_for_robots(organizer, bundle)
    client = codabench_api.Client(URL, organizer["CODABENCH_TOKEN"])
    # the runs: the participant's predictions (aligned with the test gold by row), the kit's sample, a mix
    real = predictions.read_text(encoding="utf-8")
    with zipfile.ZipFile(str(bundle)) as archive:
        kit = zipfile.ZipFile(io.BytesIO(archive.read("starting_kit_test.zip")))
    sample = zipfile.ZipFile(io.BytesIO(kit.read("sample_submission.zip"))).read("submission.csv").decode("utf-8")
    real_rows, sample_rows = _rows(real), _rows(sample)
    header = sample_rows[0]  # the kit's: an id column first, then the four label columns
    ours = [header] + [[s[0]] + [r[real_rows[0].index(c)] for c in header[1:3]] + s[3:]
                       for r, s in zip(real_rows[1:], sample_rows[1:])]
    zips = {"e-fh-real": _zip(tmp / "real.zip", real), "e-fh-baseline": _zip(tmp / "baseline.zip", sample),
            "e-fh-mixed": _zip(tmp / "mixed.zip", _csv(ours)), "e-fh-st1": _zip(tmp / "real-st1.zip", real)}
    submitted = {}
    for team in TEAMS:  # one after the other: the site's creation times order its ties
        robot = _account("--bot", team)
        extra = ["--tracks", "st1"] if team == "e-fh-st1" else []
        proc = _cli(robot["CODABENCH_TOKEN"], "submit", zips[team], "--competition", competition_id, "--phase", PHASE,
                    "--even-if-closed", "--expect-replay", bundle, "--json", *extra)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        submitted[team] = json.loads(proc.stdout)
    phases = client.call("reading", "GET", "/api/competitions/%s/" % competition_id)["phases"]
    phase_id = sorted(phases, key=lambda p: p["index"])[PHASE - 1]["id"]
    with urllib.request.urlopen("%s/api/phases/%s/get_leaderboard/" % (URL.rstrip("/"), phase_id)) as answer:
        shown = json.loads(answer.read().decode("utf-8"))  # as anyone reads it, without a token
    listing = client.call("listing", "GET", "/api/submissions/?phase=%s" % phase_id)
    listing = listing.get("results", listing) if isinstance(listing, dict) else listing
    return {"tmp": tmp, "bundle": bundle, "competition": competition_id, "submitted": submitted, "board": shown,
            "listing": listing, "organizer": organizer, "zips": zips}


def test_every_run_scores_on_the_site_as_its_replay(live):
    for team, result in live["submitted"].items():
        assert result["status"] == "Finished" and result["differences"] == [], (team, result)
        tracks = [(run["task"], run["status"]) for run in result["tracks"]]
        assert tracks == ([("st1", "Finished")] if team == "e-fh-st1" else [("st1", "Finished"), ("st2", "Finished")])
        scores = result["scores"]
        assert sorted(scores) == sorted(ST1 + (ST2 if team != "e-fh-st1" else []) + ["avg_score"])
        # the average Codabench stored: over the scores the submission has, as the site stores them
        expected = board.computed("avg", [scores["st1_score"]] + ([scores["st2_score"]] if "st2_score" in scores
                                                                  else []))
        assert scores["avg_score"] == expected, (team, scores)
    assert live["submitted"]["e-fh-st1"]["scores"]["avg_score"] == round(
        live["submitted"]["e-fh-st1"]["scores"]["st1_score"], 10)


def test_the_sites_columns_are_one_per_track_and_figure_under_each_task(live):
    shown = live["board"]
    assert shown["primary_index"] == 6
    assert [t["name"] for t in shown["tasks"]] == ["st1", "st2"]
    for task in shown["tasks"]:  # Codabench shows every column under every task
        assert [(c["key"], c["title"]) for c in task["columns"]] == [
            ("st1_score", "ST1 score"), ("st1_hazard_f1", "ST1 hazard-category F1"),
            ("st1_product_f1", "ST1 product-category F1"), ("st2_score", "ST2 score"), ("st2_hazard_f1",
                                                                                         "ST2 hazard F1"),
            ("st2_product_f1", "ST2 product F1"), ("avg_score", "ST1 and ST2 average score")]


def test_the_leaderboard_rows_hold_each_runs_scores_and_no_average_but_a_single_tracks(live):
    rows = dict((row["owner"], row) for row in live["board"]["submissions"])
    assert sorted(rows) == sorted(TEAMS)
    for team, result in live["submitted"].items():
        got = dict((s["column_key"], float(s["score"])) for s in rows[team]["scores"])
        want = dict((k, round(v, 4)) for k, v in result["scores"].items())
        if team != "e-fh-st1":
            del want["avg_score"]  # stored on the submission, never on a row of its runs
        assert got == want, (team, got, want)


def test_the_sites_order_is_the_model_of_it_and_not_the_averages(live):
    listing, shown = live["listing"], live["board"]
    columns = [(c["key"], c["sorting"]) for c in shown["tasks"][0]["columns"]]
    entries = [board.Entry(s["parent"] or s["id"], s["owner"], s["created_when"],
                           dict((c["column_key"], float(c["score"])) for c in s["scores"]))
               for s in listing if not s.get("has_children") and s.get("on_leaderboard")]
    team = dict((s["id"], s["owner"]) for s in listing)
    site = [row["owner"] for row in shown["submissions"]]
    assert [team[r] for r in board.row_order(entries, columns, "avg_score")] == site
    by_average = [t for t, _ in sorted(live["submitted"].items(), key=lambda kv: -kv[1]["scores"]["avg_score"])]
    assert site != by_average  # what the README says: Codabench does not order a phase of several tasks by it
    print("\ncompetition %s: the site shows %s; by avg_score: %s" % (live["competition"], ", ".join(site), ", ".join(
        "%s %.4f" % (t, live["submitted"][t]["scores"]["avg_score"]) for t in by_average)))


def test_results_rank_by_the_average_and_audit_the_site(live):
    proc = _cli(live["organizer"]["CODABENCH_TOKEN"], "results", "--competition", live["competition"], "--phase",
                PHASE, "--no-significance", "-o", live["tmp"] / "results", "--cache", live["tmp"] / "cache",
                "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    found = json.loads(proc.stdout)
    assert found["audit"] == []  # every stored score, the averages included, equals the local one to 10 decimals
    by_average = [t for t, _ in sorted(live["submitted"].items(), key=lambda kv: -kv[1]["scores"]["avg_score"])]
    assert [r["team"] for r in found["rows"]] == by_average and [r["rank"] for r in found["rows"]] == [1, 2, 3, 4]
    for row in found["rows"]:
        site = live["submitted"][row["team"]]["scores"]
        assert sorted(row["scores"]) == sorted(site)
        assert all(round(row["scores"][k], 10) == round(v, 10) for k, v in site.items())
    notes = (live["tmp"] / "results" / "results.md").read_text(encoding="utf-8").replace("\\", "")
    assert "The site's leaderboard shows these teams in another order: %s." % ", ".join(
        row["owner"] for row in live["board"]["submissions"]) in notes


def test_rescore_of_the_same_zips_ranks_as_results(live):
    output = live["tmp"] / "rescored.csv"
    zips = [live["zips"][t] for t in TEAMS if t != "e-fh-st1"]
    proc = _cli(live["organizer"]["CODABENCH_TOKEN"], "rescore", live["bundle"], *zips, "--phase", PHASE, "-o",
                output)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = list(csv.DictReader(output.open(encoding="utf-8")))
    names = dict((live["zips"][t].name, t) for t in TEAMS)
    ranked = [t for t, r in sorted(live["submitted"].items(), key=lambda kv: -kv[1]["scores"]["avg_score"])
              if t != "e-fh-st1"]
    assert [names[r["submission"]] for r in rows] == ranked
    for row in rows:
        site = live["submitted"][names[row["submission"]]]["scores"]
        assert all(round(float(row[k]), 10) == round(v, 10) for k, v in site.items())
