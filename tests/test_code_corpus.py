"""Real code-submission bundles written by others (tools/code_corpus: Codabench's own Iris and shortest-path examples
from codalab/competition-examples, rebuilt from the mirror at a fixed commit; never committed here), replayed as
Codabench's worker runs them, in Docker with the network off. Skipped when the mirror or Docker is absent.

What they show: Iris's ingestion program finds its paths in argv ($ingestion_program, $submission_program) and
trains the participant's scikit-learn model in the prediction step; its scoring program reads the worker's
output/metadata (the Duration column is the ingestion's elapsed time). The shortest-path example hard-codes
/app/ingested_program and /app/output in its programs: only the container layout runs it (locally the replay
cannot find the model, and says so in the ingestion's stderr)."""
import os
import subprocess
import sys

import pytest

from codalab_bundles import replay
from conftest import ROOT
from docker_support import docker_image  # noqa: F401 (a fixture)

CORPUS = ROOT / "tools" / "code_corpus"
MIRROR = "/work/.mirror"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    import json
    entries = json.loads((CORPUS / "manifest.json").read_text())
    if any(not os.path.isdir(os.path.join(MIRROR, e["repo"].replace("/", "+"), "repo")) for e in entries):
        pytest.skip("no mirror of the corpus's repositories under %s (fetch codalab/competition-examples)" % MIRROR)
    out = tmp_path_factory.mktemp("code-corpus")
    proc = subprocess.run([sys.executable, str(CORPUS / "build_corpus.py"), "--mirror", MIRROR, "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "skipped" not in proc.stdout, proc.stdout + proc.stderr
    return out


@pytest.fixture(scope="module")
def psutil_image(docker_image):  # noqa: F811
    proc = subprocess.run(["bash", str(CORPUS / "build_image.sh")], capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        pytest.skip("no image with psutil for the Iris example: %s" % (proc.stderr.strip()[-300:]))
    return proc.stdout.strip().splitlines()[-1]


def _ingestion(report):
    return [c for c in report["prediction"]["containers"] if c["kind"] == "ingestion"][0]


@pytest.mark.parametrize("submission", ["sample_code", "sample_result"])
def test_iris_trains_the_participant_s_model_in_the_prediction_step(corpus, psutil_image, submission):
    report = replay.replay(corpus / "iris.zip", corpus / ("iris--%s.zip" % submission),
                           executor=replay.DockerExecutor(psutil_image))
    assert report["status"] == "Finished", replay.format_report(report)
    # the baseline model predicts one class for every flower: a third of the 30 validation flowers
    assert report["scores"]["set1_score"] == 0.333333333333
    ingestion = _ingestion(report)
    assert "Using submission_dir: /app/ingested_program" in ingestion["stdout"]
    meta = report["prediction"]["metadata"]
    if submission == "sample_result":  # no model.py: the ingestion fails, the results copied to the output score
        assert ingestion["exit_code"] == meta["ingestionExitCode"] == 1
        assert report["prediction"]["problems"] == ["the ingestion program exited with status 1 (Codabench goes on "
                                                    "to the scoring step all the same)"]
        assert report["warnings"][-1].startswith("prediction step: the ingestion program exited with status 1")
    else:
        assert ingestion["exit_code"] == meta["ingestionExitCode"] == 0
    # Duration is the ingestion's elapsed time, read from the worker's output/metadata
    assert report["scores"]["Duration"] == pytest.approx(report["prediction"]["metadata"]["elapsedTime"], abs=1e-6)
    assert meta["exitCode"] is None


def test_shortest_path_runs_only_in_the_container_layout(corpus, docker_image):  # noqa: F811
    bundle, submission = corpus / "shortest-path.zip", corpus / "shortest-path--dijkstra.zip"
    local = replay.replay(bundle, submission)
    assert _ingestion(local)["exit_code"] == 1
    assert "ModuleNotFoundError: No module named 'model'" in _ingestion(local)["stderr"]
    report = replay.replay(bundle, submission, executor=replay.DockerExecutor(docker_image))
    assert _ingestion(report)["exit_code"] == 0 and _ingestion(report)["command"].endswith(" python3 ingestion.py")
    # its scoring program draws with matplotlib, which codalab-legacy:py312 has and the stand-in image lacks
    assert report["status"] == "Failed" and "No module named 'matplotlib'" in report["stderr"]
