"""Two-file scoring gives exactly the platform layout's scores and signature: every task's and every generic kind's
sample runs (straight from the built bundle's zips), and the published runs of the real data (skipped when absent)."""
import io
import json
import subprocess
import sys
import zipfile

import pytest

from codalab_bundles.authoring import build, generic_kits, new_task, taskdef
from conftest import ROOT, run_scoring_program, shared_path


def two_files(program, gold, pred, env=None):
    import os
    proc = subprocess.run([sys.executable, str(program / "evaluate.py"), "--gold", str(gold), "--pred", str(pred),
                           "--json"], capture_output=True, text=True, env=dict(os.environ, **(env or {})))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def unzip(data, target):
    zipfile.ZipFile(io.BytesIO(data)).extractall(str(target))
    return target


def check_split(bundle_zip, split, program, workdir, env=None, task="generic"):
    """The split's sample submission scored through the platform layout and as two zips given to --gold/--pred."""
    with zipfile.ZipFile(str(bundle_zip)) as bundle:
        reference = bundle.read("reference_%s.zip" % split)
        kit = zipfile.ZipFile(io.BytesIO(bundle.read("starting_kit_%s.zip" % split)))
        sample = kit.read("sample_submission.zip")
    workdir.mkdir()
    (workdir / "reference.zip").write_bytes(reference)
    (workdir / "sample.zip").write_bytes(sample)
    platform = run_scoring_program(task, unzip(reference, workdir / "ref"), unzip(sample, workdir / "res"),
                                   workdir / "platform", program_dir=program, env=env)
    assert platform.returncode == 0, platform.stderr
    report = two_files(program, workdir / "reference.zip", workdir / "sample.zip", env)
    assert report["scores"] == platform.scores  # exactly, every key
    assert report["signature"] == platform.signature and platform.signature["gold_sha256"]


@pytest.mark.parametrize("name", taskdef.task_names())
def test_sample_runs_of_every_split(name, built_bundles, tmp_path):
    task = taskdef.load_task(name)
    for split in task.splits:
        check_split(built_bundles[name].codabench, split, task.scoring_program, tmp_path / split, task=name)


@pytest.mark.parametrize("kind", generic_kits.KINDS)
def test_sample_runs_of_every_generic_kind(kind, tmp_path):
    folder = tmp_path / "competition"
    new_task.create("demo", kind, root=folder)
    task = taskdef.load_task("demo", bundles_dir=folder / "bundles")
    built = build.build_task(task, folder / "dist")
    config = {"GENERIC_SCORING_CONFIG": str(task.scoring_program / "scoring.json")}
    for split in task.splits:
        check_split(built.codabench, split, ROOT / "scoring_programs" / "generic", tmp_path / split, config)


# ---------------------------------------------------------------------------------------------------------------
# Published runs


def both_ways(task, gold_name, gold, res_name, pred, tmp_path):
    platform = run_scoring_program(task, {gold_name: gold}, {res_name: pred}, tmp_path / "platform")
    assert platform.returncode == 0, platform.stderr
    report = two_files(ROOT / "scoring_programs" / task, gold, pred)
    assert report["scores"] == platform.scores
    assert report["signature"] == platform.signature
    return report


def test_food_hazard_participant_run(tmp_path):
    both_ways("food-hazard", "incidents_test.csv", shared_path("food-hazard", "incidents_test.csv"),
              "submission.csv", shared_path("food-hazard", "published-predictions", "test_predictions_participant.csv"),
              tmp_path)


@pytest.mark.parametrize("name", ["gpt3_zero_shot_fold0.json", "gpt3_few_shot_fold0.json"])
def test_recipe_mpr_published_folds(name, tmp_path):
    predictions = shared_path("recipe-mpr", "published-predictions", name)
    asked = set(p["query"] for p in json.loads(predictions.read_text(encoding="utf-8")))
    full = json.loads(shared_path("recipe-mpr", "500QA.json").read_text(encoding="utf-8"))
    gold = tmp_path / "500QA_fold0.json"
    gold.write_text(json.dumps([q for q in full if q["query"] in asked]), encoding="utf-8")
    report = both_ways("recipe-mpr", gold.name, gold, "predictions.json", predictions, tmp_path)
    assert report["scores"]["accuracy"] == pytest.approx(0.67 if "zero" in name else 0.57, abs=1e-12)


@pytest.mark.parametrize("run", ["baseline_test.zip", "participant-runs/lsi2_uned_574805.zip",
                                 "participant-runs/talp_576639.zip", "participant-runs/abravo_576683.zip",
                                 "participant-runs/vsp_576661.zip"])
def test_ehealth_kd_published_runs(run, tmp_path):
    gold = shared_path("ehealth-kd-2019", "testing")
    submission = shared_path("ehealth-kd-2019", "published-submissions", *run.split("/"))
    platform = run_scoring_program("ehealth-kd", gold, unzip(submission.read_bytes(), tmp_path / "res"),
                                   tmp_path / "platform")
    assert platform.returncode == 0, platform.stderr
    report = two_files(ROOT / "scoring_programs" / "ehealth-kd", gold, submission)
    assert report["scores"] == platform.scores and report["signature"] == platform.signature
