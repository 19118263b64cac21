"""Code-submission tasks (task.yaml's code_submission; bundles/README.md, "Code submissions"), on food-hazard's variant
bundles/food-hazard/task-code.yaml built in a copy of the competition folder: what the bundle holds (ingestion
program, input data without the gold, the gated scoring program, the starting kit), what Codabench's own import
stores from it, both steps run as Codabench's worker lays them out (codalab_bundles/authoring/code_run.py) for the
baseline and broken models, the kit's offline commands, and the baseline's naive Bayes against a hand computation."""
import csv
import io
import json
import shutil
import subprocess
import sys
import zipfile

import pytest
import yaml

from codalab_bundles.authoring import build, code_submission, taskdef
from codalab_bundles.loading import load_file
from codalab_bundles.authoring import code_run
from codalab_bundles.zips import pack
from codabench_import import import_or_skip
from conftest import ROOT

TASK = "food-hazard"
CODE_KIT = ROOT / "bundles" / TASK / "code_kit"
LABELS = ["hazard-category", "product-category", "hazard", "product"]
GATE_LINE = ("Submission error: the prediction step failed (the ingestion program's exit status: 1): its message is "
             "in the prediction step's error log; nothing was scored")


def competition(folder, edit=None):
    """A copy of the competition folder's food-hazard with task-code.yaml as its task.yaml, edited by ``edit``."""
    for home in ("bundles", "scoring_programs", "reference_data"):
        shutil.copytree(str(ROOT / home / TASK), str(folder / home / TASK))
    spec = yaml.safe_load((ROOT / "bundles" / TASK / "task-code.yaml").read_text(encoding="utf-8"))
    if edit is not None:
        edit(spec)
    (folder / "bundles" / TASK / "task.yaml").write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = competition(tmp_path_factory.mktemp("code"))
    task = taskdef.load_task(TASK, bundles_dir=folder / "bundles")
    return task, build.build_task(task, folder / "dist")


def entries(data):
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return dict((name, archive.read(name)) for name in archive.namelist())


def bundle(built):
    with zipfile.ZipFile(str(built[1].codabench)) as archive:
        return dict((name, archive.read(name)) for name in archive.namelist())


def test_the_bundle_has_the_ingestion_program_and_input_data_and_no_v15(built):
    task, paths = built
    assert paths.codalab is None  # CodaLab mounts the gold into the ingestion container
    spec = yaml.safe_load(bundle(built)["competition.yaml"])
    assert spec["tasks"] == [{"index": 0, "name": "test split", "description": "Scores submissions against the test "
                              "gold data.", "scoring_program": "scoring_program.zip",
                              "reference_data": "reference_test.zip", "ingestion_program": "ingestion_program.zip",
                              "input_data": "input_data_test.zip"}]
    for phase in spec["phases"]:
        assert phase["hide_prediction_output"] is True  # the predictions of hidden inputs
        assert "public_data" not in phase  # the inputs are hidden
    assert "ingestion_only_during_scoring" not in bundle(built)["competition.yaml"].decode()


def test_the_input_data_is_the_test_set_without_its_labels(built):
    files = entries(bundle(built)["input_data_test.zip"])
    assert list(files) == ["incidents.csv"]
    rows = list(csv.reader(io.StringIO(files["incidents.csv"].decode("utf-8"))))
    gold = list(csv.reader(io.open(str(ROOT / "reference_data" / TASK / "test" / "incidents_test_sample.csv"),
                                   encoding="utf-8", newline="")))
    assert rows[0] == ["", "year", "month", "day", "country", "title", "text"]
    assert rows == [row[:7] for row in gold]


def test_the_ingestion_program_and_its_configuration(built):
    files = entries(bundle(built)["ingestion_program.zip"])
    assert sorted(files) == ["fast_csv.py", "ingest.py", "ingestion.json", "ingestion_child.py", "ingestion_io.py",
                             "metadata", "scoring_base.py"]
    assert json.loads(files["ingestion.json"]) == {
        "inputs": "incidents.csv", "input_format": "csv", "id_column": "", "output": "submission.csv",
        "output_format": "csv", "output_id_column": "", "columns": LABELS, "time_limit": 120, "memory_mb": 2048,
        "show_output": False}
    assert files["scoring_base.py"] == (ROOT / "scoring_programs" / "common" / "scoring_base.py").read_bytes()


def test_the_scoring_program_is_gated(built):
    files = entries(bundle(built)["scoring_program.zip"])
    assert files["metadata"] == b"command: python3 $program/ingestion_gate.py $input $output\n"
    assert files["ingestion_gate.py"] == (ROOT / "scoring_programs" / "ingestion" / "ingestion_gate.py").read_bytes()
    assert "evaluate.py" in files


