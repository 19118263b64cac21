"""Tracks and computed columns (issue 40): task.yaml's ``tracks:``, a phase's ``tracks:``, ``leaderboard.primary`` and
columns with ``computation``/``of``, from task.yaml to the bundles, the scoring runtime (scoring_tracks.py), the
replay, rescore, results and validate; and Codabench's own import of the tracks bundle (skipped without the tool).

The example is food-hazard as two tracks (bundles/food-hazard/task-tracks.yaml), built in a copy of the competition
folder. What Codabench's site does with a phase of several tasks is modelled in platforms/codabench_leaderboard.py and
checked here on hand-made cases taken from the local Codabench (tests/test_tracks_live.py checks it there)."""
import csv
import decimal
import io
import json
import shutil
import subprocess
import sys
import zipfile

import pytest
import yaml

from codalab_bundles import replay, validate
from codalab_bundles.authoring import build, taskdef, tracks
from codalab_bundles.offline import rescore
from codalab_bundles.platforms import codabench_leaderboard as board
from codalab_bundles.results import run as results_run
from codalab_bundles.results import runs as results_runs
from conftest import ROOT

TASK = "food-hazard"
ST1 = ["st1_score", "st1_hazard_f1", "st1_product_f1"]
ST2 = ["st2_score", "st2_hazard_f1", "st2_product_f1"]


def competition(folder, edit=None):
    """A copy of the competition folder's food-hazard with bundles/food-hazard/task-tracks.yaml as its task.yaml,
    edited by ``edit(spec)``; returns the folder."""
    for home in ("bundles", "scoring_programs", "reference_data"):
        shutil.copytree(str(ROOT / home / TASK), str(folder / home / TASK))
    shutil.copytree(str(ROOT / "scoring_programs" / "common"), str(folder / "scoring_programs" / "common"))
    spec = yaml.safe_load((ROOT / "bundles" / TASK / "task-tracks.yaml").read_text(encoding="utf-8"))
    if edit is not None:
        edit(spec)
    (folder / "bundles" / TASK / "task.yaml").write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return folder


def load(folder):
    return taskdef.load_task(TASK, bundles_dir=folder / "bundles")


@pytest.fixture(scope="module")
def tracked(tmp_path_factory):
    """The tracks example built: (task, Built)."""
    folder = competition(tmp_path_factory.mktemp("tracks"))
    task = load(folder)
    return task, build.build_task(task, folder / "dist")


def _yaml(path):
    with zipfile.ZipFile(str(path)) as archive:
        return yaml.safe_load(archive.read("competition.yaml"))


def _member(path, name):
    with zipfile.ZipFile(str(path)) as archive:
        return archive.read(name)


# --- task.yaml to the Codabench bundle ----------------------------------------------------------------------------


def test_each_track_and_split_is_a_codabench_task_and_each_phase_lists_its_tracks(tracked):
    task, built = tracked
    spec = _yaml(built.codabench)
    assert [(t["index"], t["name"], t["scoring_program"], t["reference_data"]) for t in spec["tasks"]] == [
        (0, "st1", "scoring_program_st1.zip", "reference_valid.zip"),
        (1, "st2", "scoring_program_st2.zip", "reference_valid.zip"),
        (2, "st1", "scoring_program_st1.zip", "reference_test.zip"),
        (3, "st2", "scoring_program_st2.zip", "reference_test.zip")]
    assert [p["tasks"] for p in spec["phases"]] == [[0, 1], [2, 3], [2, 3]]


def test_one_column_per_track_and_figure_then_the_computed_one_which_ranks(tracked):
    _, built = tracked
    lb = _yaml(built.codabench)["leaderboards"][0]
    assert [(c["index"], c["key"], c["title"]) for c in lb["columns"]] == [
        (0, "st1_score", "ST1 score"), (1, "st1_hazard_f1", "ST1 hazard-category F1"),
        (2, "st1_product_f1", "ST1 product-category F1"), (3, "st2_score", "ST2 score"),
        (4, "st2_hazard_f1", "ST2 hazard F1"), (5, "st2_product_f1", "ST2 product F1"),
        (6, "avg_score", "ST1 and ST2 average score")]
    assert lb["columns"][6]["computation"] == "avg" and lb["columns"][6]["computation_indexes"] == [0, 3]
    assert lb["primary_index"] == 6 and "computation" not in lb["columns"][0]


