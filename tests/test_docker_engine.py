"""codalab_bundles.docker_run: the workers' docker argv, the image-name sanitiser, and running containers with a
time limit (the last group needs an engine and the stand-in image: see docker_support)."""
import re
import shutil
import subprocess
import sys

import pytest

from codalab_bundles import replay
from codalab_bundles.replay import docker_run
from docker_support import STANDIN_IMAGE, docker_image, run_script  # noqa: F401  (docker_image is a fixture)

RUN = "/tmp/codalab/tmpabc123/run"
SHARED = "/tmp/codalab/tmpdef456"
TOKENS = ["python", RUN + "/program/evaluate.py", RUN + "/input", RUN + "/output"]
needs_docker_cli = pytest.mark.skipif(shutil.which("docker") is None, reason="no docker CLI on PATH")


# ---------------------------------------------------------------------------------------------------------------
# argv (no engine needed)


def test_codalab_argv_is_the_v15_worker_invocation_with_network_off():
    argv = docker_run.codalab_docker_argv(RUN, SHARED, "codalab/codalab-legacy:py37", TOKENS, 300, 7680,
                                          name="c0ffee")
    assert argv == [
        "docker", "run", "--rm", "--name=c0ffee", "--stop-timeout=300", "--security-opt=no-new-privileges",
        "-v", "/tmp/codalab/tmpabc123/run:/tmp/codalab/tmpabc123/run",
        "-v", "/tmp/codalab/tmpdef456:/tmp/codalab/tmpdef456",
        "--memory", "7680MB", "-e", "PYTHONUNBUFFERED=1", "-w", "/tmp/codalab/tmpabc123/run",
        "--network", "none",
        "codalab/codalab-legacy:py37",
        "python", "/tmp/codalab/tmpabc123/run/program/evaluate.py", "/tmp/codalab/tmpabc123/run/input",
        "/tmp/codalab/tmpabc123/run/output",
    ]


def test_codalab_argv_network_on_and_optional_limits():
    argv = docker_run.codalab_docker_argv(RUN, SHARED, "img:1", ["true"], None, None, network=True, name="n")
    assert argv == ["docker", "run", "--rm", "--name=n", "--security-opt=no-new-privileges",
                    "-v", RUN + ":" + RUN, "-v", SHARED + ":" + SHARED,
                    "-e", "PYTHONUNBUFFERED=1", "-w", RUN, "img:1", "true"]


def test_codalab_argv_empty_tokens_are_kept():
    # split(' ') on a double space gives an empty argument; the container must receive it as the worker sends it
    argv = docker_run.codalab_docker_argv(RUN, SHARED, "img", ["python", "", "x.py"], 5, 100, name="n")
    assert argv[-4:] == ["img", "python", "", "x.py"]


def test_container_name_defaults_to_a_uuid4():
    names = [docker_run.codalab_docker_argv(RUN, SHARED, "img", ["true"], 1, 1)[3] for _ in range(2)]
    for name in names:
        assert re.match(r"^--name=[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", name), name
    assert names[0] != names[1]


def test_codabench_argv_scoring():
    argv = docker_run.codabench_docker_argv("/codabench/u1s2__ab", "img:py37", ["python", "/app/program/s.py"],
                                            name="cb1")
    assert argv == [
        "docker", "run", "--rm", "--name=cb1", "--security-opt=no-new-privileges",
        "--cap-drop=AUDIT_WRITE", "--cap-drop=CHOWN", "--cap-drop=DAC_OVERRIDE", "--cap-drop=FOWNER",
        "--cap-drop=FSETID", "--cap-drop=KILL", "--cap-drop=MKNOD", "--cap-drop=NET_BIND_SERVICE",
        "--cap-drop=NET_RAW", "--cap-drop=SETFCAP", "--cap-drop=SETGID", "--cap-drop=SETPCAP",
        "--cap-drop=SETUID", "--cap-drop=SYS_CHROOT", "--userns=host",
        "-v", "/codabench/u1s2__ab/program:/app/program", "-v", "/codabench/u1s2__ab/output:/app/output",
        "-v", "/codabench/u1s2__ab/input:/app/input", "-v", "/codabench/u1s2__ab/shared:/app/shared",
        "-e", "PYTHONUNBUFFERED=1", "-w", "/app/program", "--network", "none",
        "img:py37", "python", "/app/program/s.py",
    ]
    assert len(docker_run.CODABENCH_CAP_DROP) == 14  # "cap_drop of 14 capabilities" (spec 4.4)


