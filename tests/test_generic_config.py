"""scoring.json of the generic programs: check_config and AVAILABLE_KEYS (the builder's API), config errors at run
time, the built layout (scoring.json beside evaluate.py), module names and Python 3.6 (vermin)."""
import json
import subprocess
import sys

import pytest

from conftest import ROOT, run_scoring_program
from generic_support import GENERIC, Runner, built_program
from test_python36_compat import vermin

sys.path.insert(0, str(GENERIC))
from generic_config import AVAILABLE_KEYS, check_config, declared_keys, with_defaults  # noqa: E402

# Every kind of the generic program (the kinds' own tests check their keys).
KINDS = ("classification", "multilabel", "ranking", "regression", "sequence", "spans", "text")
GOLD = {"gold.csv": "id,label\n1,a\n2,b\n"}
PRED = {"predictions.csv": "id,label\n1,a\n2,a\n"}


@pytest.fixture
def run(tmp_path):
    return Runner(tmp_path)


def test_available_keys():
    assert AVAILABLE_KEYS == {
        "classification": ("macro_f1", "accuracy", "micro_f1", "weighted_f1", "macro_precision", "macro_recall"),
        "multilabel": ("samples_f1", "jaccard", "micro_f1", "macro_f1", "exact_match"),
        "spans": ("spans_f1", "spans_precision", "spans_recall"),
        "ranking": ("accuracy", "mrr", "hits_at_3", "hits_at_5", "hits_at_10"),
        "text": ("exact_match", "f1", "bleu", "chrf", "rouge1", "rouge2", "rouge_l"),
        "regression": ("pearson", "spearman", "kendall_tau", "mae", "rmse", "r2", "qwk"),
        "sequence": ("f1", "precision", "recall", "accuracy"),
    }


@pytest.mark.parametrize("config", [
    {"kind": "classification"},
    {"kind": "classification", "reference": "*.csv", "submission": "sub.csv", "id_column": "doc",
     "label_column": "y", "keys": ["accuracy"], "title": "My task"},
    {"kind": "multilabel", "separator": " ", "zero_division": 1, "labels_column": "tags"},
    {"kind": "spans", "reference": "tsd_test.csv", "submission": "spans-pred.txt", "id_column": "id",
     "spans_column": "spans"},
    {"kind": "ranking", "reference": "gold.csv", "submission": "predictions.json", "answer_column": "a",
     "ranking_column": "r", "keys": ["mrr", "accuracy"]},
    {"kind": "sequence", "reference": "eng.testb", "submission": "pred.jsonl", "scheme": "iobes",
     "keys": ["f1", "f1_per", "recall_b_np"]},
])
def test_valid_configs(config):
    assert check_config(config) == []
    assert declared_keys(config) == list(config.get("keys", AVAILABLE_KEYS[config["kind"]]))
    full = with_defaults(config)
    assert full["keys"] == declared_keys(config) and full["reference"]