def test_each_tracks_program_is_the_program_with_its_track_json(tracked):
    _, built = tracked
    plain = zipfile.ZipFile(io.BytesIO(_member(built.codabench, "scoring_program.zip")))
    for name, keys in (("st1", ST1), ("st2", ST2)):
        program = zipfile.ZipFile(io.BytesIO(_member(built.codabench, "scoring_program_%s.zip" % name)))
        assert sorted(program.namelist()) == sorted(plain.namelist() + ["track.json"])
        assert all(program.read(n) == plain.read(n) for n in plain.namelist())
        assert json.loads(program.read("track.json")) == {"name": name, "keys": keys, "prefix": ""}
    assert "track.json" not in plain.namelist()  # the starting kit's and CodaLab's program write every score


def test_the_tracks_bundle_is_byte_identical_when_rebuilt(tracked, tmp_path):
    task, built = tracked
    again = build.build_task(task, tmp_path)
    assert again.codabench.read_bytes() == built.codabench.read_bytes()
    assert again.codalab.read_bytes() == built.codalab.read_bytes()


def test_the_v15_bundle_scores_every_track_in_one_run_without_the_computed_column(tracked):
    task, built = tracked
    spec = _yaml(built.codalab)
    columns = spec["leaderboard"]["columns"]
    assert list(columns) == ST1 + ST2  # one program run writes them all; v1.5 has no average of values
    assert columns["st1_score"]["selection_default"] == 1
    assert all(p["scoring_program"] == "scoring_program.zip" for p in spec["phases"].values())
    notes = tracks.notes(task)
    assert any("scores every track in one run" in n for n in notes)
    assert any("leaves out the computed column avg_score" in n and "ranks by st1_score" in n for n in notes)
    assert any("shows no computed column there" in n for n in notes)


def test_a_task_without_tracks_keeps_its_bundle_as_it_was():
    task = taskdef.load_task(TASK)
    assert [t.name for t in task.codabench_tasks] == ["valid split", "test split"]
    assert [c.title for c in task.board] == [c.label for c in task.columns] and task.primary.key == "st1_score"
    assert tracks.notes(task) == [] and task.built_v15


def _languages(spec):
    """Two tracks scored by the same program with the same keys, told apart by a prefix; the second with gold of
    its own for the test split."""
    spec["tracks"] = [{"name": "en", "label": "English", "keys": ["st1_score"], "prefix": "en_"},
                      {"name": "fr", "label": "French", "keys": ["st1_score"], "prefix": "fr_",
                       "splits": {"test": "reference_data/food-hazard/test"}}]
    spec["leaderboard"]["primary"] = "en_st1_score"
    spec["leaderboard"]["columns"][-1]["of"] = ["en_st1_score", "fr_st1_score"]


def test_prefixed_tracks_and_gold_of_their_own_make_no_v15_bundle(tmp_path):
    folder = competition(tmp_path / "c", _languages)
    task = load(folder)
    (folder / "dist").mkdir()
    stale = folder / "dist" / "food-hazard-v1.5.zip"
    stale.write_bytes(b"an older build")
    built = build.build_task(task, folder / "dist")
    assert built.codalab is None and not stale.exists()
    spec = _yaml(built.codabench)
    assert [(t["name"], t["reference_data"]) for t in spec["tasks"]] == [
        ("en", "reference_valid.zip"), ("fr", "reference_valid.zip"), ("en", "reference_test.zip"),
        ("fr", "reference_fr_test.zip")]
    assert [(c["key"], c["title"]) for c in spec["leaderboards"][0]["columns"]] == [
        ("en_st1_score", "English score"), ("fr_st1_score", "French score"),
        ("avg_score", "ST1 and ST2 average score")]
    assert spec["leaderboards"][0]["columns"][2]["computation_indexes"] == [0, 1]
    assert "primary_index" not in spec["leaderboards"][0]  # the first column: Codabench's default 0
    assert json.loads(zipfile.ZipFile(io.BytesIO(_member(
        built.codabench, "scoring_program_fr.zip"))).read("track.json")) == {
            "name": "fr", "keys": ["st1_score"], "prefix": "fr_"}
    assert any("no CodaLab v1.5 bundle" in n and "en, fr" in n for n in tracks.notes(task))
    report = replay.replay(built.codabench, None, 2)
    assert sorted(report["scores"]) == ["avg_score", "en_st1_score", "fr_st1_score"]
    assert report["scores"]["en_st1_score"] == report["scores"]["fr_st1_score"]  # the same gold here


