"""food-hazard competition folder: task.yaml, pages, derive.py hooks, baseline, benchmark input, built bundle."""
import csv
from codalab_bundles.loading import load_file
import json
import shutil
import subprocess
import sys
import types
import zipfile
from datetime import datetime
from pathlib import Path

import pandas as pd
import pytest
import yaml

from conftest import ROOT, run_scoring_program, shared_path
from test_food_hazard_program import KEYS, LABELS, TASK

TASK_DIR = ROOT / "bundles" / TASK
SAMPLE = ROOT / "reference_data" / TASK


def _load(name, path):
    return load_file(path, name)


derive = _load("food_hazard_derive", TASK_DIR / "derive.py")
baseline = _load("food_hazard_baseline", TASK_DIR / "kit" / "baseline.py")
bench = _load("food_hazard_bench", ROOT / "bundles" / "food-hazard" / "bench.py")


def run_hooks(tmp_path, reference_dir, split="valid"):
    ctx = types.SimpleNamespace(task=TASK, split=split, reference_dir=Path(reference_dir), seed=3)
    for name in ("public", "kit", "submission"):
        (tmp_path / name).mkdir(parents=True)
    ctx.public_dir = ctx.out_dir = tmp_path / "public"
    derive.public_data(ctx)
    ctx.out_dir, ctx.submission_dir = tmp_path / "kit", tmp_path / "submission"
    derive.starting_kit(ctx)
    return ctx


def test_task_yaml_phases_and_leaderboard():
    spec = yaml.safe_load((TASK_DIR / "task.yaml").read_text(encoding="utf-8"))
    phases = [(p["label"], p["start"], p["split"]) for p in spec["phases"]]
    assert phases == [("Conception", datetime(2024, 9, 2), "valid"),
                      ("Evaluation", datetime(2025, 1, 10), "test"),
                      ("Post-Evaluation", datetime(2025, 1, 17), "test")]
    columns = spec["leaderboard"]["columns"]
    assert [c["key"] for c in columns] == KEYS  # st1_score first: it ranks
    assert all(c["sort"] == "desc" and len(c["label"]) <= 36 for c in columns)
    assert spec["docker_image"] == "codalab/codalab-legacy:py37" and spec["enable_detailed_results"] is True


def test_pages():
    from codalab_bundles.authoring import render, taskdef
    task = taskdef.load_task("food-hazard")
    pages = dict((key, render.page_bytes(task, key).decode("utf-8")) for key in task.pages)
    assert sorted(pages) == ["data", "evaluation", "overview", "terms"]
    assert not any("<script" in text.lower() for text in pages.values())
    assert "CC BY-NC-SA 4.0" in pages["terms"]
    assert "(<var>F1</var><sub>hazard</sub> + <var>F1</var><sub>product</sub>) / 2" in pages["evaluation"]
    assert "2 September 2024" in pages["overview"] and "10 January 2025" in pages["overview"]
    assert "submission.csv" in pages["data"] and "incidents.csv" in pages["data"]


@pytest.mark.parametrize("split", ["valid", "test"])
def test_public_data_is_the_gold_without_labels(tmp_path, split):
    gold_path = next((SAMPLE / split).glob("*.csv"))
    ctx = run_hooks(tmp_path, SAMPLE / split, split)
    assert sorted(p.name for p in ctx.public_dir.iterdir()) == ["incidents.csv"]
    public = pd.read_csv(ctx.public_dir / "incidents.csv", index_col=0, keep_default_na=False)
    gold = pd.read_csv(gold_path, index_col=0, keep_default_na=False)
    pd.testing.assert_frame_equal(public, gold.drop(columns=LABELS))
    assert (ctx.public_dir / "incidents.csv").read_text(encoding="utf-8").startswith(",year,month,day,country,")


def test_public_data_adds_an_index_when_the_gold_has_none(tmp_path):
    gold = pd.read_csv(SAMPLE / "valid" / "incidents_valid_sample.csv", index_col=0, keep_default_na=False)
    (tmp_path / "ref").mkdir()
    gold.to_csv(tmp_path / "ref" / "gold.csv", index=False)
    ctx = run_hooks(tmp_path, tmp_path / "ref")
    with (ctx.public_dir / "incidents.csv").open(encoding="utf-8", newline="") as handle:
        records = list(csv.reader(handle))
    assert records[0][:2] == ["", "year"] and [r[0] for r in records[1:]] == [str(i) for i in range(len(gold))]