def test_the_starting_kit_holds_the_baseline_and_both_programs(built):
    files = bundle(built)
    kit = entries(files["starting_kit_test.zip"])
    baseline = dict(pack.directory_entries(CODE_KIT / "model"))
    assert sorted(baseline) == ["model.py", "nb_params.json"]
    assert entries(kit["sample_submission.zip"]) == baseline
    assert dict((n[len("model/"):], d) for n, d in kit.items() if n.startswith("model/")) == baseline
    for name in ("ingestion_program", "scoring_program"):
        assert dict((n[len(name) + 1:], d) for n, d in kit.items() if n.startswith(name + "/")) == \
            entries(files[name + ".zip"])
    assert kit["README.md"] == (CODE_KIT / "kit" / "README.md").read_bytes()
    assert "dev/input_data/incidents.csv" in kit and "dev/input/ref/incidents_dev.csv" in kit


def test_codabench_import_stores_the_ingestion_step(built):
    imported = import_or_skip([built[1].codabench])[0]
    assert imported["ok"], imported["error"]
    stored = imported["competition"]
    assert stored["tasks"] == [{"name": "test split", "scoring_program": True, "reference_data": True,
                                "ingestion_program": True, "input_data": True}]
    assert stored["task_settings"] == {"test split": {"ingestion_only_during_scoring": False}}
    assert [p["public_data"] for p in stored["phases"]] == [False, False]
    assert [p["settings"]["hide_prediction_output"] for p in stored["phases"]] == [True, True]


def test_the_baseline_runs_both_steps_and_is_scored(built):
    report = code_run.run(built[1].codabench, 1)
    assert (report["status"], report["step"], report["ingestion_stderr"]) == ("Finished", None, "")
    assert sorted(report["scores"]) == sorted(["st1_score", "st1_hazard_f1", "st1_product_f1", "st2_score",
                                               "st2_hazard_f1", "st2_product_f1"])
    # the prediction step's output: the submission's files (the worker copies them) and the predictions
    assert sorted(report["predictions"]) == ["metadata", "model.py", "nb_params.json", "submission.csv"]
    header = report["predictions"]["submission.csv"].decode().splitlines()[0]
    assert header == "," + ",".join('"%s"' % x if "," in x else x for x in LABELS)


def _model(source, **extra):
    files = [("model.py", source.encode())] + [(name, data.encode()) for name, data in extra.items()]
    return pack.zip_entries(files)


def test_a_crash_fails_in_the_prediction_step_and_the_gate_scores_nothing(built):
    crash = _model("def load(d):\n    return M()\nclass M:\n    def predict(self, items):\n        return 1 / 0\n",
                   **{"submission.csv": "whatever the participant brought\n"})
    report = code_run.run(built[1].codabench, 1, crash)
    assert (report["status"], report["step"], report["scores"]) == ("Failed", "prediction", {})
    assert report["ingestion_stderr"] == \
        "Submission error: model.py: predict raised ZeroDivisionError at model.py line 5\n"
    assert report["reason"] == GATE_LINE
    assert "submission.csv" not in report["predictions"]  # the one the zip brought was removed


def test_a_model_cannot_reach_the_gold_in_the_prediction_step(built):
    # Codabench mounts no reference data into the prediction step (and the site sends none: tasks.py); the local
    # layout has none either: a model looking for it from its folder's parent finds nothing
    snoop = _model("import os\ndef load(d):\n    return M(d)\nclass M:\n    def __init__(self, d):\n"
                   "        self.found = [f for r, _, fs in os.walk(os.path.dirname(d)) for f in fs]\n"
                   "    def predict(self, items):\n"
                   "        hit = any('incidents_test' in f or f == 'reference_test.zip' for f in self.found)\n"
                   "        return [dict((k, 'gold!' if hit else 'none') for k in %r) for _ in items]\n" % LABELS)
    report = code_run.run(built[1].codabench, 1, snoop)
    assert report["status"] == "Finished"
    assert set(report["predictions"]["submission.csv"].decode().splitlines()[1].split(",")[1:]) == {"none"}