def test_a_phase_may_score_some_tracks_only(tmp_path):
    def edit(spec):
        spec["phases"][0]["tracks"] = ["st1"]
    task = load(competition(tmp_path, edit))
    assert [(t.index, t.name, t.split) for t in task.codabench_tasks] == [
        (0, "st1", "valid"), (1, "st1", "test"), (2, "st2", "test")]
    assert [tracks.phase_task_indexes(task, p) for p in task.phases] == [[0], [1, 2], [1, 2]]


def test_shorten_cuts_the_column_label_readably():
    # 23 + 1 + 25 characters: the column label keeps 36 - 23 - 2 = 11 of its characters and an ellipsis
    assert tracks.shorten("English (United States)", "product-category macro F1") == \
        "English (United States) product-cat\u2026"
    assert len(tracks.shorten("English (United States)", "product-category macro F1")) == 36
    assert tracks.shorten("ST1", "score") == "ST1 score"


@pytest.mark.parametrize("edit, message", [
    (lambda s: s["tracks"].append(dict(s["tracks"][0])), "track st1 appears twice"),
    (lambda s: s["tracks"][1].update(keys=["st1_score"]),
     "track st1 and track st2 both put column st1_score on the leaderboard"),
    (lambda s: s["tracks"][0].update(keys=["nope"]), "track st1: keys nope are not columns"),
    (lambda s: s["tracks"][0].update(prefix="p" * 30), "is 39 characters, over Codabench's 36: shorten the prefix"),
    (lambda s: [t.update(label="Exactly thirty characters long") for t in s["tracks"]] and
     [c.update(label="F1 of the hazard, then product") for c in s["leaderboard"]["columns"][:6]],
     "would both be titled"),
    (lambda s: s["leaderboard"].update(primary="nope"), "leaderboard.primary nope is not a column"),
    (lambda s: s["leaderboard"]["columns"][-1].update(computation="avg_rank"),
     "leaderboard.primary avg_score is an avg_rank column, which Codabench (c7dbc756) cannot compute"),
    (lambda s: s["leaderboard"]["columns"][-1].update(of=["st1_score", "avg_score"]), "is computed of itself"),
    (lambda s: s["leaderboard"]["columns"][-1].pop("of"), "computation and of go together"),
    (lambda s: s["phases"][1].update(tracks=["st3"]), "phase 2: no track named st3 (tracks: st1, st2)"),
    (lambda s: s["leaderboard"].update(submission_rule="Force_Last"),
     "submission_rule Force_Last cannot be used with tracks"),
    (lambda s: s["leaderboard"].update(submission_rule="Force_Best"), "the run it keeps is one without"),
    (lambda s: s["tracks"][0].update(name="ST1"), "track name 'ST1' must be 1-36 characters of a-z 0-9 _"),
])
def test_what_codabench_cannot_show_is_refused_with_the_fix(tmp_path, edit, message):
    with pytest.raises(taskdef.TaskDefinitionError) as caught:
        load(competition(tmp_path, edit))
    assert message in str(caught.value)


def test_an_avg_rank_column_stays_out_of_the_codabench_bundle(tmp_path):
    def edit(spec):
        spec["leaderboard"]["columns"].append({"key": "rank", "label": "average rank", "computation": "avg_rank",
                                               "of": ["st1_score", "st2_score"]})
    task = load(competition(tmp_path, edit))
    built = build.build_task(task, tmp_path / "dist")
    keys = [c["key"] for c in _yaml(built.codabench)["leaderboards"][0]["columns"]]
    assert "rank" not in keys and keys[-1] == "avg_score"
    assert task.board[-1].key == "rank" and task.board[-1].index is None and task.board[-1].sort == "asc"
    assert any("rank (avg_rank) is left out of the Codabench bundle" in n for n in tracks.notes(task))


# --- the scoring runtime: a track's program keeps its track's scores ----------------------------------------------


