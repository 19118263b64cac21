"""task.yaml's private items, private_scores, blind and reveal, built into bundles (authoring/private_items.py), read
by Codabench's own import, validated, updated at the reveal, and scored offline by results --private."""
import io
import json
import subprocess
import sys
import zipfile

import pytest
import yaml

import codabench_import

from codalab_bundles.authoring import build, taskdef
from codalab_bundles.site import live_update
from codalab_bundles.validate import validate
from conftest import ROOT
from private_example import TASK, mean_f1, private_posts, read_predictions, read_test_gold, write_competition



def _build(folder):
    outcome = build.build(TASK, folder / "dist", bundles_dir=folder / "bundles")
    assert outcome.ok, (outcome.error, [(s.phase, s.platform, s.status, s.stderr) for s in outcome.samples])
    return outcome


def _inner(bundle, name):
    with zipfile.ZipFile(str(bundle)) as archive:
        return zipfile.ZipFile(io.BytesIO(archive.read(name)))


def _spec(bundle):
    with zipfile.ZipFile(str(bundle)) as archive:
        return yaml.safe_load(archive.read("competition.yaml"))


@pytest.fixture(scope="module")
def private_bundle(tmp_path_factory):
    folder = write_competition(tmp_path_factory.mktemp("private"))
    return folder, _build(folder)


def test_each_phase_gets_the_reference_its_marks_say(private_bundle):
    folder, outcome = private_bundle
    bundle = outcome.built.codabench
    spec = _spec(bundle)
    assert [(t["name"], t["reference_data"]) for t in spec["tasks"]] == [
        ("trial split", "reference_trial.zip"), ("test split", "reference_test.zip"),
        ("test split, private scores", "reference_test_full.zip")]
    assert [p["tasks"] for p in spec["phases"]] == [[0], [1], [2]]
    assert spec["phases"][2]["auto_migrate_to_this_phase"] is True
    assert sorted(_inner(bundle, "reference_test.zip").namelist()) == ["private_ids.txt", "tsd_test_sample.csv"]
    assert sorted(_inner(bundle, "reference_test_full.zip").namelist()) == [
        "private_ids.txt", "private_scoring.txt", "tsd_test_sample.csv"]
    assert _inner(bundle, "reference_test.zip").read("private_ids.txt").decode() == "".join(
        "%d\n" % i for i in private_posts(120))
    assert sorted(_inner(bundle, "reference_trial.zip").namelist()) == ["gold_is_public.txt", "tsd_trial_sample.csv"]
    # nothing participants get says which posts are private
    for name in ("public_data_test.zip", "starting_kit_test.zip"):
        assert not [n for n in _inner(bundle, name).namelist()
                    if n.rsplit("/", 1)[-1] in ("private_ids.txt", "private_scoring.txt", "scores_withheld.txt")]
    columns = spec["leaderboards"][0]["columns"]
    assert [(c["key"], c.get("hidden", False)) for c in columns] == [
        ("spans_F1", False), ("private_spans_F1", True), ("spans_precision", False), ("spans_recall", False)]
    # the v1.5 bundle: each phase its own reference
    v15 = _spec(outcome.built.codalab)
    assert [p["reference_data"] for p in v15["phases"].values()] == [
        "reference_trial.zip", "reference_test.zip", "reference_test_full.zip"]


def test_the_sample_replays_give_the_public_figure_then_both(private_bundle):
    folder, outcome = private_bundle
    gold = read_test_gold(folder)
    private = private_posts(len(gold))
    public = [i for i in range(len(gold)) if i not in private]
    from codalab_bundles import replay
    with zipfile.ZipFile(str(outcome.built.codabench)) as archive:
        kit = zipfile.ZipFile(io.BytesIO(archive.read("starting_kit_test.zip")))
        sample = folder / "sample.zip"
        sample.write_bytes(kit.read("sample_submission.zip"))
    predicted = read_predictions(sample)
    evaluation = replay.replay(outcome.built.codabench, str(sample), 2)
    final = replay.replay(outcome.built.codabench, str(sample), 3)
    assert evaluation["status"] == final["status"] == "Finished"
    assert set(evaluation["scores"]) == {"spans_F1"}
    assert evaluation["scores"]["spans_F1"] == pytest.approx(mean_f1(gold, predicted, public), abs=1e-12)
    assert set(final["scores"]) == {"spans_F1", "private_spans_F1"}
    assert final["scores"]["private_spans_F1"] == pytest.approx(mean_f1(gold, predicted, private), abs=1e-12)
    # the private figure is not what the whole test set gives, nor the public one
    whole = mean_f1(gold, predicted, range(len(gold)))
    assert len({round(whole, 6), round(final["scores"]["private_spans_F1"], 6),
                round(final["scores"]["spans_F1"], 6)}) == 3
    assert "%.4f" % final["scores"]["private_spans_F1"] not in final["stdout"] + final["stderr"]


