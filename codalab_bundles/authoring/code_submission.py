"""Code-submission tasks (task.yaml's ``code_submission``): the participant uploads a model, Codabench's prediction
step runs it on the test inputs with the ingestion program (scoring_programs/ingestion/), and the scoring step scores
the predictions it wrote. See bundles/README.md, "Code submissions".

What the build writes for such a task, beside the usual files:
- ``ingestion_program.zip``: the ingestion program (ingest.py, its child, the runtime's scoring_base and fast_csv)
  with ``ingestion.json``, this task's interface, files and limits;
- ``input_data_<split>.zip`` per split: what the task's ``public_data`` hook writes (the inputs without the gold),
  given to the ingestion program as /app/input_data and never published as the phase's public data;
- a scoring program whose metadata runs ``ingestion_gate.py`` first (it refuses to score when the prediction step
  failed: Codabench scores whatever that step left);
- each split's starting kit: the kit folder's files, the baseline submission (``model/`` and
  ``sample_submission.zip``), and the built ``ingestion_program/`` and ``scoring_program/``.
No CodaLab v1.5 bundle: its worker mounts the reference data into the ingestion container (hidden_ref), where the
participant's code runs.
"""
from __future__ import annotations

import io
import json
import zipfile

from .. import resources
from ..zips import pack

INGESTION = resources.INGESTION
CONFIG = "ingestion.json"  # ingestion_io.CONFIG
GATE = "ingestion_gate.py"
GATED_METADATA = "command: python3 $program/ingestion_gate.py $input $output\n"
# the scoring runtime's modules the ingestion program imports (ingestion_io: scoring_base, which imports fast_csv)
RUNTIME = ("scoring_base.py", "fast_csv.py")
INGESTION_FILES = ("metadata", "ingest.py", "ingestion_child.py", "ingestion_io.py")
MARGIN = 10  # seconds of a phase's time limit left to the ingestion program itself (start, reading, writing)
DEFAULT_QUEUE_LIMIT = 600  # Codabench's MAX_EXECUTION_TIME_LIMIT on the default queue (tasks.py at c7dbc756)
NO_V15 = ("no CodaLab v1.5 bundle: a code submission runs in CodaLab's ingestion container, where the worker also "
          "mounts the reference data (hidden_ref), so the participant's code could read the gold")


class CodeSubmission(object):
    """task.yaml's code_submission, checked (the schema has checked the types)."""

    def __init__(self, spec, folder):
        self.spec = spec
        self.inputs = spec["inputs"]
        self.input_format = spec.get("input_format", "csv")
        self.id_column = spec.get("id_column", "id")
        self.output = spec["output"]
        self.output_format = spec.get("output_format", "csv")
        self.output_id_column = spec.get("output_id_column", self.id_column)
        self.columns = list(spec.get("columns") or [])
        self.time_limit = spec["time_limit"]
        self.memory_mb = spec.get("memory_mb")
        self.show_output = bool(spec.get("show_output", False))
        self.baseline = folder / spec["baseline"]
        self.kit = folder / spec["kit"] if spec.get("kit") else None

    def config(self) -> dict:
        """ingestion.json (ingestion_io.Config reads it)."""
        return {"inputs": self.inputs, "input_format": self.input_format, "id_column": self.id_column,
                "output": self.output, "output_format": self.output_format,
                "output_id_column": self.output_id_column, "columns": self.columns,
                "time_limit": self.time_limit, "memory_mb": self.memory_mb, "show_output": self.show_output}


def read(spec, folder, phases, queue, where, check):
    """The task's CodeSubmission, or None; ``check(condition, message)`` raises the task definition's error."""
    entry = spec.get("code_submission")
    if entry is None:
        return None
    code = CodeSubmission(entry, folder)
    place = "%s: code_submission" % where
    check(code.output_format == "json" or code.columns,
          "%s: columns: a %s predictions file needs the columns each prediction fills" % (place, code.output_format))
    check(code.baseline.is_dir() and (code.baseline / "model.py").is_file(),
          "%s: baseline: %s must be a folder holding model.py (the baseline submission)" % (place, code.baseline))
    check(code.kit is None or code.kit.is_dir(), "%s: kit: %s is not a folder" % (place, code.kit))
    for phase in phases:
        limit = phase["execution_time_limit"] if "execution_time_limit" in phase else 300
        if not queue:
            limit = min(limit, DEFAULT_QUEUE_LIMIT)
        check(code.time_limit <= limit - MARGIN,
              "%s: time_limit %s s leaves phase %s (%s) less than %d s of its execution_time_limit (%s s%s): "
              "Codabench would kill the whole step before the ingestion program can say what happened; lower "
              "time_limit or raise the phase's limit" % (
                  place, code.time_limit, phases.index(phase) + 1, phase["label"], MARGIN, limit,
                  "" if queue else ", at most %d on Codabench's default queue" % DEFAULT_QUEUE_LIMIT))
    return code


def hide_predictions(phase_settings):
    """A phase's Codabench settings with hide_prediction_output true unless task.yaml sets it: the prediction step's
    output is the predictions of hidden inputs, and a model could write the inputs themselves into it."""
    settings = dict(phase_settings)
    settings.setdefault("hide_prediction_output", True)
    return settings


def ingestion_entries(code) -> list:
    """The ingestion program's files: the program, the runtime's modules it imports, and ingestion.json."""
    entries = [(name, (INGESTION / name).read_bytes()) for name in INGESTION_FILES]
    entries += [(name, (resources.COMMON / name).read_bytes()) for name in RUNTIME]
    entries.append((CONFIG, (json.dumps(code.config(), indent=1, sort_keys=True) + "\n").encode("utf-8")))
    return sorted(entries)


def gated(program: list) -> list:
    """The scoring program's entries with the gate (ingestion_gate.py) as its command."""
    entries = dict(program)
    entries["metadata"] = GATED_METADATA.encode("utf-8")
    entries[GATE] = (INGESTION / GATE).read_bytes()
    return sorted(entries.items())


def input_data(code, split, public) -> bytes:
    """The split's input_data zip: the public data hook's files, which must hold the inputs file."""
    names = zipfile.ZipFile(io.BytesIO(public)).namelist() if public is not None else []
    if code.inputs not in names:
        raise ValueError("split %r: the public data hook wrote %s, not code_submission.inputs %s (the file the "
                         "model's items are read from)" % (split, ", ".join(names) or "nothing", code.inputs))
    return public


def kit_entries(code, program, ingestion) -> list:
    """A split's starting kit: the kit folder's files, the baseline as model/ and as sample_submission.zip, and the
    built programs, so that participants run both steps offline as the platform does."""
    baseline = pack.directory_entries(code.baseline)
    entries = pack.directory_entries(code.kit) if code.kit is not None else []
    entries += [("model/" + name, data) for name, data in baseline]
    entries.append(("sample_submission.zip", pack.zip_entries(baseline)))
    entries += [("ingestion_program/" + name, data) for name, data in ingestion]
    entries += [("scoring_program/" + name, data) for name, data in program]
    return sorted(entries)


def notes(task) -> list:
    return [NO_V15] if getattr(task, "code_submission", None) is not None else []