def test_codabench_argv_not_scoring_and_network_on():
    argv = docker_run.codabench_docker_argv("/r", "img", ["run"], scoring=False, network=True, name="x")
    mounts = [argv[i + 1] for i, token in enumerate(argv) if token == "-v"]
    assert mounts == ["/r/program:/app/program", "/r/output:/app/output"]
    assert "--network" not in argv and argv[-2:] == ["img", "run"]


@pytest.mark.parametrize("name, expected", [
    ("org/my_image:1.0", "org/myimage:1.0"),                                 # underscores go
    ("codalab/codalab-legacy:py37", "codalab/codalab-legacy:py37"),           # a clean name is unchanged
    ("codalab/codalab-legacy:py37 --privileged", "codalab/codalab-legacy:py37"),  # only the first token
    ("org/img@sha256:0a1b", "org/imgsha256:0a1b"),                           # digests break: '@' goes
    ("registry.example.org:5000/A_b/c-d:v1.2", "registry.example.org:5000/Ab/c-d:v1.2"),
    ("img;rm -rf /", "imgrm"),
    ("ima\tge$(x)", "imagex"),
    (" leading-space", ""),                                                  # split(' ')[0] is empty
    ("", ""),
])
def test_sanitize_image_name(name, expected):
    assert docker_run.sanitize_image_name(name) == expected


def test_time_limit_message_matches_the_local_replay():
    assert docker_run.TIME_LIMIT_MESSAGE == replay.TIME_LIMIT_MESSAGE == "Execution time limit exceeded!"


# ---------------------------------------------------------------------------------------------------------------
# run_container and engine probes without an engine


def test_run_container_missing_program(tmp_path):
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    code, _, timed_out = docker_run.run_container([str(tmp_path / "no-docker-here"), "run"], 5, str(out), str(err))
    assert (code, timed_out) == (127, False)
    assert err.read_text() == "%s: No such file or directory\n" % (tmp_path / "no-docker-here")


def test_run_container_timeout_without_a_name_stops_the_process(tmp_path):
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    err.write_text("earlier line\n")
    argv = [sys.executable, "-c", "import time; print('started', flush=True); time.sleep(60)"]
    code, elapsed, timed_out = docker_run.run_container(argv, 1, str(out), str(err))
    assert (code, timed_out) == (-1, True) and elapsed >= 1
    assert out.read_text() == "started\n"
    assert err.read_text() == "earlier line\nExecution time limit exceeded!\n"  # appended, as the worker does


def test_run_container_passes_exit_code_and_appends_output(tmp_path):
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    out.write_text("before\n")
    argv = [sys.executable, "-c", "import sys; print('out'); sys.stderr.write('err\\n'); sys.exit(3)"]
    code, _, timed_out = docker_run.run_container(argv, 0, str(out), str(err))  # 0: no limit
    assert (code, timed_out) == (3, False)
    assert (out.read_text(), err.read_text()) == ("before\nout\n", "err\n")


