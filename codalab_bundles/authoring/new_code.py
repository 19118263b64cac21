"""``new NAME --kind classification|regression --code-submission``: the task as a code-submission competition
(code_submission.py): task.yaml's ``code_submission`` (the generic program's files and columns), a baseline model
(the development gold's most frequent label, or its mean score: ``bundles/NAME/code_kit/model/``), the kit's README
and a page saying what to upload (``pages/submitting.html.j2``)."""
from __future__ import annotations

import csv
import io
import json
from collections import Counter
from pathlib import Path

from . import generic_kits

TEMPLATES = Path(__file__).resolve().parent / "templates" / "new" / "code"
KINDS = ("classification", "regression")  # one prediction column per id: what the ingestion program writes as CSV
COLUMN = {"classification": "label_column", "regression": "value_column"}
TIME_LIMIT = 120  # seconds; new's phases have execution_time_limit 300


def refusal(kind):
    """Why ``new --code-submission`` cannot make a task of ``kind``, or None."""
    if kind in KINDS:
        return None
    return ("--code-submission makes a classification or regression task (one prediction per id); a %s task needs "
            "its code_submission written by hand (bundles/README.md, \"Code submissions\")" % kind)


def spec(program) -> dict:
    """task.yaml's code_submission for the generic ``program`` (scoring.json with its defaults)."""
    inputs = generic_kits.public_name(program, program["reference"])
    return {"inputs": inputs, "input_format": "tsv" if inputs.endswith(".tsv") else "csv",
            "id_column": program["id_column"], "output": program["submission"],
            "output_format": "tsv" if program["submission"].endswith(".tsv") else "csv",
            "columns": [program[COLUMN[program["kind"]]]], "time_limit": TIME_LIMIT, "memory_mb": 2048,
            "baseline": "code_kit/model", "kit": "code_kit/kit"}


def baseline_value(program, gold_text):
    """The most frequent label of the gold (the first by name among equals), or its mean score."""
    delimiter = "\t" if program["reference"].endswith(".tsv") else ","
    rows = list(csv.DictReader(io.StringIO(gold_text), delimiter=delimiter))
    values = [row[program[COLUMN[program["kind"]]]].strip() for row in rows]
    if program["kind"] == "classification":
        counts = Counter(values)
        return sorted(counts, key=lambda label: (-counts[label], label))[0]
    return round(sum(float(v) for v in values) / len(values), 6)


def write(env, write_file, bundle, program, title, gold_text):
    """The baseline model, its parameters and the kit's README, under bundles/NAME/code_kit/, and the page."""
    code = spec(program)
    column = code["columns"][0]
    context = dict(title=title, kind=program["kind"], column=column, inputs=code["inputs"], output=code["output"],
                   time_limit=code["time_limit"])
    write_file(bundle / "code_kit" / "model" / "model.py", env.get_template("code/model.py.j2").render(**context))
    write_file(bundle / "code_kit" / "model" / "params.json",
               json.dumps({column: baseline_value(program, gold_text)}, ensure_ascii=False) + "\n")
    write_file(bundle / "code_kit" / "kit" / "README.md", env.get_template("code/README.md.j2").render(**context))
    # a page rendered at build time, from task.yaml (its time limit): written as it is
    write_file(bundle / "pages" / "submitting.html.j2", (TEMPLATES / "submitting.html.j2").read_bytes())
