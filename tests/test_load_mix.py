"""bench/load_mix.py: the test phase, and a mixed batch that is deterministic, distinct zip by zip, in the stated
proportions, and scored by the replay as its kinds say (the slow and huge runs are left out: minutes and 200 MB)."""
import collections
import hashlib

import pytest
import yaml

from conftest import ROOT
from codalab_bundles.loading import load_file
from codalab_bundles.replay import run as replay_run

load_mix = load_file(ROOT / "bench" / "load_mix.py")

TASKS = ("toxic-spans", "ehealth-kd")
COUNT = 12


def _task_yaml_test_phase(task):
    """The 1-based number of the first phase of bundles/<task>/task.yaml whose split is the test split."""
    phases = yaml.safe_load((ROOT / "bundles" / task / "task.yaml").read_text(encoding="utf-8"))["phases"]
    return [number for number, phase in enumerate(phases, 1) if phase.get("split") == "test"][0]


@pytest.fixture(scope="module")
def batches(built_bundles, tmp_path_factory):
    """{task: (bundle, phase, first batch, second batch)}, each batch written into a folder of its own."""
    found = {}
    for task in TASKS:
        bundle = built_bundles[task].codabench
        phase = load_mix.test_phase(bundle)
        runs = [load_mix.mixed_runs(bundle, phase, tmp_path_factory.mktemp("%s-%d" % (task, attempt)), COUNT,
                                    seed=3, slow=False, huge=False) for attempt in (1, 2)]
        found[task] = (bundle, phase, runs[0], runs[1])
    return found


@pytest.mark.parametrize("task", TASKS)
def test_the_test_phase_is_the_first_phase_of_the_test_split(built_bundles, task):
    assert load_mix.test_phase(built_bundles[task].codabench) == _task_yaml_test_phase(task)
    assert load_mix.test_phase(built_bundles[task].codalab) == _task_yaml_test_phase(task)


def test_the_same_arguments_give_the_same_bytes(batches):
    for task, (_, _, first, second) in batches.items():
        assert [r["kind"] for r in first] == [r["kind"] for r in second]
        assert [r["note"] for r in first] == [r["note"] for r in second]
        for one, two in zip(first, second):
            assert one["path"] != two["path"]
            with open(one["path"], "rb") as a, open(two["path"], "rb") as b:
                assert a.read() == b.read(), (task, one["path"])


def test_every_zip_has_bytes_of_its_own_and_its_digest_is_right(batches):
    digests = []
    for _, _, first, _ in batches.values():
        for run in first:
            with open(run["path"], "rb") as handle:
                assert hashlib.sha256(handle.read()).hexdigest() == run["sha256"]
            digests.append(run["sha256"])
    assert len(digests) == len(TASKS) * COUNT
    assert len(set(digests)) == len(digests)


def test_the_kinds_in_their_proportions(batches):
    for _, _, first, _ in batches.values():
        kinds = collections.Counter(run["kind"] for run in first)
        # 20% format errors (rounded), the rest valid: no slow or huge run was asked for.
        assert kinds == {"valid": 10, "format-error": 2}
        assert all(run["note"] for run in first)


@pytest.mark.parametrize("task", TASKS)
def test_a_valid_run_finishes_and_a_format_error_fails_with_the_programs_message(batches, task, tmp_path):
    bundle, phase, first, _ = batches[task]
    valid = next(run for run in first if run["kind"] == "valid")
    error = next(run for run in first if run["kind"] == "format-error")
    report = replay_run.replay(bundle, valid["path"], phase_number=phase, temp_dir=str(tmp_path))
    assert report["status"] == "Finished", report
    assert report["scores"] and not report["columns_without_score"]
    report = replay_run.replay(bundle, error["path"], phase_number=phase, temp_dir=str(tmp_path))
    assert report["status"] == "Failed", report
    assert report["exit_code"] == 1
    assert report["stderr"].startswith("Submission error: ") and "Traceback" not in report["stderr"], report
