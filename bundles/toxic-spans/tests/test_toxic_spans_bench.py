"""The toxic-spans benchmark input is a realistic, scorable submission of the advertised size."""
import ast
import csv
from codalab_bundles.loading import load_file

import numpy as np

from conftest import ROOT
from test_toxic_spans_metric import official_f1

bench = load_file(ROOT / "bundles" / "toxic-spans" / "bench.py")


def test_bench_input_scores_as_the_official_definition(tmp_path, score_submission):
    assert bench.REAL_SIZE == "2,000 posts"
    bench.make_input(tmp_path, 1, seed=4)
    with open(str(tmp_path / "ref" / "tsd_test.csv"), newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    gold = [ast.literal_eval(row["spans"]) for row in rows]
    pred = {}
    for line in (tmp_path / "res" / "spans-pred.txt").read_text().splitlines():
        post_id, spans = line.split("\t")
        pred[int(post_id)] = ast.literal_eval(spans)
    assert len(gold) == len(pred) == 2000 and sorted(pred) == list(range(2000))
    lengths = [len(row["text"]) for row in rows]
    assert 200 <= min(lengths) and max(lengths) <= 320
    assert max(len(g) for g in gold) <= 30 and 0.1 < sum(not g for g in gold) / 2000 < 0.3
    assert any("\n" in row["text"] for row in rows)
    run = score_submission("toxic-spans", tmp_path / "ref", tmp_path / "res")
    assert run.returncode == 0, run.stderr
    assert abs(run.scores["spans_F1"] - np.mean([official_f1(pred[i], g) for i, g in enumerate(gold)])) <= 1e-12
    assert 0.3 < run.scores["spans_F1"] < 0.95
    again = tmp_path / "again"
    bench.make_input(again, 1, seed=4)
    assert (again / "res" / "spans-pred.txt").read_bytes() == (tmp_path / "res" / "spans-pred.txt").read_bytes()