@pytest.mark.parametrize("config, fragment", [
    ([], "must hold a JSON object"),
    ({}, "'kind' must be one of %s, found null" % ", ".join(sorted(KINDS))),
    ({"kind": "forecasting"}, 'found "forecasting"'),
    ({"kind": "regression", "keys": ["pearson", "qwk"]}, 'the key qwk needs "label_range"'),
    ({"kind": "regression", "label_range": [3, 3]}, "label_range must be [min, max], two integers with min < max"),
    ({"kind": "regression", "label_range": [0, 2.5]}, "label_range must be [min, max]"),
    ({"kind": "regression", "label_range": [0, True]}, "label_range must be [min, max]"),
    ({"kind": "regression", "label_range": [0, 5000]}, "label_range must span at most 1000 labels"),
    ({"kind": "regression", "value_column": ""}, '"value_column" must be a non-empty string'),
    ({"kind": "regression", "reference": "gold.json"}, "must end in .csv or .tsv"),
    ({"kind": "classification", "keys": ["accuracy", "mrr"]}, 'score key "mrr" is not available for kind '
                                                              'classification'),
    ({"kind": "classification", "keys": []}, "'keys' must be a non-empty list"),
    ({"kind": "classification", "keys": "accuracy"}, "'keys' must be a non-empty list"),
    ({"kind": "ranking", "keys": ["mrr", "mrr"]}, "lists a key twice"),
    ({"kind": "classification", "label_colum": "y"}, 'unknown field "label_colum" for kind classification'),
    ({"kind": "spans", "separator": "|"}, 'unknown field "separator"'),
    ({"kind": "classification", "id_column": ""}, '"id_column" must be a non-empty string'),
    ({"kind": "multilabel", "separator": ""}, '"separator" must be a non-empty string'),
    ({"kind": "classification", "reference": "data/gold.csv"}, "must be a file name without folders"),
    ({"kind": "classification", "submission": "predictions.json"}, "must end in .csv"),
    ({"kind": "ranking", "reference": "gold.xml"}, "must end in .json or .csv"),
    ({"kind": "multilabel", "zero_division": 0.5}, "zero_division must be 0 or 1"),
    ({"kind": "multilabel", "zero_division": True}, "zero_division must be 0 or 1"),
])
def test_config_problems(config, fragment):
    problems = check_config(config)
    assert problems and any(fragment in p for p in problems), problems


def test_the_config_module_imports_alone_without_side_effects(tmp_path):
    """The builder imports it with plain Python: no runtime on the path, nothing written, nothing printed."""
    code = ("import sys; sys.path.insert(0, %r); import generic_config as g; "
            "assert 'scoring_runtime' not in sys.modules; print(sorted(g.AVAILABLE_KEYS))" % str(GENERIC))
    run = subprocess.run([sys.executable, "-I", "-c", code], cwd=str(tmp_path), capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "%r\n" % sorted(KINDS)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text, fragment", [
    ('{"kind": "classification", "keys": ["mrr"]}', 'scoring config scoring.json: score key "mrr" is not available'),
    ('{"kind": "classification",}', "scoring config scoring.json, line 1, column 27: not valid JSON"),
    ('{"kind": "classification", "label_column": "y", "colour": 1}', 'unknown field "colour"'),
])
def test_config_errors_are_reported_as_the_organizers_problem(run, text, fragment):
    run(text, GOLD, PRED).assert_rejected("Reference data error (a problem for the organizers", fragment)


def test_missing_config(tmp_path):
    result = run_scoring_program("generic", GOLD, PRED, tmp_path, env={"GENERIC_SCORING_CONFIG": ""})
    result.assert_rejected("Reference data error", "scoring config scoring.json not found beside evaluate.py",
                           "GENERIC_SCORING_CONFIG")


def test_built_layout_reads_the_scoring_json_beside_evaluate(tmp_path):
    """As the builder packs a generic task: generic/*.py + common/*.py + the task's folder, in one folder."""
    config = {"kind": "classification", "keys": ["accuracy", "macro_f1"]}
    program = built_program(tmp_path / "program", {
        "scoring.json": json.dumps(config), "metadata": "command: python3 $program/evaluate.py $input $output\n"})
    result = run_scoring_program("unused", GOLD, PRED, tmp_path / "run", program_dir=program,
                                 env={"GENERIC_SCORING_CONFIG": ""})
    assert result.returncode == 0, result.stderr
    assert result.scores == pytest.approx({"accuracy": 0.5, "macro_f1": (2 / 3 + 0) / 2}, abs=1e-15)
    assert vermin(program).returncode == 0


def test_module_names_do_not_clash_with_the_runtime_or_any_task():
    programs = ROOT / "scoring_programs"
    generic = set(p.name for p in GENERIC.glob("*.py")) - {"evaluate.py"}
    others = set(p.name for folder in programs.iterdir() if folder.is_dir() and folder != GENERIC
                 for p in folder.glob("*.py"))
    assert generic and all(name.startswith("generic_") for name in generic)
    assert not generic & others


def test_generic_programs_target_python36():
    run = vermin(GENERIC)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Analyzing %d files" % len(list(GENERIC.glob("*.py"))) in run.stdout
