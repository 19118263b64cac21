"""The built recipe-mpr bundle: public data as participants download it, and the replayed sample submissions."""
import collections
import io
import json
import zipfile

import pytest

from codalab_bundles import replay
from codalab_bundles.authoring import build, taskdef
from conftest import shared_path
from test_recipe_mpr_data import GOLD_DIR, split_tool

TASK = "recipe-mpr"


def build_bundle(dist, overrides=None):
    path, _ = build.build_task(taskdef.load_task(TASK, overrides), dist)
    return zipfile.ZipFile(str(path)), path


def published(bundle, split):
    public = zipfile.ZipFile(io.BytesIO(bundle.read("public_data_%s.zip" % split)))
    assert public.namelist() == ["queries.json"]
    return json.loads(public.read("queries.json").decode("utf-8"))


def answer_slots(bundle, split, gold):
    queries = published(bundle, split)
    assert [q["id"] for q in queries] == [g["id"] for g in gold]
    return collections.Counter(list(q["options"]).index(g["answer"]) for q, g in zip(queries, gold))


def test_built_bundle_hides_answers_and_replays_both_phases(tmp_path):
    bundle, path = build_bundle(tmp_path)
    for split, size in (("dev", 10), ("test", 40)):
        gold = json.loads((GOLD_DIR / split / (split + ".json")).read_text(encoding="utf-8"))
        text = json.dumps(published(bundle, split))
        assert '"answer"' not in text and "query_type" not in text
        assert answer_slots(bundle, split, gold) == {k: size // 5 for k in range(5)}
        kit = zipfile.ZipFile(io.BytesIO(bundle.read("starting_kit_%s.zip" % split)))
        assert {"README.md", "word_overlap_baseline.py", "sample_submission.zip"} <= set(kit.namelist())
    for phase in (1, 2):
        report = replay.replay(path, None, phase)
        assert report["status"] == "Finished", report
        assert list(report["scores"])[:2] == ["accuracy", "mrr"]
    # The same build twice gives the same bytes.
    again, _ = build_bundle(tmp_path / "again")
    assert again.read("public_data_test.zip") == bundle.read("public_data_test.zip")


def test_built_bundle_rejects_a_bad_submission(tmp_path):
    _, path = build_bundle(tmp_path)
    submission = tmp_path / "bad.zip"
    with zipfile.ZipFile(str(submission), "w") as handle:
        handle.writestr("predictions.json", json.dumps({"q000": "not-an-option"}))
    report = replay.replay(path, str(submission), 1)
    assert report["status"] != "Finished" and not report["scores"]
    assert 'query "q000": "not-an-option" is not one of this query\'s option ids' in report["stderr"]


def test_built_bundle_with_the_real_split_spreads_the_answer_evenly(tmp_path):
    full = json.loads(shared_path("recipe-mpr", "500QA.json").read_text(encoding="utf-8"))
    dev, test = split_tool.split_queries(full)
    split_tool.write_splits(str(tmp_path / "gold"), dev, test)
    bundle, path = build_bundle(tmp_path / "dist", {"dev": str(tmp_path / "gold" / "dev"),
                                                    "test": str(tmp_path / "gold" / "test")})
    assert answer_slots(bundle, "dev", dev) == {k: 20 for k in range(5)}
    assert answer_slots(bundle, "test", test) == {k: 80 for k in range(5)}
    report = replay.replay(path, None, 2)
    assert report["status"] == "Finished"
    assert report["scores"]["accuracy"] == pytest.approx(0.2025)  # the word-overlap baseline on the 400 queries
