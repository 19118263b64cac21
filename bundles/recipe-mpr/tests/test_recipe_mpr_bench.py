"""The recipe-mpr benchmark input is a valid, scorable submission of the advertised size."""
from codalab_bundles.loading import load_file
import json

from conftest import ROOT

bench = load_file(ROOT / "bundles" / "recipe-mpr" / "bench.py")


def test_bench_input_scores(tmp_path, score_submission):
    assert bench.REAL_SIZE == "500 queries"
    bench.make_input(tmp_path, 1, seed=3)
    gold = json.loads((tmp_path / "ref" / "test.json").read_text())
    predictions = json.loads((tmp_path / "res" / "predictions.json").read_text())
    assert len(gold) == len(predictions) == 500
    run = score_submission("recipe-mpr", tmp_path / "ref", tmp_path / "res")
    assert run.returncode == 0, run.stderr
    # Random full rankings: about a fifth right; every answer is ranked, so MRR >= 0.2.
    assert 0.1 < run.scores["accuracy"] < 0.3 and run.scores["mrr"] >= 0.2
    again = tmp_path / "again"
    bench.make_input(again, 1, seed=3)
    assert (again / "ref" / "test.json").read_bytes() == (tmp_path / "ref" / "test.json").read_bytes()