def _program(folder, track=None):
    task = taskdef.load_task(TASK)
    folder.mkdir(parents=True)
    for name, data in build.program_entries(task):
        (folder / name).write_bytes(data)
    if track is not None:
        (folder / "track.json").write_text(json.dumps(track), encoding="utf-8")
    return folder


def _run(program, tmp_path, submission, name="run"):
    base = tmp_path / name
    (base / "input" / "ref").mkdir(parents=True)
    (base / "input" / "res").mkdir(parents=True)
    shutil.copy(str(ROOT / "reference_data" / TASK / "valid" / "incidents_valid_sample.csv"),
                str(base / "input" / "ref"))
    (base / "input" / "res" / "submission.csv").write_text(submission, encoding="utf-8")
    proc = subprocess.run([sys.executable, str(program / "evaluate.py"), str(base / "input"), str(base / "output")],
                          capture_output=True, text=True)
    scores = base / "output" / "scores.json"
    return proc, (json.loads(scores.read_text()) if scores.exists() else None)


def _sample():
    with zipfile.ZipFile(str(build.build_task(taskdef.load_task(TASK), _sample.dist).codabench)) as bundle:
        kit = zipfile.ZipFile(io.BytesIO(bundle.read("starting_kit_valid.zip")))
    return zipfile.ZipFile(io.BytesIO(kit.read("sample_submission.zip"))).read(
        "submission.csv").decode("utf-8")


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    _sample.dist = tmp_path_factory.mktemp("plain")
    return _sample()


def test_a_tracks_program_writes_its_tracks_scores_only_with_their_prefix(tmp_path, sample):
    _, every = _run(_program(tmp_path / "plain"), tmp_path, sample, "plain")
    proc, st2 = _run(_program(tmp_path / "st2", {"name": "st2", "keys": ST2, "prefix": "x_"}), tmp_path, sample)
    assert proc.returncode == 0, proc.stderr
    signature = st2.pop("signature")
    assert st2 == dict(("x_" + k, every[k]) for k in ST2)
    # track.json is in the program, not in the gold: the gold's SHA-256 is the one every run reports
    assert signature["gold_sha256"] == every["signature"]["gold_sha256"]
    assert (tmp_path / "run" / "output" / "scores.txt").read_text().splitlines()[0].startswith("x_st2_score: ")


def test_a_tracks_program_fails_a_submission_without_its_scores_in_one_line(tmp_path, sample):
    st1_only = _csv([row[:3] for row in _rows(sample)])  # id, hazard-category, product-category
    proc, scores = _run(_program(tmp_path / "st2", {"name": "st2", "keys": ST2}), tmp_path, st1_only)
    assert proc.returncode == 1 and scores is None and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (
        "Submission error: this submission gives no score of track st2 (st2_score, st2_hazard_f1, st2_product_f1): "
        "ST1 scored on 60 rows (46 with the right hazard-category); ST2 not scored: submission.csv has no 'hazard' "
        "and 'product' columns")


def test_a_broken_track_json_is_the_organizers_error(tmp_path, sample):
    proc, scores = _run(_program(tmp_path / "bad", {"name": "st2", "keys": []}), tmp_path, sample)
    assert proc.returncode == 1 and scores is None
    assert proc.stderr.strip() == ("Scoring program error (a problem for the organizers, not your submission): "
                                   "track.json: keys must be a non-empty list of score keys")


# --- the replay: a phase of several tasks, as Codabench runs it ---------------------------------------------------


def test_the_replay_runs_every_task_and_fills_the_average_as_the_site(tracked):
    _, built = tracked
    report = replay.replay(built.codabench, None, 1)
    assert [(r["task"], r["status"]) for r in report["tasks"]] == [("st1", "Finished"), ("st2", "Finished")]
    assert sorted(report["tasks"][0]["scores"]) == sorted(ST1) and sorted(report["tasks"][1]["scores"]) == sorted(ST2)
    scores = report["scores"]
    # the site's avg: the mean of the two scores as it stores them (10 decimals), stored again
    expected = (decimal.Decimal("%.10f" % scores["st1_score"]) + decimal.Decimal("%.10f" % scores["st2_score"])) / 2
    assert scores["avg_score"] == float(expected.quantize(decimal.Decimal("1e-10"), rounding=decimal.ROUND_HALF_UP))
    assert report["columns_without_score"] == [] and report["status"] == "Finished"


