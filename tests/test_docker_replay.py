"""Replay in Docker, as the workers run it, against the offline stand-in image (old stack: Python 3.9, pandas 1.1,
scikit-learn 0.23). Skipped with the reason when no engine can run (CI sets CODALAB_REPLAY_REQUIRE_DOCKER=1)."""
import pytest

from codalab_bundles import replay
from codalab_bundles.authoring import build
from codalab_bundles.zips import pack
from docker_support import docker_image  # noqa: F401  (the fixture)
from toy_task import make_toy


def docker(image):
    return replay.DockerExecutor(image)


@pytest.mark.parametrize("platform", ["codalab", "codabench"])
def test_every_sample_scores_the_same_in_docker_and_locally(built_bundles, docker_image, platform):  # noqa: F811
    for name, bundles in built_bundles.items():
        bundle = bundles[0] if platform == "codalab" else bundles[1]
        local = replay.replay(bundle, platform=platform)
        contained = replay.replay(bundle, platform=platform, executor=docker(docker_image))
        assert local["status"] == contained["status"] == "Finished", (name, contained["stderr"])
        assert contained["scores"] == local["scores"], name  # bit for bit, not approximately
        assert contained["worker"].endswith("(docker %s)" % docker_image)
        assert contained["command"][0].startswith("docker run --rm --name=")


def test_time_limit_in_docker_fails_like_the_worker(tmp_path, docker_image):  # noqa: F811
    bundle = build.build_task(make_toy(tmp_path, limit=2), tmp_path / "dist").codalab
    sub = tmp_path / "sleep.zip"
    sub.write_bytes(pack.zip_entries([("answers.txt", b"SLEEP\n")]))
    report = replay.replay(bundle, sub, platform="codalab", executor=docker(docker_image))
    assert report["status"] == "Failed"
    assert report["exit_code"] == -1
    assert report["reason"] == "Execution time limit exceeded!"
    assert report["stderr"].rstrip().endswith("Execution time limit exceeded!")
    assert report["elapsed_seconds"] < 30


def test_failing_submission_shows_the_participant_message_in_docker(built_bundles, tmp_path, docker_image):  # noqa: F811
    sub = tmp_path / "bad.zip"
    sub.write_bytes(pack.zip_entries([("spans-pred.txt", b"0\t[1, 2]\nzero\t[]\n")]))
    bundle = built_bundles["toxic-spans"].codalab
    local = replay.replay(bundle, sub)
    contained = replay.replay(bundle, sub, executor=docker(docker_image))
    assert contained["status"] == "Failed" and contained["exit_code"] == 1
    assert contained["stderr"] == local["stderr"]
    assert contained["stderr"].startswith("Submission error: spans-pred.txt, line 2")
    assert "Traceback" not in contained["stderr"]


def test_the_bundle_image_is_used_unless_one_is_given(built_bundles):
    executor = replay.DockerExecutor()
    executor.prepare(replay.Bundle(built_bundles["toxic-spans"].codalab))
    assert executor.image == "codalab/codalab-legacy:py37"
    given = replay.DockerExecutor("codalab-replay/standin:bullseye", network=True)
    given.prepare(replay.Bundle(built_bundles["toxic-spans"].codalab))
    assert given.image == "codalab-replay/standin:bullseye" and "network on" in given.label


def test_codabench_run_past_the_limit_finishes_in_docker_as_locally(tmp_path, docker_image):  # noqa: F811
    bundle = build.build_task(make_toy(tmp_path, limit=2), tmp_path / "dist").codabench
    sub = tmp_path / "slow.zip"
    sub.write_bytes(pack.zip_entries([("answers.txt", b"SLOW a b a\n")]))
    contained = replay.replay(bundle, sub, executor=docker(docker_image))
    local = replay.replay(bundle, sub)
    assert contained["status"] == local["status"] == "Finished"
    assert contained["scores"] == local["scores"] == {"accuracy": 1.0, "hits": 3.0}
    assert len(contained["warnings"]) == 1 and "past the phase's time limit of 2 s" in contained["warnings"][0]