def test_rebuilds_are_byte_identical(private_bundle, tmp_path):
    folder, outcome = private_bundle
    again = build.build(TASK, tmp_path / "dist", bundles_dir=folder / "bundles", check=False)
    for platform in ("codabench", "codalab"):
        assert getattr(again.built, platform).read_bytes() == getattr(outcome.built, platform).read_bytes()


def test_the_reveal_changes_only_the_hidden_flags(tmp_path):
    before = _build(write_competition(tmp_path / "before", shape="blind")).built.codabench
    after = _build(write_competition(tmp_path / "after", shape="blind", reveal=True)).built.codabench
    spec_before, spec_after = _spec(before), _spec(after)
    assert spec_before["phases"][1]["hide_score_output"] is spec_before["phases"][1]["hide_prediction_output"] is True
    assert "hide_output" not in spec_before["phases"][1]  # the participant still reads the errors of a bad submission
    assert [c.get("hidden", False) for c in spec_before["leaderboards"][0]["columns"]] == [False, True, False, False]
    for spec in (spec_before, spec_after):
        for phase in spec["phases"]:
            phase.pop("hide_score_output", None)
            phase.pop("hide_prediction_output", None)
        for column in spec["leaderboards"][0]["columns"]:
            column.pop("hidden", None)
    assert spec_before == spec_after
    with zipfile.ZipFile(str(before)) as a, zipfile.ZipFile(str(after)) as b:
        assert [n for n in a.namelist() if a.read(n) != b.read(n)] == ["competition.yaml"]
    # what publish --update ID shows and applies at the reveal
    live = _fake_live(before, submissions=4)
    found = live_update.changes(live_update.bundle_view(after), live_update.live_view(live), 7)
    assert [(c.where, c.live, c.wanted, c.refused) for c in found] == [
        ("column private_spans_F1 hidden", True, False, None),
        ("phase 2 hide_prediction_output", True, False, None),
        ("phase 2 hide_score_output", True, False, None)]
    method, path, payload = found[0].apply
    assert (method, path) == ("PATCH", "/api/competitions/7/")
    assert [(c["id"], c["key"], c["hidden"]) for c in payload["leaderboards"][0]["columns"]] == [
        (500, "spans_F1", False), (501, "private_spans_F1", False), (502, "spans_precision", False),
        (503, "spans_recall", False)]  # every column by its id: none is deleted, no score lost
    assert [p["id"] for p in payload["phases"]] == [101, 102, 103] and payload["whitelist_emails"] == []
    assert payload["phases"][0]["tasks"] == [{"task": "key-0", "phase": 101, "order_index": 0}]
    assert found[1].apply == ("PATCH", "/api/phases/102/", {"hide_prediction_output": False,
                                                             "hide_score_output": False})


def _fake_live(bundle, submissions=0):
    """GET /api/competitions/<id>/ of ``bundle`` as the site returns it (the fields update reads)."""
    spec = _spec(bundle)
    view = live_update.bundle_view(bundle)
    phases = []
    for index, (phase, source) in enumerate(zip(view["phases"], spec["phases"])):
        phases.append(dict([(k, v) for k, v in phase.items() if k not in ("start", "end")], id=101 + index,
                           index=index, start=phase["start"].strftime("%Y-%m-%dT%H:%M:%SZ"),
                           end=phase["end"] and phase["end"].strftime("%Y-%m-%dT%H:%M:%SZ"),
                           tasks=[{"task": "key-%d" % index, "phase": 101 + index, "order_index": 0,
                                   "name": spec["tasks"][source["tasks"][0]]["name"]}]))
    board = spec["leaderboards"][0]
    return {"id": 7, "title": view["title"], "description": view["description"], "terms": view["terms"],
            "pages": [{"id": 201 + i, "index": i, "title": t, "content": c} for i, (t, c) in enumerate(view["pages"])],
            "phases": phases, "submissions_count": submissions, "whitelist_emails": [],
            "leaderboards": [{"id": 9, "title": board["title"], "key": board["key"], "hidden": False,
                              "submission_rule": board["submission_rule"], "primary_index": 0,
                              "columns": [dict(id=500 + i, key=c["key"], title=c["title"], index=c["index"],
                                               sorting=c["sorting"], precision=c["precision"],
                                               hidden=c.get("hidden", False), computation=None,
                                               computation_indexes=None) for i, c in enumerate(board["columns"])]}]}


