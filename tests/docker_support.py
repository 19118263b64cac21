"""Docker for the tests: a running engine and the offline stand-in image, or a skip that says why.

Import the fixture in a test module with ``from docker_support import docker_image``. The first use in a session
runs tools/docker/ensure_engine.sh (installs docker.io and starts dockerd when needed) and
tools/docker/build_standin_image.sh (a few minutes the first time; reused afterwards). When no engine can run the
tests are skipped with the scripts' reason; with CODALAB_REPLAY_REQUIRE_DOCKER=1 (CI) they fail instead, so the
docker checks cannot silently disappear.
"""
import os
import subprocess

import pytest

from conftest import ROOT

STANDIN_IMAGE = "codalab-replay/standin:bullseye"
REQUIRE_DOCKER = "CODALAB_REPLAY_REQUIRE_DOCKER"
SCRIPTS = ROOT / "tools" / "docker"


def _unavailable(reason):
    if os.environ.get(REQUIRE_DOCKER, "") not in ("", "0"):
        pytest.fail("%s (and %s is set)" % (reason, REQUIRE_DOCKER), pytrace=False)
    pytest.skip(reason)


def run_script(name, *args, **kwargs):
    """Run one of tools/docker/*.sh; returns (exit code, stderr). Both scripts report on stderr."""
    timeout = kwargs.get("timeout", 600)
    try:
        proc = subprocess.run(["bash", str(SCRIPTS / name)] + list(args), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, "%s: no result within %s s" % (name, timeout)
    return proc.returncode, proc.stdout + proc.stderr


def _last_line(text):
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "(no message)"


@pytest.fixture(scope="session")
def docker_image():
    """The stand-in image's tag, once an engine runs and the image exists (built once, then reused)."""
    code, messages = run_script("ensure_engine.sh", timeout=900)
    if code != 0:
        _unavailable("no Docker engine: %s" % _last_line(messages))
    code, messages = run_script("build_standin_image.sh", timeout=1800)
    if code != 0:
        _unavailable("cannot build %s: %s" % (STANDIN_IMAGE, _last_line(messages)))
    return STANDIN_IMAGE