def test_the_kits_offline_commands_give_the_platforms_scores(built, tmp_path):
    """The kit's two commands (its README) on the bundle's test inputs and gold give the scores of the platform's
    layout; on the kit's own dev set they finish."""
    kit = tmp_path / "kit"
    code_run._extract(bundle(built)["starting_kit_test.zip"], kit)
    platform = code_run.run(built[1].codabench, 1)["scores"]
    code_run._extract(bundle(built)["input_data_test.zip"], kit / "test" / "input_data")
    code_run._extract(bundle(built)["reference_test.zip"], kit / "test" / "input" / "ref")
    for data, scores in (("test", platform), ("dev", None)):
        for command in (["ingestion_program/ingest.py", "%s/input_data" % data, "model", "%s/input/res" % data],
                        ["scoring_program/ingestion_gate.py", "%s/input" % data, "%s/scores" % data]):
            done = subprocess.run([sys.executable] + command, cwd=str(kit), stderr=subprocess.PIPE,
                                  universal_newlines=True)
            assert (done.returncode, done.stderr) == (0, "")
        written = json.loads((kit / data / "scores" / "scores.json").read_text())
        if scores is not None:
            assert dict((k, written[k]) for k in scores) == scores


def test_the_committed_kit_data_and_parameters_are_reproduced(tmp_path):
    maker = load_file(CODE_KIT / "make_kit_data.py")
    assert maker.main(["--out", str(tmp_path)]) == 0
    for name in ("kit/train.csv", "kit/dev/input_data/incidents.csv", "kit/dev/input/ref/incidents_dev.csv",
                 "model/nb_params.json"):
        assert (tmp_path / name).read_bytes() == (CODE_KIT / name).read_bytes(), name
    train = list(csv.reader(io.open(str(CODE_KIT / "kit" / "train.csv"), encoding="utf-8", newline="")))
    dev = list(csv.reader(io.open(str(CODE_KIT / "kit" / "dev" / "input" / "ref" / "incidents_dev.csv"),
                                  encoding="utf-8", newline="")))
    assert (len(train) - 1, len(dev) - 1) == (48, 12)  # the 60 sample incidents, every fifth held out
    assert not set(r[0] for r in train[1:]) & set(r[0] for r in dev[1:])


def test_the_naive_bayes_baseline_by_hand(tmp_path):
    """Two training incidents. hazard-category A: 'milk cheese' (2 words), B: 'salmonella cheese'; vocabulary 3.
    'salmonella': A = log 1/2 + log (0+1)/(2+3), B = log 1/2 + log (1+1)/(2+3): B. 'cheese': both log 1/2 + log 2/5,
    a tie: A, the first by name. No known word: the priors tie: A."""
    trainer = load_file(CODE_KIT / "kit" / "train_baseline.py")
    rows = [dict(zip(LABELS, ("A", "P", "a", "p")), title="Milk-cheese", text=""),
            dict(zip(LABELS, ("B", "Q", "b", "q")), title="salmonella CHEESE", text="")]
    params = trainer.train(rows)
    assert params["vocabulary_size"] == 3
    assert params["labels"]["hazard-category"] == {
        "A": {"documents": 1, "words": 2, "counts": {"milk": 1, "cheese": 1}},
        "B": {"documents": 1, "words": 2, "counts": {"salmonella": 1, "cheese": 1}}}
    (tmp_path / "nb_params.json").write_text(json.dumps(params))
    model = load_file(CODE_KIT / "model" / "model.py").load(str(tmp_path))
    got = model.predict([{"title": "Salmonella", "text": ""}, {"title": "cheese", "text": ""},
                         {"title": "E. coli", "text": "xx"}])
    assert [g["hazard-category"] for g in got] == ["B", "A", "A"]
    assert got[0] == {"hazard-category": "B", "product-category": "Q", "hazard": "b", "product": "q"}


@pytest.mark.parametrize("edit,message", [
    (lambda s: s["code_submission"].update(time_limit=295),
     "code_submission: time_limit 295 s leaves phase 1 (Evaluation) less than 10 s of its execution_time_limit "
     "(300 s, at most 600 on Codabench's default queue)"),
    (lambda s: s["code_submission"].update(baseline="code_kit/nothing"), "baseline: "),
    (lambda s: s["code_submission"].pop("output"), "code_submission"),
    (lambda s: s["code_submission"].update(input_format="xml"), "code_submission.input_format is one of csv, tsv, "
                                                                 "jsonl"),
    (lambda s: s["code_submission"].update(columns=[]), "code_submission.columns must list the columns"),
])
def test_task_yaml_mistakes_are_named(tmp_path, edit, message):
    folder = competition(tmp_path, edit)
    with pytest.raises(taskdef.TaskDefinitionError) as error:
        taskdef.load_task(TASK, bundles_dir=folder / "bundles")
    assert message in str(error.value)


