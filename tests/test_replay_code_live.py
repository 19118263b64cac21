"""Code submissions on a real Codabench (issue 42): the local one of tools/codabench_local, where the bundles are
published on a queue of their own served by one compute worker with COMPETITION_CONTAINER_NETWORK_DISABLED=true
(tools/codabench_local/network_off_queue.sh; the site's shared workers are left alone). Skipped, saying why, when
the local site does not answer.

Each case of tests/code_bundles.py is submitted by a robot account with ``submit --expect-replay BUNDLE --docker
--image <stand-in>``: the site's status, scores and status details must be the replay's (in Docker, network off),
and the logs the site keeps of each step must be the replay's. The infinite loop is a test of its own: Codabench
lets it run to the site's Celery soft limit, the phase's limit + 20 minutes (about 21 minutes here)."""
import json
import subprocess
import urllib.request

import pytest

import code_bundles
from codalab_bundles import replay
from codalab_bundles.replay import codabench_worker
from codalab_bundles.site import codabench_api
from conftest import ROOT
from test_codabench_live import URL, WHY, cli_as, local_account, published_for_robots

pytestmark = pytest.mark.skipif(URL is None, reason="needs a running Codabench: %s" % WHY)

STANDIN = "codalab-replay/standin:bullseye"
QUEUE_SH = ROOT / "tools" / "codabench_local" / "network_off_queue.sh"