def test_engine_available_without_cli(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert docker_run.engine_available() == (False, "docker: No such file or directory")
    assert docker_run.image_present(STANDIN_IMAGE) is False


@needs_docker_cli
def test_daemon_down_is_reported_with_dockers_message(monkeypatch, tmp_path):
    monkeypatch.setenv("DOCKER_HOST", "unix://%s" % (tmp_path / "no-daemon.sock"))
    ok, reason = docker_run.engine_available()
    assert not ok and "Cannot connect to the Docker daemon" in reason and "no-daemon.sock" in reason
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    argv = docker_run.codalab_docker_argv(str(tmp_path), str(tmp_path), STANDIN_IMAGE, ["true"], 5, 256)
    code, _, timed_out = docker_run.run_container(argv, 5, str(out), str(err))
    assert code != 0 and not timed_out
    assert "Cannot connect to the Docker daemon" in err.read_text()


# ---------------------------------------------------------------------------------------------------------------
# With an engine and the stand-in image


def _files(tmp_path):
    run, shared = tmp_path / "run", tmp_path / "shared"
    run.mkdir()
    shared.mkdir()
    return run, shared, run / "stdout.txt", run / "stderr.txt"


def test_scripts_are_idempotent(docker_image):
    code, messages = run_script("ensure_engine.sh")
    assert code == 0 and "engine ready" in messages
    code, messages = run_script("build_standin_image.sh")
    assert code == 0 and "%s is present" % STANDIN_IMAGE in messages
    assert docker_run.engine_available()[0] and docker_run.image_present(docker_image)


def test_print_in_the_worker_layout(docker_image, tmp_path):
    run, shared, out, err = _files(tmp_path)
    argv = docker_run.codalab_docker_argv(str(run), str(shared), docker_image, ["python3", "-c", "print(1)"],
                                          10, 512)
    code, _, timed_out = docker_run.run_container(argv, 10, str(out), str(err))
    assert (code, timed_out) == (0, False)
    assert (out.read_text(), err.read_text()) == ("1\n", "")


def test_same_paths_inside_working_dir_and_no_network(docker_image, tmp_path):
    run, shared, out, err = _files(tmp_path)
    script = ("import os; print(os.getcwd()); print(os.environ['PYTHONUNBUFFERED']); "
              "open(os.path.join(%r, 'written.txt'), 'w').write('from the container'); "
              "print(sorted(l.split(':')[0].strip() for l in open('/proc/net/dev').readlines()[2:]))" % str(shared))
    argv = docker_run.codalab_docker_argv(str(run), str(shared), docker_image, ["python", "-c", script], 10, 512)
    assert docker_run.run_container(argv, 10, str(out), str(err))[0] == 0, err.read_text()
    assert out.read_text() == "%s\n1\n['lo']\n" % run
    assert (shared / "written.txt").read_text() == "from the container"


def test_time_limit_kills_the_container(docker_image, tmp_path):
    run, shared, out, err = _files(tmp_path)
    name = "codalab-replay-test-timeout"
    argv = docker_run.codalab_docker_argv(
        str(run), str(shared), docker_image,
        ["python3", "-c", "import time; print('working'); time.sleep(60)"], 2, 256, name=name)
    code, elapsed, timed_out = docker_run.run_container(argv, 2, str(out), str(err))
    assert (code, timed_out) == (-1, True) and elapsed >= 2
    assert out.read_text() == "working\n"
    assert err.read_text().endswith("Execution time limit exceeded!\n")
    running = subprocess.run(["docker", "ps", "-q", "--filter", "name=^/%s$" % name], stdout=subprocess.PIPE,
                             universal_newlines=True).stdout
    assert running == ""


def test_missing_image_reports_dockers_message(docker_image, tmp_path):
    run, shared, out, err = _files(tmp_path)
    missing = "codalab-replay/no-such-image:never"
    argv = docker_run.codalab_docker_argv(str(run), str(shared), missing, ["python3", "-c", "print(1)"], 30, 256)
    code, _, timed_out = docker_run.run_container(argv, 30, str(out), str(err))
    assert code != 0 and not timed_out
    assert "Unable to find image '%s' locally" % missing in err.read_text()
    assert out.read_text() == ""


def test_codabench_layout_in_the_container(docker_image, tmp_path):
    for folder in ("program", "input/ref", "input/res", "output", "shared"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "input" / "res" / "answer.txt").write_text("42\n")
    script = ("import os; print(os.getcwd()); print(open('/app/input/res/answer.txt').read().strip()); "
              "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('CapEff')][0])")
    argv = docker_run.codabench_docker_argv(str(tmp_path), docker_image, ["python3", "-c", script])
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    assert docker_run.run_container(argv, 20, str(out), str(err))[0] == 0, err.read_text()
    assert out.read_text() == "/app/program\n42\n0000000000000000\n"  # every capability dropped


def test_standin_image_has_the_old_stack(docker_image):
    script = ("import sys, numpy, pandas, sklearn, yaml; "
              "print('%d.%d' % sys.version_info[:2], pandas.__version__, sklearn.__version__, numpy.__version__)")
    proc = subprocess.run(["docker", "run", "--rm", "--network", "none", docker_image, "python", "-c", script],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    python, pandas, sklearn, numpy = proc.stdout.split()
    assert python == "3.9"
    assert pandas.startswith("1.1.") and sklearn.startswith("0.23.") and numpy.startswith("1.19.")