def test_a_submission_to_one_track_gets_the_average_of_that_track_alone(tracked):
    _, built = tracked
    report = replay.replay(built.codabench, None, 1, tracks=["st1"])
    assert [r["task"] for r in report["tasks"]] == ["st1"]
    assert sorted(report["scores"]) == sorted(ST1 + ["avg_score"])
    assert report["scores"]["avg_score"] == round(report["scores"]["st1_score"], 10)
    with pytest.raises(replay.ReplayError, match="phase 1 has no task named st3 \\(its tasks: st1, st2\\)"):
        replay.replay(built.codabench, None, 1, tracks=["st3"])


# --- the site's leaderboard, modelled ------------------------------------------------------------------------------


def test_scores_are_stored_with_ten_decimals_half_up():
    assert board.stored(decimal.Decimal("0.00000000005")) == decimal.Decimal("1E-10")  # PostgreSQL: half up
    assert board.stored(0.5) == decimal.Decimal("0.5000000000")
    assert board.computed("avg", [0.25, 0.5]) == 0.375 and board.computed("avg", []) is None


def test_a_computed_column_is_over_the_values_the_submission_has():
    class Column(object):
        key, computation, fields = "avg", "avg", ["a", "b"]
    assert board.fill_computed({"a": 0.5}, [Column()]) == {"a": 0.5, "avg": 0.5}
    assert board.fill_computed({"a": 0.5, "b": 0.25}, [Column()])["avg"] == 0.375
    assert board.fill_computed({"c": 1.0}, [Column()]) == {"c": 1.0}


def test_average_ranks_are_fractional_ranks_averaged():
    # codabench#2351's example: A 0.90/0.80, B 0.70/0.95, C 0.80/0.70 -> 1.5, 2.0, 2.5
    rows = [{"a": 0.9, "b": 0.8}, {"a": 0.7, "b": 0.95}, {"a": 0.8, "b": 0.7}]
    assert board.average_ranks(rows, ["a", "b"], ["desc", "desc"]) == [1.5, 2.0, 2.5]
    # D ties A on a (places 1 and 2: 1.5 each) and C on b (places 3 and 4: 3.5 each); E has no b
    rows += [{"a": 0.9, "b": 0.7}, {"a": 0.1}]
    assert board.average_ranks(rows, ["a", "b"], ["desc", "desc"]) == [1.75, 2.5, 3.25, 2.5, None]
    assert board.average_ranks(rows[:3], ["a"], ["asc"]) == [3.0, 1.0, 2.0]


def test_the_leaderboard_order_of_a_phase_of_several_tasks_is_its_runs_order():
    # What the local Codabench showed (competition 89, phase 1): rows in the order e-robot5, e-robot3, e-robot2,
    # e-robot1, e-robot4, while avg_score (the primary column) would rank e-robot3, e-robot2, e-robot4 = e-robot5,
    # e-robot1. A run without avg_score (every child) comes first; among them the st2 runs (no st1 columns: first
    # by st1_score, descending) by st2_score, then by creation; e-robot5's st2 run failed (no score at all: first).
    st1 = dict(zip(ST1, (0.4472, 0.4609, 0.4336)))
    entries = [
        board.Entry(180, "e-robot2", 1, dict(zip(ST1, (0.7636, 0.7742, 0.7529)))),
        board.Entry(180, "e-robot2", 2, dict(zip(ST2, (0.3018, 0.3236, 0.28)))),
        board.Entry(182, "e-robot1", 3, st1), board.Entry(182, "e-robot1", 4, dict(zip(ST2, (0.3018, 0.3236, 0.28)))),
        board.Entry(183, "e-robot3", 5, st1), board.Entry(183, "e-robot3", 6, dict(zip(ST2, (1.0, 1.0, 1.0)))),
        board.Entry(190, "e-robot4", 7, dict(st1, avg_score=0.4472)),
        board.Entry(191, "e-robot5", 8, st1), board.Entry(191, "e-robot5", 9, {}),
    ]
    columns = [(k, "desc") for k in ST1 + ST2 + ["avg_score"]]
    assert board.row_order(entries, columns, "avg_score") == [191, 183, 180, 182, 190]
    # one task per phase: the primary column orders, then the others, then creation
    single = [board.Entry(1, "a", 1, {"s": 0.5, "t": 0.1}), board.Entry(2, "b", 2, {"s": 0.7, "t": 0.1}),
              board.Entry(3, "c", 3, {"s": 0.5, "t": 0.2})]
    assert board.row_order(single, [("s", "desc"), ("t", "desc")], "s") == [2, 3, 1]
    assert board.row_order(single, [("s", "asc"), ("t", "desc")], "s") == [3, 1, 2]