@pytest.fixture(scope="module")
def queue():
    local_account()  # skips unless the site under test is the local one
    running = subprocess.run(["bash", str(QUEUE_SH), "status"], capture_output=True, text=True).returncode == 0
    proc = subprocess.run(["bash", str(QUEUE_SH), "start"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    vhost = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)["QUEUE_VHOST"]
    yield vhost
    if not running:  # a worker someone else started stays
        subprocess.run(["bash", str(QUEUE_SH), "stop"], capture_output=True, text=True, timeout=300)


def _publish(path, organizer):
    return published_for_robots(organizer, path)


def _submit(robot, submission, competition, *extra):
    """``submit --json`` of one zip by ``robot``: its result."""
    proc = cli_as(robot["CODABENCH_TOKEN"], "submit", submission, "--competition", competition, "--phase", 1,
                  "--json", *extra)
    return json.loads(proc.stdout.splitlines()[-1])


def _logs(robot, submission_id):
    client = codabench_api.Client(URL, robot["CODABENCH_TOKEN"])
    found = client.call("reading the logs", "GET", "/api/submissions/%s/get_details/" % submission_id)
    return dict((log["name"], urllib.request.urlopen(log["data_file"]).read().decode("utf-8"))
                for log in found["logs"])


def _submit_and_compare(tmp_path, robot, competition, bundle_path, name, data):
    path = tmp_path / ("%s.zip" % name)
    path.write_bytes(data)
    result = _submit(robot, path, competition, "--expect-replay", bundle_path, "--docker", "--image", STANDIN)
    assert result["differences"] == [], result
    mine = replay.replay(bundle_path, path, executor=replay.DockerExecutor(STANDIN))
    logs = _logs(robot, result["id"])
    ingestion = [c for c in mine["prediction"]["containers"] if c["kind"] == "ingestion"]
    if ingestion and not ingestion[0]["logs_lost"]:
        which = "scoring_ingestion_stderr" if "scoring step" in ingestion[0]["what"] else \
            "prediction_ingestion_stderr"
        assert logs[which] == ingestion[0]["stderr"], (name, logs)
    assert logs["scoring_stderr"] == mine["stderr"], (name, logs)
    return result, mine


def _final_details(robot, submission_id, wait=420):
    """The submission's status details once it is Failed with the scoring step over (its retries take ~3 min)."""
    import time
    client = codabench_api.Client(URL, robot["CODABENCH_TOKEN"])
    deadline = time.time() + wait
    while True:
        found = client.call("reading the submission", "GET", "/api/submissions/%s/" % submission_id)
        if found.get("status") == "Failed" and found.get("status_details") != "Metadata file not found" or \
                time.time() > deadline:
            return found.get("status_details")
        time.sleep(10)


# (bundle kind, case, the status and accuracy both must show, the status details of a failed one)
CHILD = "Child task failed or non-zero return code"
EXPECTED = [
    ("ingestion", "good", "Finished", 1.0, None),
    ("ingestion", "crash", "Failed", None, CHILD),
    ("ingestion", "network", "Failed", None, CHILD),  # no route out: the model's own OSError
    ("ingestion", "outside", "Finished", 1.0, None),  # its writes stay outside the prediction result
    ("ingestion", "reads_gold", "Finished", 0.0, None),  # no gold in the prediction step
    ("own_command", "good", "Finished", 1.0, None),
    ("own_command", "crash", "Finished", 0.0, None),  # predict.py opened predictions.txt before it crashed
    ("own_command", "no_command", "Failed", None, "Bad or empty zip file"),  # after ~3 min of the scoring step
    ("during_scoring", "good", "Finished", 1.0, None),  # scored by the ingestion program, run after the scoring one
    ("during_scoring", "reads_gold", "Finished", 1.0, None),  # ingestion_only_during_scoring exposes the gold
    # a scoring program that waits for the ingestion's output: the worker starts the ingestion only once the scoring
    # program has ended (its event loop is blocked reading the logs)
    ("during_scoring_wait", "good", "Failed", None, CHILD),
    ("no_ingestion_command", "good", "Failed", None, CHILD),  # the ingestion never runs; scored on nothing
    # $program in a scoring-time ingestion command is /app/ingestion_program, which is not mounted (seen live:
    # "python3: can't open file '/app/ingestion_program/ingest.py'")
    ("during_scoring_program", "good", "Failed", None,
     "Could not find scores file, did the scoring program output it?"),
]


def test_code_submissions_end_on_codabench_as_their_replay_says(queue, tmp_path):
    organizer = local_account()
    robot = local_account("--bot", "w-robot1")
    bundles = {}
    for kind in sorted(set(k for k, _, _, _, _ in EXPECTED)):
        if kind == "no_ingestion_command":
            data = code_bundles.bundle("ingestion", title="W code (ingestion without command)", queue=queue,
                                       ingestion_metadata="description: no command\n")
        elif kind == "during_scoring_program":
            data = code_bundles.bundle("during_scoring", title="W code (during scoring, $program)", queue=queue,
                                       ingestion_metadata="command: python3 $program/ingest.py /app/input_data "
                                                          "/app/output /app/ingested_program\n")
        else:
            data = code_bundles.bundle(kind, title="W code (%s)" % kind, queue=queue)
        path = tmp_path / ("%s.zip" % kind)
        path.write_bytes(data)
        bundles[kind] = (path, _publish(path, organizer))
    for kind, case, status, accuracy, details in EXPECTED:
        path, competition = bundles[kind]
        if kind == "own_command":
            data = code_bundles.own_command_submission("good", metadata="description: no command\n") \
                if case == "no_command" else code_bundles.own_command_submission(case)
        else:
            data = code_bundles.submission(case)
        result, mine = _submit_and_compare(tmp_path, robot, competition, path, "%s-%s" % (kind, case), data)
        assert (result["status"], mine["status"]) == (status, status), (kind, case, result, mine["reason"])
        assert result["scores"] == ({"accuracy": accuracy} if accuracy is not None else {}), (kind, case)
        if details == "Bad or empty zip file":
            # Codabench shows "Metadata file not found" until the scoring step it has already started gives up
            assert result["details"] in ("Metadata file not found", details), (kind, case, result)
            assert _final_details(robot, result["id"]) == mine["site_details"] == details, (kind, case)
        elif details:
            assert result["details"] == mine["site_details"] == details, (kind, case)


def test_an_infinite_loop_runs_to_the_soft_time_limit(queue, tmp_path, monkeypatch):
    """About 21 minutes: the phase's limit (5 s) + the 20 minutes of the site's Celery soft limit, which the worker
    catches: the ingestion gets exit status 1, its container is left running (removed here), the scoring step
    fails. The replay, run here with the soft limit 1 s after the time limit, must end the same way."""
    organizer = local_account()
    robot = local_account("--bot", "w-robot1")
    path = tmp_path / "loop-bundle.zip"
    path.write_bytes(code_bundles.bundle("ingestion", title="W code (loop)", queue=queue, time_limit=5))
    competition = _publish(path, organizer)
    submission = tmp_path / "loop.zip"
    submission.write_bytes(code_bundles.submission("loop"))
    result = _submit(robot, submission, competition)
    left = subprocess.run(["docker", "ps", "-q", "--filter", "name=_sID-%s$" % result["id"]], capture_output=True,
                          text=True, timeout=60).stdout.split()
    assert len(left) == 1  # the worker left the ingestion's container running
    subprocess.run(["docker", "rm", "-f"] + left, capture_output=True, timeout=60)
    monkeypatch.setattr(codabench_worker, "CODABENCH_SOFT_LIMIT_PADDING", 1)
    mine = replay.replay(path, submission, executor=replay.DockerExecutor(STANDIN))
    assert result["status"] == mine["status"] == "Failed", result
    assert result["details"] == mine["site_details"] == CHILD
    logs = _logs(robot, result["id"])
    assert logs["prediction_ingestion_stderr"] == "" and logs["scoring_stderr"] == mine["stderr"]


def test_the_real_iris_example_scores_on_codabench_as_its_replay(tmp_path):
    """Codabench's own Iris example (tools/code_corpus), published as its organizers wrote it (the default queue:
    its model needs no network), its sample code submission scored by the site's workers and by the replay in
    Docker; the image is the stand-in plus psutil, tagged as the example's codalab/codalab-legacy:py312 when no such
    image exists."""
    import sys
    organizer = local_account()
    robot = local_account("--bot", "w-robot1")
    corpus = ROOT / "tools" / "code_corpus"
    out = tmp_path / "corpus"
    proc = subprocess.run([sys.executable, str(corpus / "build_corpus.py"), "--out", str(out)], capture_output=True,
                          text=True, timeout=300)
    if "iris: skipped" in proc.stdout or proc.returncode != 0:
        pytest.skip("no mirror of codalab/competition-examples: %s" % proc.stdout.strip())
    image = subprocess.run(["bash", str(corpus / "build_image.sh"), "--alias"], capture_output=True, text=True,
                           timeout=600)
    assert image.returncode == 0, image.stderr
    competition = _publish(out / "iris.zip", organizer)
    submission = out / "iris--sample_code.zip"
    result = _submit(robot, submission, competition)
    mine = replay.replay(out / "iris.zip", submission, executor=replay.DockerExecutor(image.stdout.split()[-1]))
    assert result["status"] == mine["status"] == "Finished", (result, mine["reason"])
    assert result["scores"]["set1_score"] == round(mine["scores"]["set1_score"], 10) == 0.3333333333  # 10 decimals
    assert result["scores"]["Duration"] > 0 and mine["scores"]["Duration"] > 0  # each run's own elapsed time
    logs = _logs(robot, result["id"])
    assert "Using submission_dir: /app/ingested_program" in logs["prediction_ingestion_stdout"]


def test_on_the_shared_default_queue_the_model_reaches_the_network(tmp_path):
    """The same bundle without a queue: the site's shared workers leave the network on (as Codabench's do by
    default), the model finds a route out and the submission is scored; the replay agrees only with --network."""
    organizer = local_account()
    robot = local_account("--bot", "w-robot2")
    path = tmp_path / "default-queue.zip"
    path.write_bytes(code_bundles.bundle("ingestion", title="W code (default queue, network on)"))
    competition = _publish(path, organizer)
    submission = tmp_path / "network.zip"
    submission.write_bytes(code_bundles.submission("network"))
    result = _submit(robot, submission, competition)
    assert result["status"] == "Finished" and result["scores"] == {"accuracy": 1.0}, result
    assert replay.replay(path, submission, executor=replay.DockerExecutor(STANDIN))["status"] == "Failed"
    on = replay.replay(path, submission, executor=replay.DockerExecutor(STANDIN, network=True))
    assert on["status"] == "Finished" and on["scores"] == {"accuracy": 1.0}
