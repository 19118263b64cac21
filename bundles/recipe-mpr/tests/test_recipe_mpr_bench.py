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


def test_bench_variant_without_index_and_gold_for_the_build(tmp_path, score_submission):
    assert [label for label, _ in bench.VARIANTS] == ["no gold index"]
    bench.make_input(tmp_path / "indexed", 1)
    dict(bench.VARIANTS)["no gold index"](tmp_path / "plain", 1)
    assert sorted(p.name for p in (tmp_path / "plain" / "ref").iterdir()) == ["test.json"]
    assert sorted(p.name for p in (tmp_path / "indexed" / "ref").iterdir()) == ["test.json", "test.json.index"]
    runs = [score_submission("recipe-mpr", tmp_path / name / "ref", tmp_path / name / "res")
            for name in ("indexed", "plain")]
    assert runs[0].returncode == runs[1].returncode == 0
    assert runs[0].scores_txt == runs[1].scores_txt and runs[0].stdout == runs[1].stdout
    references = bench.make_gold(tmp_path / "gold", 1)
    assert references == {"test": str(tmp_path / "gold" / "ref")}
    gold = (tmp_path / "gold" / "ref" / "test.json").read_bytes()
    assert gold == (tmp_path / "plain" / "ref" / "test.json").read_bytes()