# --- rescore and results -------------------------------------------------------------------------------------------


def _rows(text):
    return list(csv.reader(io.StringIO(text)))


def _csv(rows):
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def _submissions(folder, sample):
    """Three runs of the validation phase: the sample, the sample with the gold's exact hazard and product (ST2
    perfect), and the sample's ST1 columns only."""
    with open(str(ROOT / "reference_data" / TASK / "valid" / "incidents_valid_sample.csv"), encoding="utf-8-sig") as f:
        gold = list(csv.DictReader(f))
    rows = _rows(sample)
    header = rows[0]
    folder.mkdir()
    made = {}
    for name, body in (("a-sample", rows), ("b-perfect-st2", [header] + [
            [r[0], r[1], r[2], g["hazard"], g["product"]] for r, g in zip(rows[1:], gold)]),
            ("c-st1-only", [r[:3] for r in rows])):
        path = folder / ("%s.zip" % name)
        with zipfile.ZipFile(str(path), "w") as archive:
            archive.writestr("submission.csv", _csv(body))
        made[name] = path
    return made


def test_rescore_ranks_by_the_average_and_adds_an_average_rank(tracked, tmp_path, sample):
    _, built = tracked
    _submissions(tmp_path / "runs", sample)
    columns, ranking, rows = rescore.rescore(str(built.codabench), [str(tmp_path / "runs")], 1,
                                             avg_ranks=["rank=st1_score,st2_score"])
    assert ranking.key == "avg_score" and columns[-1].key == "rank"
    by_name = dict((r["submission"], r) for r in rows)
    a, b, c = (by_name[n + ".zip"]["scores"] for n in ("a-sample", "b-perfect-st2", "c-st1-only"))
    assert b["st2_score"] == 1.0 and a["st1_score"] == b["st1_score"] == c["st1_score"]
    assert c["avg_score"] == round(c["st1_score"], 10) and "st2_score" not in c
    assert [r["submission"] for r in rows] == ["b-perfect-st2.zip", "c-st1-only.zip", "a-sample.zip"]
    assert by_name["c-st1-only.zip"]["status"] == "Finished"  # its st1 run scored; its st2 run failed
    # st1: a, b and c tied (places 1 to 3: 2 each); st2: b 1, a 2; c has no st2_score, so no average rank
    assert (a["rank"], b["rank"], "rank" in c) == ((2 + 2) / 2, (2 + 1) / 2, False)


def test_results_from_a_folder_rank_by_the_average_and_say_the_sites_order_differs(tracked, tmp_path, sample):
    _, built = tracked
    made = _submissions(tmp_path / "made", sample)
    runs = [results_runs.Run(name, name, 0, str(path)) for name, path in sorted(made.items())]
    found = results_run.compute(str(built.codabench), runs, 1, site_order=["a-sample", "b-perfect-st2"],
                                avg_ranks=["rank=st1_score,st2_score"])
    assert [(r.rank, r.team) for r in found.rows] == [(1, "b-perfect-st2"), (2, "c-st1-only"), (3, "a-sample")]
    notes = results_run.method_notes(found)
    assert any(n.startswith("The site's leaderboard shows these teams in another order: a-sample, b-perfect-st2, "
                            "c-st1-only.") for n in notes)
    by_rank = results_run.compute(str(built.codabench), runs, 1, by="rank", avg_ranks=["rank=st1_score,st2_score"])
    assert [(r.rank, r.team, r.scores["rank"]) for r in by_rank.rows] == [(1, "b-perfect-st2", 1.5),
                                                                         (2, "a-sample", 2.0)]


# --- validate, and Codabench's own import --------------------------------------------------------------------------


