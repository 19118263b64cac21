"""Run a scoring command in a Docker container the way the platforms' compute workers do.

Pure argv builders for the CodaLab v1.5 worker (platform notes 2.4) and the Codabench worker (platform notes 4.4),
the v1.5 image name sanitiser, and ``run_container``, which applies the phase's time limit as the v1.5 worker does.
We drive the Docker CLI rather than the ``docker`` Python package: the CLI is what the v1.5 worker runs (so the
argv can be shown and pasted as is), it adds no dependency, and its messages (missing image, daemon down) are the
ones the worker's stderr.txt shows participants.

The sources: codalab/competitions-v1-compute-worker worker.py @ 045340126fbf (its ``docker run``, L495-536;
``docker_image_clean``, L64-71; the memory limit, L510) and codalab/codabench @ c7dbc756b07b,
compute_worker/compute_worker.py (``_run_program_directory``: the mounts, the dropped capabilities, the user
namespace, the working directory).
"""
import os
import re
import subprocess
import time
import uuid

TIME_LIMIT_MESSAGE = "Execution time limit exceeded!"  # appended to stderr.txt by the v1.5 worker (platform notes 2.6)
TIMEOUT_EXIT_CODE = -1  # the exit code the v1.5 worker records for a timed-out step

# The capabilities Codabench drops: Docker's 14 default ones, so the program keeps none (platform notes 4.4).
CODABENCH_CAP_DROP = ("AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
                      "NET_BIND_SERVICE", "NET_RAW", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT")
CODABENCH_MOUNTS = (("program", "/app/program"), ("output", "/app/output"))
CODABENCH_SCORING_MOUNTS = (("input", "/app/input"), ("shared", "/app/shared"))

_NOT_IN_IMAGE_NAME = re.compile(r"[^0-9a-zA-Z/.:-]")


def sanitize_image_name(name):
    """The v1.5 worker's cleaning of the image name: first space-separated token, minus every character outside
    [0-9a-zA-Z/.:-]. Underscores and '@' go too, so 'org/my_image' is pulled as 'org/myimage' (platform notes 2.4)."""
    return _NOT_IN_IMAGE_NAME.sub("", (name or "").split(" ")[0])


def _name(name):
    return name if name is not None else str(uuid.uuid4())  # the v1.5 worker names containers with a uuid4


def codalab_docker_argv(run, shared, image, tokens, time_limit, memory_mb, network=False, name=None):
    """The v1.5 worker's ``docker run`` (platform notes 2.4): <run> and <shared> mounted at the same absolute paths,
    working directory <run>, no-new-privileges, a memory limit, unbuffered Python, the image's default user (root).

    Unlike the real worker, the network is off unless ``network`` is true: a replay should not depend on, or
    reach, the outside world. ``time_limit`` also becomes --stop-timeout, as the worker passes it (the limit
    itself is enforced by ``run_container``). ``memory_mb`` None leaves memory unlimited.
    """
    argv = ["docker", "run", "--rm", "--name=%s" % _name(name)]
    if time_limit is not None:
        argv.append("--stop-timeout=%d" % time_limit)
    argv += ["--security-opt=no-new-privileges", "-v", "%s:%s" % (run, run), "-v", "%s:%s" % (shared, shared)]
    if memory_mb is not None:
        argv += ["--memory", "%dMB" % memory_mb]
    argv += ["-e", "PYTHONUNBUFFERED=1", "-w", run]
    if not network:
        argv += ["--network", "none"]
    return argv + [image] + list(tokens)


def codabench_docker_argv(root, image, tokens, scoring=True, network=False, name=None):
    """The Codabench worker's container (platform notes 4.4): <root>/{program,output} at /app/{program,output}, and
    for scoring <root>/{input,shared} at /app/{input,shared}; working directory /app/program; no-new-privileges,
    all default capabilities dropped, the host's user namespace; no memory limit.

    The network is off unless ``network`` is true (Codabench leaves it on unless the worker is configured with
    COMPETITION_CONTAINER_NETWORK_DISABLED). Codabench's read-only /app/data mount has no counterpart here.
    """
    argv = ["docker", "run", "--rm", "--name=%s" % _name(name), "--security-opt=no-new-privileges"]
    argv += ["--cap-drop=%s" % capability for capability in CODABENCH_CAP_DROP]
    argv.append("--userns=host")
    mounts = CODABENCH_MOUNTS + (CODABENCH_SCORING_MOUNTS if scoring else ())
    for folder, target in mounts:
        argv += ["-v", "%s:%s" % (os.path.join(root, folder), target)]
    argv += ["-e", "PYTHONUNBUFFERED=1", "-w", "/app/program"]
    if not network:
        argv += ["--network", "none"]
    return argv + [image] + list(tokens)


def worker_memory_mb():
    """The v1.5 worker's memory limit: this host's RAM in MiB minus 512 (platform notes 2.6), or None when unknown."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None
    return max(total // (1024 * 1024) - 512, 64)


def _container_name(argv):
    for token in argv:
        if token.startswith("--name="):
            return token[len("--name="):]
    return None


def _docker(*args, **kwargs):
    """A short docker CLI call; (exit code, combined output). Never raises for a missing CLI or a hung daemon."""
    try:
        proc = subprocess.run(("docker",) + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=kwargs.get("timeout", 30))
    except OSError as exc:
        return 127, "docker: %s" % (exc.strerror or exc)
    except subprocess.TimeoutExpired:
        return 124, "docker %s: no answer within %s s" % (args[0], kwargs.get("timeout", 30))
    return proc.returncode, proc.stdout.decode("utf-8", "replace").strip()


def run_container(argv, time_limit, stdout_path, stderr_path, timeout_message=TIME_LIMIT_MESSAGE):
    """Run ``docker run`` argv, appending its stdout and stderr (docker's own messages included, as on the worker)
    to the two files. Returns (exit code, elapsed seconds, timed out).

    Past ``time_limit`` seconds (None or <= 0: no limit) the container is killed by its --name,
    ``timeout_message`` (the v1.5 worker's "Execution time limit exceeded!") is appended to stderr and the exit
    code is -1. A container that cannot
    start (missing image, daemon down) gives docker's non-zero exit code (125 and the like) and its message.
    """
    limit = time_limit if time_limit and time_limit > 0 else None
    started = time.time()
    with open(stdout_path, "a") as out, open(stderr_path, "a") as err:
        try:
            proc = subprocess.Popen(argv, stdout=out, stderr=err)
        except OSError as exc:
            err.write("%s: %s\n" % (argv[0], exc.strerror or exc))
            return 127, time.time() - started, False
        try:
            return proc.wait(timeout=limit), time.time() - started, False
        except subprocess.TimeoutExpired:
            pass
        name = _container_name(argv)
        try:
            if name is None:
                raise subprocess.TimeoutExpired(argv, 0)
            _docker("kill", name)
            proc.wait(timeout=30)  # the CLI returns once the container is gone
        except subprocess.TimeoutExpired:
            proc.kill()  # no name, a container that never started, or a hung daemon: stop the CLI itself
            proc.wait()
        if timeout_message:
            err.write(timeout_message + "\n")
    return TIMEOUT_EXIT_CODE, time.time() - started, True


DOCKER_FAILED = 125  # docker run's exit status when the container could not be created or started
STANDIN_IMAGE = "codalab-replay/standin:bullseye"  # tools/docker/build_standin_image.sh builds it offline


def explain_failure(image, said):
    """What went wrong on Docker's side (not in the scoring program), from the lines docker run printed."""
    text = " ".join(said)
    errors = [line for line in said if line.startswith("docker:") or "Error" in line]  # not the --help hint
    last = (errors or said or ["docker run failed with exit status %d" % DOCKER_FAILED])[-1]
    if "Unable to find image" in text or "pull access denied" in text or "manifest unknown" in text or \
            "not found" in text and "image" in text.lower():
        return ("the image %s is not on this machine and could not be pulled (%s), so the scoring program never "
                "ran: pull it where the registry is reachable, or give another image with --image (for example "
                "the offline stand-in %s)" % (image, last, STANDIN_IMAGE))
    if "Cannot connect to the Docker daemon" in text or "Is the docker daemon running" in text:
        return "the Docker engine is not running (%s): start it, or replay without --docker" % last
    return "Docker could not start the container, so the scoring program never ran: %s" % last


def engine_available():
    """(True, "Docker engine <version>") when the engine answers, else (False, why not)."""
    code, output = _docker("info", "--format", "{{.ServerVersion}}")
    if code == 0 and output:
        return True, "Docker engine %s" % output.splitlines()[-1]
    lines = [line for line in output.splitlines() if line.strip()]
    return False, lines[-1] if lines else "docker info failed with exit code %s" % code


def image_present(tag):
    """Whether the engine has image ``tag`` locally (nothing is pulled)."""
    return _docker("image", "inspect", tag)[0] == 0