def test_a_blind_phase_withholds_every_score(tmp_path):
    folder = write_competition(tmp_path / "blind", shape="blind")
    outcome = _build(folder)
    bundle = outcome.built.codabench
    spec = _spec(bundle)
    assert [(t["name"], t["reference_data"]) for t in spec["tasks"]] == [
        ("trial split", "reference_trial.zip"), ("test split, scores withheld", "reference_test_withheld.zip"),
        ("test split, private scores", "reference_test_full.zip")]
    assert sorted(_inner(bundle, "reference_test_withheld.zip").namelist()) == [
        "private_ids.txt", "scores_withheld.txt", "tsd_test_sample.csv"]
    sample = [s for s in outcome.samples if s.phase == 2 and s.platform == "Codabench"][0]
    assert sample.status == "Finished" and sample.scores == {}
    _, findings = validate(str(bundle), replay=True)
    assert [f for f in findings if f.severity != "note"] == [], findings
    assert [f.message for f in findings if f.rule == "exposure" and f.where == "phases.1"] == [
        "blind phase: its program writes no figure; hide_score_output, hide_prediction_output hide the outputs from "
        "their owner, and any signed-in account can turn them off (PATCH /api/phases/<id>/ checks no permission)"]


def test_private_items_from_a_gold_column(tmp_path):
    folder = write_competition(tmp_path / "column", by_column=True)
    bundle = _build(folder).built.codabench
    gold = _inner(bundle, "reference_test.zip")
    assert gold.read("private_ids.txt").decode() == "".join("%d\n" % i for i in private_posts(120))
    header = gold.read("tsd_test_sample.csv").decode().splitlines()[0]
    assert header == "spans,text"  # the marking column is gone: nothing the program or the hooks see has it
    public = _inner(bundle, "public_data_test.zip")
    assert not [n for n in public.namelist() if "subset" in public.read(n).decode()]


def test_the_validator_passes_the_recommended_shape_and_says_when_it_reveals(private_bundle):
    _, outcome = private_bundle
    _, findings = validate(str(outcome.built.codabench), replay=True)
    assert [f for f in findings if f.severity != "note"] == [], findings
    assert [f.message for f in findings if f.rule == "exposure"] == [
        "hidden until the reveal; no phase computes it before phase 3 (private_scores, after the deadline, "
        "re-scoring the migrated submissions): from then on anyone can read it through the API, hidden or not"]


def test_codabench_import_stores_the_shape(private_bundle, tmp_path):
    _, outcome = private_bundle
    blind = _build(write_competition(tmp_path / "blind", shape="blind")).built.codabench
    revealed = _build(write_competition(tmp_path / "revealed", shape="blind", reveal=True)).built.codabench
    stored = codabench_import.import_or_skip([outcome.built.codabench, blind, revealed])
    assert [s["ok"] for s in stored] == [True, True, True], stored
    hidden = {"private": True, "blind": True, "revealed": False}
    flags = {"private": False, "blind": True, "revealed": False}
    for result, shape, middle in zip(stored, ("private", "blind", "revealed"),
                                     ("test split", "test split, scores withheld", "test split, scores withheld")):
        competition = result["competition"]
        assert [p["tasks"] for p in competition["phases"]] == [["trial split"], [middle],
                                                               ["test split, private scores"]]
        settings = [p["settings"] for p in competition["phases"]]
        assert [s["auto_migrate_to_this_phase"] for s in settings] == [False, False, True]
        assert [(s["hide_output"], s["hide_score_output"], s["hide_prediction_output"]) for s in settings] == [
            (False, False, False), (False, flags[shape], flags[shape]), (False, False, False)]
        # the import tool lists the leaderboards made while it ran: another import at the same time adds its own
        board = [b for b in competition["leaderboards"] if "private_spans_F1" in [c["key"] for c in b["columns"]]][0]
        assert [(c["key"], c["hidden"]) for c in board["columns"]] == [
            ("spans_F1", False), ("private_spans_F1", hidden[shape]), ("spans_precision", False),
            ("spans_recall", False)]
        assert board["submission_rule"] == "Force_Last" and board["hidden"] is False


