"""recipe-mpr data: sample generator, seeded split, public data derivation, starting kit, task definition."""
import collections
import hashlib
from codalab_bundles.loading import load_file
import json
import subprocess
import sys
import types
from datetime import datetime, timedelta

import pytest
import yaml

from conftest import ROOT

TASK = "recipe-mpr"
GOLD_DIR = ROOT / "reference_data" / TASK
BUNDLE = ROOT / "bundles" / TASK
GENERATOR = ROOT / "bundles" / "recipe-mpr" / "sample_data.py"
SPLITTER = ROOT / "bundles" / "recipe-mpr" / "split_data.py"
SCHEMA_KEYS = {"id", "query", "query_type", "options", "answer", "correctness_explanation"}
TYPES = ("Specific", "Commonsense", "Negated", "Analogical", "Temporal")


def load_module(name, path):
    return load_file(path, name)


split_tool = load_module("split_recipe_mpr_under_test", SPLITTER)
derive = load_module("recipe_mpr_derive_under_test", BUNDLE / "derive.py")
baseline = load_module("recipe_mpr_baseline_under_test", BUNDLE / "starting_kit" / "word_overlap_baseline.py")


def gold(split):
    return json.loads((GOLD_DIR / split / (split + ".json")).read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------------------------------------------
# Sample data


def test_sample_data_follows_the_dataset_schema_and_its_answer_first_order():
    dev, test = gold("dev"), gold("test")
    assert (len(dev), len(test)) == (10, 40)
    queries = dev + test
    assert len({q["id"] for q in queries}) == 50 and len({q["query"] for q in queries}) == 50
    for q in queries:
        assert set(q) == SCHEMA_KEYS
        assert list(q["query_type"]) == list(TYPES) and set(q["query_type"].values()) <= {0, 1}
        assert len(q["options"]) == 5 and len(set(q["options"].values())) == 5
        assert list(q["options"])[0] == q["answer"]  # as in the released file: the public data must reorder
    # Every type occurs in both splits, so every per-type score exists in each phase.
    for split in (dev, test):
        assert all(sum(q["query_type"][t] for q in split) > 0 for t in TYPES)


# ---------------------------------------------------------------------------------------------------------------
# Seeded split


def test_split_follows_the_documented_rule():
    queries = [{"query": "text %d" % i} for i in range(12)]
    dev, test = split_tool.split_queries(queries, dev_size=4, seed=7)
    # The rule, written out independently: the smallest SHA-256 keys go to dev.
    keys = {i: hashlib.sha256(("recipe-mpr:7:%d" % i).encode()).hexdigest() for i in range(12)}
    expected_dev = sorted(sorted(keys, key=keys.get)[:4])
    assert [q["id"] for q in dev] == ["q%03d" % i for i in expected_dev]
    assert [q["query"] for q in dev] == ["text %d" % i for i in expected_dev]  # input order kept
    assert [q["id"] for q in test] == ["q%03d" % i for i in range(12) if i not in expected_dev]
    assert list(dev[0]) == ["id", "query"]
    assert split_tool.split_queries(queries, 4, 7) == (dev, test)
    assert split_tool.split_queries(queries, 4, 8)[0] != dev


def test_split_keeps_existing_ids_and_checks_the_size():
    queries = [{"id": "a%d" % i, "query": "t"} for i in range(5)]
    dev, test = split_tool.split_queries(queries, 2)
    assert sorted(q["id"] for q in dev + test) == ["a0", "a1", "a2", "a3", "a4"]
    for size in (0, 5):
        with pytest.raises(ValueError):
            split_tool.split_queries(queries, size)


def test_split_command_writes_both_folders(tmp_path):
    dataset = tmp_path / "full.json"
    dataset.write_text(json.dumps([{"query": "q %d" % i, "answer": "x"} for i in range(9)]))
    proc = subprocess.run([sys.executable, str(SPLITTER), str(dataset), str(tmp_path / "out"), "--dev-size", "3"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "wrote 3 Development and 6 Test queries" in proc.stdout
    dev = json.loads((tmp_path / "out" / "dev" / "dev.json").read_text())
    test = json.loads((tmp_path / "out" / "test" / "test.json").read_text())
    assert len(dev) == 3 and len(test) == 6
    bad = subprocess.run([sys.executable, str(SPLITTER), str(dataset), str(tmp_path / "o2"), "--dev-size", "9"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "between 1 and 8" in bad.stderr


# ---------------------------------------------------------------------------------------------------------------
# Public data and starting kit


def public(split, seed, tmp_path):
    out = tmp_path / ("public_%s_%d" % (split, seed))
    out.mkdir()
    derive.public_data(types.SimpleNamespace(task=TASK, split=split, reference_dir=GOLD_DIR / split, seed=seed,
                                             out_dir=out))
    assert [p.name for p in out.iterdir()] == ["queries.json"]
    return out


@pytest.mark.parametrize("split", ["dev", "test"])
def test_public_data_hides_answers_and_spreads_their_position(split, tmp_path):
    out = public(split, 11, tmp_path)
    text = (out / "queries.json").read_text(encoding="utf-8")
    published, reference = json.loads(text), gold(split)
    assert "answer" not in text and "query_type" not in text and "correctness" not in text
    assert [p["id"] for p in published] == [q["id"] for q in reference]
    slots = collections.Counter()
    for p, q in zip(published, reference):
        assert list(p) == ["id", "query", "options"] and p["query"] == q["query"]
        assert sorted(p["options"].items()) == sorted(q["options"].items())
        slots[list(p["options"]).index(q["answer"])] += 1
    per_slot = len(reference) // 5
    assert dict(slots) == {k: per_slot for k in range(5)}  # 10 and 40 queries: exactly even


def test_public_data_is_reproducible_and_depends_on_the_seed(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = (public("test", 5, tmp_path / "a") / "queries.json").read_bytes()
    again = (public("test", 5, tmp_path / "b") / "queries.json").read_bytes()
    other = (public("test", 6, tmp_path) / "queries.json").read_bytes()
    assert first == again and first != other
    # Distractors are reordered too, not only the answer moved.
    orders = [list(p["options"]) for p in json.loads(first)]
    golds = [[o for o in q["options"] if o != q["answer"]] for q in gold("test")]
    assert any([o for o in order if o in g] != g for order, g in zip(orders, golds))


def test_public_option_orders_balance_answer_slots_for_any_option_count():
    class Q(object):
        def __init__(self, n):
            self.options = dict(("o%d" % k, "") for k in range(n))
            self.answer = "o0"
    queries = [Q(5)] * 23 + [Q(3)] * 7
    orders = derive.public_option_orders(queries, seed=3)
    five = collections.Counter(o.index("o0") for q, o in zip(queries, orders) if len(q.options) == 5)
    three = collections.Counter(o.index("o0") for q, o in zip(queries, orders) if len(q.options) == 3)
    assert sorted(five.values()) == [4, 4, 5, 5, 5] and sorted(three.values()) == [2, 2, 3]
    assert all(sorted(o) == sorted(q.options) for q, o in zip(queries, orders))


def test_starting_kit_submission_is_valid_and_scores_like_the_baseline(tmp_path, score_submission):
    pub = public("dev", 11, tmp_path)
    kit, sub = tmp_path / "kit", tmp_path / "sub"
    kit.mkdir()
    sub.mkdir()
    derive.starting_kit(types.SimpleNamespace(task=TASK, split="dev", reference_dir=GOLD_DIR / "dev", seed=11,
                                              out_dir=kit, public_dir=pub, submission_dir=sub))
    assert sorted(p.name for p in kit.iterdir()) == ["README.md", "word_overlap_baseline.py"]
    assert [p.name for p in sub.iterdir()] == ["predictions.json"]
    predictions = json.loads((sub / "predictions.json").read_text())
    assert sorted(predictions) == sorted(q["id"] for q in gold("dev"))
    assert all(len(ranking) == 5 for ranking in predictions.values())
    run = score_submission(TASK, GOLD_DIR / "dev", sub)
    assert run.returncode == 0, run.stderr
    hits = sum(predictions[q["id"]][0] == q["answer"] for q in gold("dev"))
    assert run.scores["accuracy"] == pytest.approx(hits / 10.0)


def test_baseline_ranks_by_shared_content_words():
    assert baseline.stem("tomatoes") == "tomato" and baseline.stem("berries") == "berry"
    assert baseline.stem("baked") == "bak" and baseline.stem("egg") == "egg"
    assert baseline.content_words("I want a quick Spinach soup!") == {"quick", "spinach", "soup"}
    options = {"a": "Slow beef stew", "b": "Quick spinach soups with garlic", "c": "Spinach salad", "d": "Rice"}
    assert baseline.rank_options("Could I have a quick spinach soup?", options) == ["b", "c", "a", "d"]
    assert baseline.predict([{"id": "q1", "query": "tofu", "options": {"x": "beef", "y": "pork"}}]) == \
        {"q1": ["x", "y"]}  # ties keep the public order


# ---------------------------------------------------------------------------------------------------------------
# Task definition


def test_task_yaml_defines_two_phases_and_the_scorer_keys():
    task = yaml.safe_load((BUNDLE / "task.yaml").read_text())
    assert len(task["title"]) <= 100
    assert [p["label"] for p in task["phases"]] == ["Development", "Test"]
    assert [p["split"] for p in task["phases"]] == ["dev", "test"]
    starts = [p["start"] for p in task["phases"]]
    assert all(isinstance(s, datetime) for s in starts + [task["end_date"]])
    assert starts[1] - starts[0] >= timedelta(days=1) and task["end_date"] > starts[1]
    keys = [c["key"] for c in task["leaderboard"]["columns"]]
    assert keys == ["accuracy", "mrr"] + ["acc_" + t.lower() for t in TYPES]
    assert all(c["sort"] == "desc" and len(c["label"]) <= 36 for c in task["leaderboard"]["columns"])
    for split, path in task["splits"].items():
        assert (ROOT / path / (split + ".json")).is_file()
    for name in task["pages"].values():
        html = (BUNDLE / "pages" / name).read_text(encoding="utf-8")
        assert html.strip() and "<script" not in html.lower()
    assert "Apache License, Version 2.0" in (BUNDLE / "pages" / "data.html").read_text()
