#!/usr/bin/env python3
"""The ingestion program of a code-submission competition: runs the participant's model on the test inputs and
writes the predictions file the task's scoring program reads.

    python3 ingest.py INPUT_DATA SUBMISSION OUTPUT [--show-output]

On Codabench (its metadata: ``python3 $program/ingest.py $input $submission_program $output``): INPUT_DATA is
/app/input_data (the task's input_data: the inputs without the gold), SUBMISSION /app/ingested_program (the
participant's zip, extracted), OUTPUT /app/output (what the scoring step gets as input/res). The interface: the
submission's ``model.py`` has ``load(model_dir)``, called once with the submission's folder, returning a model whose
``predict(items)`` gets every item (a list of dicts, each with its ``id`` and its input fields) and returns a list of
predictions in the items' order, or a dict {id: prediction}. ingestion.json, beside this file, names the files, the
formats and the limits (bundles/README.md, "Code submissions").

The model runs in a child process (ingestion_child.py), under a memory limit (setrlimit RLIMIT_AS) and killed at the
time limit. Whatever goes wrong with the submission (no model.py, no load or predict, an exception, a timeout, a
process killed, an output of the wrong type, a missing or unknown id) ends the run with one line on stderr,
``Submission error: ...``, exit status 1, and no predictions file; what the model prints is not shown (it could print
the test inputs) unless ingestion.json's show_output or --show-output says so. A problem of the ingestion program or
its input data is ``Ingestion program error (a problem for the organizers, ...)``. Never a traceback.

Python 3.6+ and the standard library only.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import ingestion_io  # noqa: E402  (beside this file, with the scoring runtime's scoring_base and fast_csv)

USAGE = "usage: python3 ingest.py INPUT_DATA SUBMISSION OUTPUT [--show-output]\n"
PROGRAM_ERROR = "Ingestion program error (a problem for the organizers, not your submission): %s"
CHILD = os.path.join(HERE, "ingestion_child.py")
KILL_GRACE = 5  # seconds a killed process group is given to go away


class SubmissionFailed(Exception):
    pass


def _limits(memory_mb):
    """The child's limits, set between fork and exec."""
    def apply():
        if memory_mb:
            import resource
            size = int(memory_mb) * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (size, size))
    return apply


def _signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return "signal %d" % number


def _step(work):
    try:
        with open(os.path.join(work, "step")) as handle:
            return handle.read().strip() or "starting"
    except (OSError, IOError):
        return "starting"


def run_submission(submission_dir, items, config, work, show_output):
    """What predict returned (JSON types), or SubmissionFailed with the one line."""
    items_path = os.path.join(work, "items.json")
    with open(items_path, "w", encoding="utf-8") as handle:
        json.dump([item for _, item in items], handle, ensure_ascii=False)
    sink = None if show_output else subprocess.DEVNULL
    command = [sys.executable, "-B", CHILD, submission_dir, items_path, work, str(config.memory_mb or "")]
    child = subprocess.Popen(command, cwd=submission_dir, stdin=subprocess.DEVNULL, stdout=sink, stderr=sink,
                             preexec_fn=_limits(config.memory_mb), start_new_session=True)
    try:
        status = child.wait(timeout=config.time_limit)
    except subprocess.TimeoutExpired:
        _kill(child)
        raise SubmissionFailed("%s did not finish within the time limit of %s s (load and predict together)"
                               % (_step(work), config.time_limit))
    _kill(child)  # what the model left running in its process group
    result_path = os.path.join(work, "result.json")
    if os.path.isfile(result_path):
        with open(result_path, encoding="utf-8") as handle:
            answer = json.load(handle)
        if "error" in answer:
            raise SubmissionFailed(answer["error"])
        return answer["predictions"]
    step = _step(work)
    memory = " (the memory limit is %s MB)" % config.memory_mb if config.memory_mb else ""
    if status < 0:
        raise SubmissionFailed("the submission's process was killed by %s during %s%s"
                               % (_signal_name(-status), step, memory))
    raise SubmissionFailed("the submission's process exited with status %d during %s, without an answer"
                           % (status, step))


def _kill(child):
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        child.wait(timeout=KILL_GRACE)
    except subprocess.TimeoutExpired:
        pass


def main(argv):
    show = "--show-output" in argv
    argv = [a for a in argv if a != "--show-output"]
    if len(argv) != 3:
        sys.stderr.write(USAGE)
        return 2
    input_dir, submission_dir, output_dir = [os.path.abspath(a) for a in argv]
    try:
        config = ingestion_io.load_config(HERE)
        target = os.path.join(output_dir, config.output)
        if not os.path.isdir(output_dir):
            os.makedirs(output_dir)
        if os.path.lexists(target):  # a file of that name the submission brought (Codabench copies it here)
            os.remove(target)
        items = ingestion_io.read_items(input_dir, config)
    except ingestion_io.ProgramError as exc:
        return _fail(PROGRAM_ERROR % exc)
    except (OSError, IOError) as exc:
        return _fail(PROGRAM_ERROR % ("%s (%s)" % (type(exc).__name__, exc.strerror)))
    if not os.path.isfile(os.path.join(submission_dir, "model.py")):
        found = sorted(os.listdir(submission_dir)) if os.path.isdir(submission_dir) else []
        return _fail("Submission error: the submission has no model.py at its root (it holds: %s); zip the files "
                     "themselves, not their folder" % (", ".join(ingestion_io.quote(n) for n in found[:5])
                                                       + (", ..." if len(found) > 5 else "") if found else "nothing"))
    work = tempfile.mkdtemp(prefix="ingestion-")
    try:
        predictions = run_submission(submission_dir, items, config, work, show or config.show_output)
        data = ingestion_io.predictions_bytes(ingestion_io.arrange(predictions, [i for i, _ in items]), config)
    except SubmissionFailed as exc:
        return _fail("Submission error: model.py: %s" % exc)
    except ingestion_io.OutputError as exc:
        return _fail("Submission error: model.py: wrong output: %s" % exc)
    except MemoryError:
        return _fail("Submission error: the predictions are too large for the ingestion program's memory")
    except Exception as exc:  # a bug of this program: no traceback, it could quote an input
        return _fail(PROGRAM_ERROR % ("internal error (%s)" % type(exc).__name__))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    partial = target + ".part"
    with open(partial, "wb") as handle:
        handle.write(data)
    os.replace(partial, target)
    print("Ingestion: %d predictions written to %s" % (len(items), config.output))
    return 0


def _fail(message):
    sys.stderr.write(message + "\n")
    sys.stderr.flush()
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
