#!/usr/bin/env python3
"""The scoring step of a code-submission competition: scores the predictions only when the prediction step made
them, then runs the task's own evaluate.py beside this file.

    python3 ingestion_gate.py INPUT OUTPUT        (the scoring program's metadata in a code-submission bundle)

Codabench's compute worker runs the scoring step whatever the prediction step's exit statuses were (compute_worker.py
at c7dbc756 checks only the scoring program's), and the prediction step's output holds the submission's own files
(a submission without a ``metadata`` file is copied there) and, when it has one, whatever its own command wrote. So a
failed ingestion would leave the scoring program a predictions file the participant brought. The worker records
both statuses in the output's ``metadata`` (``exitCode``: the submission's own command, null when it has none;
``ingestionExitCode``), which the scoring step reads as ``INPUT/res/metadata``; the participant cannot write that
file (the worker refuses an output that holds one). This gate refuses to score when the ingestion program did not
exit 0, or when the submission ran a command of its own beside it. Without ``res/metadata`` (an offline run of the
starting kit: ingest.py, then this) it scores.

Python 3.6+ and the standard library only.
"""
import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EVALUATE = os.path.join(HERE, "evaluate.py")


def statuses(path):
    """{key: value} of the worker's metadata lines (``key: value``, YAML scalars as text)."""
    found = {}
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            key, colon, value = line.partition(":")
            if colon and not line[:1].isspace():
                found[key.strip()] = value.strip()
    return found


def refusal(input_dir):
    """The one line saying why the predictions are not scored, or None."""
    path = os.path.join(input_dir, "res", "metadata")
    if not os.path.isfile(path):
        return None
    found = statuses(path)
    ingestion = found.get("ingestionExitCode", "")
    if ingestion != "0":
        return ("Submission error: the prediction step failed (the ingestion program's exit status: %s): its "
                "message is in the prediction step's error log; nothing was scored" % (ingestion or "none"))
    own = found.get("exitCode", "")
    if own not in ("", "null", "~", "None"):
        return ("Submission error: the submission has a metadata file with a command, which the platform ran "
                "beside the ingestion program; a code submission must not have one (remove metadata from the zip)")
    return None


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: python3 ingestion_gate.py INPUT OUTPUT\n")
        return 2
    message = refusal(argv[0])
    if message is not None:
        sys.stderr.write(message + "\n")
        return 1
    sys.argv = [EVALUATE] + list(argv)
    runpy.run_path(EVALUATE, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