def test_inputs_the_public_data_hook_does_not_write_fail_the_build(tmp_path):
    folder = competition(tmp_path, lambda s: s["code_submission"].update(inputs="items.csv"))
    outcome = build.build(TASK, folder / "dist", bundles_dir=folder / "bundles", check=False)
    assert outcome.error == ("split 'test': the public data hook wrote incidents.csv, not code_submission.inputs "
                             "items.csv (the file the model's items are read from)")


def test_the_build_checks_the_baseline_with_both_steps(tmp_path):
    folder = competition(tmp_path)
    outcome = build.build(TASK, folder / "dist", bundles_dir=folder / "bundles")
    assert outcome.ok, outcome.error
    assert [(run.phase, run.status) for run in outcome.samples] == [(1, "Finished")]
    assert outcome.samples[0].scores == code_run.run(outcome.built.codabench, 1)["scores"]
    assert code_submission.NO_V15 in outcome.notes


def _gold(folder, column, dev, test):
    for split, values in (("dev", dev), ("test", test)):
        (folder / split).mkdir(parents=True)
        (folder / split / "gold.csv").write_text("id,text,%s\n" % column + "".join(
            "%s%d,text %d,%s\n" % (split, n, n, value) for n, value in enumerate(values)))


def test_new_makes_a_code_submission_classification_task(tmp_path):
    """Dev gold a, b, b, c: the baseline predicts b, the most frequent. On dev: accuracy 2/4; F1 of b = 2PR/(P+R)
    with P = 2/4, R = 1: 2/3, of a and c 0: macro-F1 2/9. On test (b, b, b, a, a): accuracy 3/5, F1 of b 2*(3/5)/(8/5)
    = 3/4, of a 0: macro-F1 3/8."""
    from codalab_bundles.authoring import new_task
    _gold(tmp_path / "gold", "label", "a b b c".split(), "b b b a a".split())
    folder = tmp_path / "competition"
    new_task.create("senti", "classification", str(tmp_path / "gold"), root=folder, ci=False, code=True)
    assert json.loads((folder / "bundles/senti/code_kit/model/params.json").read_text()) == {"label": "b"}
    spec = yaml.safe_load((folder / "bundles/senti/task.yaml").read_text())
    assert spec["code_submission"] == {"inputs": "items.csv", "input_format": "csv", "id_column": "id",
                                       "output": "predictions.csv", "output_format": "csv", "columns": ["label"],
                                       "time_limit": 120, "memory_mb": 2048, "baseline": "code_kit/model",
                                       "kit": "code_kit/kit"}
    outcome = build.build("senti", folder / "dist", bundles_dir=folder / "bundles")
    assert outcome.ok, outcome.error
    scores = [(run.phase, round(run.scores["accuracy"], 10), round(run.scores["macro_f1"], 10))
              for run in outcome.samples]
    assert scores == [(1, 0.5, round(2 / 9, 10)), (2, 0.6, 0.375)]
    with zipfile.ZipFile(str(outcome.built.codabench)) as archive:
        assert "submitting.html" in archive.namelist()
        assert "120 seconds" in archive.read("submitting.html").decode()


def test_new_makes_a_code_submission_regression_task(tmp_path):
    from codalab_bundles.authoring import new_task
    _gold(tmp_path / "gold", "score", ["1", "2", "3", "6"], ["1", "5"])
    folder = tmp_path / "competition"
    new_task.create("essays", "regression", str(tmp_path / "gold"), root=folder, ci=False, code=True)
    assert json.loads((folder / "bundles/essays/code_kit/model/params.json").read_text()) == {"score": 3.0}
    outcome = build.build("essays", folder / "dist", bundles_dir=folder / "bundles")
    assert outcome.ok, outcome.error
    assert [round(run.scores["mae"], 10) for run in outcome.samples] == [1.5, 2.0]  # |1-3|+|2-3|+0+|6-3| / 4


def test_new_refuses_a_code_submission_of_another_kind(tmp_path):
    from codalab_bundles.authoring import new_task
    with pytest.raises(new_task.NewTaskError) as error:
        new_task.create("tags", "multilabel", root=tmp_path, ci=False, code=True)
    assert str(error.value).startswith("--code-submission makes a classification or regression task")
    assert not (tmp_path / "bundles").exists()


def test_the_variants_own_pages_are_safe_balanced_fragments(built):
    from codalab_bundles.authoring import render
    from test_every_task import assert_safe_fragment
    task = built[0]
    for key in ("overview", "submitting"):
        assert_safe_fragment(render.page_bytes(task, key).decode("utf-8"), key)
    assert "Post-Evaluation" in render.page_bytes(task, "overview").decode("utf-8")  # its schedule