BAD = [
    ("private names a split no phase uses", lambda y: y.replace("private:\n  test:", "private:\n  dev:"),
     "private names splits no phase uses: dev"),
    ("private items in a public gold", lambda y: y.replace("gold_public:\n  trial: true",
                                                          "gold_public:\n  trial: true\n  test: true"),
     "split test is gold_public and has private items"),
    ("private_scores in the first phase of the split", lambda y: y.replace(
        "    max_submissions: 10\n", "    max_submissions: 10\n    private_scores: true\n"),
     "phase 2: writes the private figures of split test, and no earlier phase scores its public items alone"),
    ("no private column", lambda y: y.replace("    - key: private_spans_F1\n      label: F1 (private)\n", ""),
     "phase 3: private_scores, and the leaderboard has no column private_spans_F1"),
    ("blind with Force_Best", lambda y: y.replace("    max_submissions: 10\n", "    max_submissions: 10\n    "
                                                  "blind: true\n").replace("Force_Last", "Force_Best"),
     "phase 2: blind, and the leaderboard's submission_rule is Force_Best"),
    ("a private column without private items", lambda y: y.replace("private:\n  test:\n    ids: private_ids.txt\n",
                                                                   "").replace("    private_scores: true\n", ""),
     "column private_spans_F1: private_ columns are written only for splits with private items"),
    ("private_scores on a split without private items", lambda y: y.replace(
        "private:\n  test:\n    ids: private_ids.txt\n", ""), "phase 3: private_scores, but split test has no private"),
    ("an ids file that is not there", lambda y: y.replace("ids: private_ids.txt", "ids: missing.txt"),
     "the private ids %s cannot be read"),
    ("a column no gold table has", lambda y: y.replace("    ids: private_ids.txt\n",
                                                       "    column: subset\n    value: private\n"),
     "private: test: no gold tables of"),
    ("neither ids nor column", lambda y: y.replace("    ids: private_ids.txt\n", "    value: private\n"),
     "private.test must be {ids: FILE}"),
]


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_task_definition_mistakes(tmp_path, case):
    _, edit, message = case
    folder = write_competition(tmp_path / "c")
    path = folder / "bundles" / TASK / "task.yaml"
    path.write_text(edit(path.read_text()))
    with pytest.raises(taskdef.TaskDefinitionError) as info:
        taskdef.load_task(TASK, bundles_dir=folder / "bundles")
    assert message.replace("%s", str(folder / "missing.txt")) in str(info.value)


def test_ids_that_are_no_items_fail_the_build_at_the_sample_replay(tmp_path):
    folder = write_competition(tmp_path / "c")
    (folder / "private_ids.txt").write_text("3\n999\n")
    outcome = build.build(TASK, folder / "dist", bundles_dir=folder / "bundles")
    failed = [s for s in outcome.samples if s.failed]
    assert failed and not outcome.ok and outcome.removed
    assert failed[0].stderr.strip() == ("Reference data error (a problem for the organizers, not your submission): "
                                        "private_ids.txt, line 2: not the id of a post the program scored")


def test_results_private_ranks_the_counted_runs_by_their_private_figure(private_bundle, tmp_path):
    folder, outcome = private_bundle
    gold = read_test_gold(folder)
    private = private_posts(len(gold))
    public = [i for i in range(len(gold)) if i not in private]
    with zipfile.ZipFile(str(outcome.built.codabench)) as archive:
        kit = zipfile.ZipFile(io.BytesIO(archive.read("starting_kit_test.zip")))
        sample = kit.read("sample_submission.zip")
    text = zipfile.ZipFile(io.BytesIO(sample)).read("spans-pred.txt").decode()
    runs = tmp_path / "runs"

    def run(team, name, keep):  # the sample with the spans of the posts ``keep`` refuses emptied
        (runs / team).mkdir(parents=True, exist_ok=True)
        lines = [line if keep(int(line.split("\t")[0])) else line.split("\t")[0] + "\t[]"
                 for line in text.splitlines()]
        with zipfile.ZipFile(str(runs / team / name), "w") as out:
            out.writestr("spans-pred.txt", "\n".join(lines) + "\n")
    run("alpha", "run1.zip", lambda post: post in private)  # good on the private posts only
    run("alpha", "run2.zip", lambda post: True)
    run("beta", "run1.zip", lambda post: post not in private)  # good on the public posts only
    out = tmp_path / "paper"
    proc = subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "results", str(runs), "--bundle",
                           str(outcome.built.codabench), "--phase", "2", "--private", "--no-significance", "--json",
                           "-o", str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = json.loads(proc.stdout)["rows"]
    scores = dict((row["team"], row["scores"]) for row in rows)
    for team, name in (("alpha", "run2.zip"), ("beta", "run1.zip")):  # alpha's counted run: its best public one
        predicted = read_predictions(runs / team / name)
        assert scores[team]["spans_F1"] == pytest.approx(mean_f1(gold, predicted, public), abs=1e-9)
        assert scores[team]["private_spans_F1"] == pytest.approx(mean_f1(gold, predicted, private), abs=1e-9)
    assert [row["team"] for row in rows] == sorted(scores, key=lambda t: -scores[t]["private_spans_F1"])
    assert [row["run"] for row in rows if row["team"] == "alpha"] == ["alpha/run2"]
    participants = (out / "participants" / "results.csv").read_text()
    assert "private" not in participants.split("\n")[0].lower()  # hidden until the reveal