def test_starting_kit_and_its_sample_submission_scores(tmp_path):
    ctx = run_hooks(tmp_path, SAMPLE / "valid")
    assert sorted(p.name for p in ctx.out_dir.iterdir()) == ["README.md", "baseline.py"]
    assert sorted(p.name for p in ctx.submission_dir.iterdir()) == ["submission.csv"]
    run = run_scoring_program(TASK, SAMPLE / "valid", ctx.submission_dir, tmp_path / "run")
    assert run.returncode == 0, run.stderr
    assert list(run.scores) == KEYS and 0.2 < run.scores["st1_score"] < 0.9
    # The kit's baseline, run as participants would, writes the same file.
    out = tmp_path / "mine.csv"
    subprocess.run([sys.executable, str(ctx.out_dir / "baseline.py"), str(ctx.public_dir / "incidents.csv"),
                    str(out)], check=True, timeout=60)
    assert out.read_bytes() == (ctx.submission_dir / "submission.csv").read_bytes()


def test_hooks_are_deterministic(tmp_path):
    first, second = run_hooks(tmp_path / "a", SAMPLE / "test"), run_hooks(tmp_path / "b", SAMPLE / "test")
    for attr in ("public_dir", "out_dir", "submission_dir"):
        for path in getattr(first, attr).iterdir():
            assert path.read_bytes() == (getattr(second, attr) / path.name).read_bytes(), path.name


@pytest.mark.parametrize("title,expected", [
    ("Maple Farms Recalls Oat Cookies Because of Undeclared Peanuts",
     ["allergens", "cereals and bakery products", "peanuts and products thereof", "cookies"]),
    ("Listeria in smoked salmon", ["biological", "seafood", "listeria monocytogenes", "salmon"]),
    ("Product withdrawn", ["allergens", "meat, egg and dairy products", "milk and products thereof",
                           "chicken based products"]),
])
def test_baseline_rules(title, expected):
    assert baseline.predict(title) == expected


def test_benchmark_input(tmp_path):
    assert bench.REAL_SIZE == "997 rows"
    bench.make_input(tmp_path / "input", 1)
    gold = pd.read_csv(tmp_path / "input" / "ref" / "incidents_test.csv", index_col=0, keep_default_na=False)
    submitted = pd.read_csv(tmp_path / "input" / "res" / "submission.csv", index_col=0, keep_default_na=False)
    assert len(gold) == len(submitted) == 997 and sorted(submitted.index) == list(gold.index)
    assert 2.0e6 < (tmp_path / "input" / "ref" / "incidents_test.csv").stat().st_size < 3.2e6  # as the real file
    run = run_scoring_program(TASK, tmp_path / "input" / "ref", tmp_path / "input" / "res", tmp_path / "run")
    assert run.returncode == 0, run.stderr
    assert 0.3 < run.scores["st1_score"] < 0.9


def _replay(bundle, submission=None, phase=1):
    command = [sys.executable, str(ROOT / "build_bundle.py"), "replay", str(bundle), "--phase", str(phase), "--json"]
    if submission:
        command.insert(4, str(submission))
    proc = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=str(ROOT))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_bundle_built_on_the_real_gold_replays(tmp_path):
    """An organizer's build with the real files: samples score, a bad submission fails with its one-line reason."""
    refs = {}
    for split, name in (("valid", "incidents_valid.csv"), ("test", "incidents_test.csv")):
        refs[split] = tmp_path / "gold" / split
        refs[split].mkdir(parents=True)
        shutil.copyfile(str(shared_path("food-hazard", name)), str(refs[split] / name))
    proc = subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "--task", TASK, "--dist",
                           str(tmp_path / "dist")] + ["--reference=%s=%s" % kv for kv in refs.items()],
                          capture_output=True, text=True, timeout=600, cwd=str(ROOT))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    bundle = tmp_path / "dist" / (TASK + ".zip")
    with zipfile.ZipFile(str(bundle)) as archive:
        public = zipfile.ZipFile(archive.open("public_data_test.zip"))
        assert public.namelist() == ["incidents.csv"]
        assert "hazard-category" not in public.read("incidents.csv").decode("utf-8").split("\n", 1)[0]
    report = _replay(bundle, phase=2)
    assert report["status"] == "Finished" and sorted(report["scores"]) == sorted(KEYS)
    assert not report["columns_without_score"]

    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(str(bad), "w") as archive:
        archive.writestr("submission.csv", ",hazard-category,product-category\n0,allergens,seafood\n")
    report = _replay(bundle, bad, phase=2)
    assert report["status"] == "Failed"
    assert "submission.csv: 996 of the 997 ids of the data file have no row (1, 2, 3, 4, 5, ...)" in report["stderr"]
