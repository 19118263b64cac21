"""The organizer's size limit on submissions (task.yaml max_submission_mb; scoring_programs/common/scoring_limits.py):
written into the scoring program by the build, checked by the runtime before anything of a submission is read."""
import json
import zipfile

import pytest
import yaml

from codalab_bundles.authoring import build, new_task, taskdef
from conftest import ROOT, run_scoring_program

import scoring_limits  # noqa: E402  (the runtime's folder is on sys.path: conftest)

MB = 1000 * 1000


def _program(tmp_path, limit):
    folder = tmp_path / "program"
    folder.mkdir()
    if limit is not None:
        (folder / "submission_limit.json").write_text(json.dumps({"max_mb": limit}), encoding="utf-8")
    return str(folder)


def _submission(tmp_path, sizes):
    res = tmp_path / "res"
    for name, size in sizes.items():
        (res / name).parent.mkdir(parents=True, exist_ok=True)
        (res / name).write_bytes(b"x" * size)
    return str(res)


@pytest.mark.parametrize("limit, sizes, message", [
    (None, {"a.csv": 3 * MB}, None),                                   # no file: no limit
    (1, {"a.csv": 600000, "b/c.csv": 400000}, None),                   # 1,000,000 bytes: at the limit, within it
    (1, {"a.csv": 600000, "b/c.csv": 400001},
     "Submission error: the submission's files add up to 1.000001 MB, more than this task's limit of 1 MB (the largest "
     "is a.csv, 0.6 MB); nothing of it was read"),
    (0.5, {"run/big.json": 2500000, "small.txt": 10},
     "Submission error: the submission's files add up to 2.50001 MB, more than this task's limit of 0.5 MB (the largest "
     "is run/big.json, 2.5 MB); nothing of it was read"),
])
def test_the_limit_by_hand(tmp_path, limit, sizes, message):
    assert scoring_limits.oversized(_submission(tmp_path, sizes), _program(tmp_path, limit)) == message


def test_a_broken_limit_file_is_the_organizers_problem(tmp_path):
    folder = _program(tmp_path, 0)
    assert scoring_limits.oversized(_submission(tmp_path, {"a": 1}), folder) == (
        "Scoring program error (a problem for the organizers, not your submission): submission_limit.json: max_mb "
        "must be a positive number")


def test_a_program_with_a_limit_refuses_before_reading(tmp_path):
    """toxic-spans with a limit of 0.001 MB: a run of 2 KB whose first line is broken gets the size message (the
    program never read it), one of 900 bytes gets the program's own message."""
    program = tmp_path / "toxic-spans"
    program.mkdir()
    for source in list((ROOT / "scoring_programs" / "toxic-spans").glob("*.py")) + \
            list((ROOT / "scoring_programs" / "common").glob("*.py")):
        (program / source.name).write_bytes(source.read_bytes())
    (program / "submission_limit.json").write_text('{"max_mb": 0.001}', encoding="utf-8")
    gold = {"spans-gold.txt": "0\t[1, 2]\n"}
    big = run_scoring_program("toxic-spans", gold, {"spans-pred.txt": "not a line\n" * 200}, tmp_path / "big",
                              program_dir=program)
    big.assert_rejected()
    assert big.stderr.strip() == ("Submission error: the submission's files add up to 0.0022 MB, more than this "
                                  "task's limit of 0.001 MB (the largest is spans-pred.txt, 0.0022 MB); nothing of it "
                                  "was read")
    small = run_scoring_program("toxic-spans", gold, {"spans-pred.txt": "not a line\n" * 80}, tmp_path / "small",
                                program_dir=program)
    small.assert_rejected()
    assert "spans-pred.txt, line 1" in small.stderr


def _new(tmp_path):
    new_task.create("demo", "classification", root=tmp_path / "competition")
    return tmp_path / "competition"


def test_the_build_writes_the_limit_into_every_program(tmp_path):
    folder = _new(tmp_path)
    path = folder / "bundles" / "demo" / "task.yaml"
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    unlimited = build.build_task(taskdef.load_task("demo", bundles_dir=folder / "bundles"), tmp_path / "d1")
    with zipfile.ZipFile(str(unlimited[0])) as bundle:
        program = zipfile.ZipFile(bundle.open("scoring_program.zip"))
        assert "submission_limit.json" not in program.namelist()
    spec["max_submission_mb"] = 50
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    limited = build.build_task(taskdef.load_task("demo", bundles_dir=folder / "bundles"), tmp_path / "d2")
    for built in limited:
        with zipfile.ZipFile(str(built)) as bundle:
            program = zipfile.ZipFile(bundle.open("scoring_program.zip"))
            assert json.loads(program.read("submission_limit.json")) == {"max_mb": 50}


@pytest.mark.parametrize("value", [0, -1, "100", True])
def test_task_yaml_refuses_a_limit_that_is_not_a_positive_number(tmp_path, value):
    folder = _new(tmp_path)
    path = folder / "bundles" / "demo" / "task.yaml"
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    spec["max_submission_mb"] = value
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    with pytest.raises(taskdef.TaskDefinitionError) as caught:
        taskdef.load_task("demo", bundles_dir=folder / "bundles")
    assert "max_submission_mb must be a positive number of megabytes (1,000,000 bytes), or null for no limit" in \
        str(caught.value)