def test_validate_says_what_the_sites_leaderboard_does_with_several_tasks(tracked, tmp_path):
    from test_validate import rewrite
    _, built = tracked
    version, found = validate.validate(str(built.codabench), replay=False)
    assert [f.severity for f in found if f.severity != "note"] == []
    notes = [f.message for f in found if f.severity == "note"]
    assert any("Codabench computes avg_score on the submission" in n for n in notes)
    assert any("a run without it first" in n for n in notes)
    last = rewrite(built.codabench, tmp_path / "last.zip", lambda y: y.replace("submission_rule: Add",
                                                                                "submission_rule: Force_Last"))
    _, found = validate.validate(str(last), replay=False)
    assert any(f.severity == "warning" and "only the run that finished last stays" in f.message for f in found)


def test_codabench_imports_the_tracks_as_task_yaml_means_them(tracked):
    import codabench_import
    _, built = tracked
    found, = codabench_import.import_or_skip([built.codabench])
    assert found["ok"], found
    stored = found["competition"]
    # (the import tool lists a phase's tasks in no fixed order: a many-to-many relation)
    assert [(p["name"], sorted(p["tasks"])) for p in stored["phases"]] == [
        ("Conception", ["st1", "st2"]), ("Evaluation", ["st1", "st2"]), ("Post-Evaluation", ["st1", "st2"])]
    assert len(stored["tasks"]) == 4 and all(t["scoring_program"] and t["reference_data"] for t in stored["tasks"])
    lb, = stored["leaderboards"]
    assert (lb["primary_index"], lb["primary_column"], lb["used"]) == (6, "avg_score", True)
    assert [(c["key"], c["title"], c["computation"], c["computation_indexes"]) for c in lb["columns"]][3:] == [
        ("st2_score", "ST2 score", None, None), ("st2_hazard_f1", "ST2 hazard F1", None, None),
        ("st2_product_f1", "ST2 product F1", None, None), ("avg_score", "ST1 and ST2 average score", "avg", "0,3")]


def test_publish_update_compares_the_ranking_and_the_phases_tasks(tracked):
    from codalab_bundles.site import live_update
    _, built = tracked
    view = live_update.bundle_view(built.codabench)
    assert view["ranking"] == "primary avg_score; avg_score = avg of columns 0, 3"
    assert view["phase_tasks"] == [["st1", "st2"]] * 3
    # the API gives computation_indexes as texts, and a leaderboard without primary_index ranks by column 0
    api = {"columns": [{"key": "a", "index": 0}, {"key": "b", "index": 1, "computation": "max",
                                                   "computation_indexes": ["0"]}]}
    assert live_update._ranking(api) == "primary a; b = max of columns 0"


def test_submit_compares_each_tasks_run_and_finds_the_row_by_its_runs():
    from codalab_bundles.site import submit
    site = {"status": "Finished", "scores": {"st1_score": 0.5, "avg_score": 0.5},
            "tracks": [{"task": "st1", "status": "Finished"}, {"task": "st2", "status": "Failed"}]}
    local = {"status": "Finished", "scores": {"st1_score": 0.5, "avg_score": 0.5},
             "tasks": [{"task": "st1", "status": "Finished"}, {"task": "st2", "status": "Failed"}]}
    assert submit.differences(site, local) == []
    local["tasks"][1]["status"] = "Finished"
    local["scores"]["st2_score"] = 0.25
    assert submit.differences(site, local) == ["task st2: the site says Failed, the replay Finished",
                                               "st2_score: the site stored None, the replay 0.25"]
    assert submit.differences(dict(site, tracks=site["tracks"][:1]), dict(local, tasks=local["tasks"][:1],
                                                                          scores=site["scores"])) == []
    phase = {"id": 7, "name": "Evaluation", "tasks": [{"id": 31, "name": "st1"}, {"id": 32, "name": "st2"}]}
    assert submit.task_ids(phase, ["st2"]) == [32]
    with pytest.raises(submit.SubmitError, match="phase 7 \\(Evaluation\\) has no task named st3: its tasks are "
                                                 "st1, st2"):
        submit.task_ids(phase, ["st3"])
    # a row of a phase of several tasks carries its first run's id, and every run's in detailed_results
    board_rows = {"submissions": [{"id": 188, "detailed_results": [{"task": 32, "id": 188}, {"task": 31, "id": 187}]},
                                  {"id": 185, "detailed_results": [{"task": 32, "id": 185}]}]}
    assert submit._row(board_rows, 183, [187, 188])["id"] == 188 and submit._row(board_rows, 184, [186]) is None
