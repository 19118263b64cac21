"""``new NAME --kind custom``: a task scored by a program of its own, for when no generic kind fits.

The task's files, to edit from a working state: scoring_programs/NAME/evaluate.py, a short skeleton on the shared
scoring runtime (reading files, the one-line messages, scores.json, the detailed page, two-file mode and intervals
are the runtime's) that scores the accuracy of an ``id,label`` CSV, with its metadata, score_keys.txt and metric
card; bundles/NAME/derive.py (the public data: the gold without its labels; the starting kit: kit/README.md and
kit/baseline.py, whose predictions are the sample submission), sample_data.py (a small gold, written into
reference_data/NAME/), and the partials format.html.j2 and metric.html.j2 that the pages include where a generic
task's pages describe its kind. ``new_task`` writes them with the files every new task has (task.yaml, pages,
logo, the folder's README).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import jinja2

from .. import resources
from . import build

KIND = "custom"
TEMPLATES = Path(__file__).resolve().parent / "templates" / "new" / "custom"
KEYS = ("accuracy",)  # what the skeleton writes
# The card's worked example (re-scored by tests/test_every_task.py for a task in this repository) and the two
# commands it shows, run on the example's files when the card is written.
EXAMPLE = {
    "gold_public": True,
    "ref": {"gold.csv": "id,label\n1,positive\n2,negative\n3,positive\n4,negative\n5,positive\n"},
    "res": {"predictions.csv": "id,label\n1,positive\n2,positive\n3,positive\n4,negative\n5,negative\n"},
    "res2": {"predictions.csv": "id,label\n1,positive\n2,negative\n3,positive\n4,negative\n5,positive\n"},
    "scores": {"accuracy": 0.6},
}
COMMANDS = ("python3 evaluate.py --gold ref/gold.csv --pred res/predictions.csv --per-item wrong",
            "python3 evaluate.py --gold ref/gold.csv --pred res/predictions.csv --ci --compare res2/predictions.csv "
            "--samples 200")


def _render(template, **context):
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True)
    env.filters["pyquote"] = repr  # a Python string literal
    return env.get_template(template).render(**context)


def _command_outputs(evaluate_py):
    """What the card's commands print, run with ``evaluate_py`` and the shared runtime on the example's files."""
    with tempfile.TemporaryDirectory(prefix="custom-card-") as work:
        program = os.path.join(work, "program")
        shutil.copytree(str(resources.COMMON), program, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        with open(os.path.join(program, "evaluate.py"), "w", encoding="utf-8") as handle:
            handle.write(evaluate_py)
        for folder in ("ref", "res", "res2"):
            for name, text in EXAMPLE[folder].items():
                os.makedirs(os.path.join(work, folder), exist_ok=True)
                with open(os.path.join(work, folder, name), "w", encoding="utf-8", newline="") as handle:
                    handle.write(text)
        outputs = []
        for command in COMMANDS:
            proc = subprocess.run([sys.executable, "-B", os.path.join(program, "evaluate.py")] + command.split()[2:],
                                  cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  universal_newlines=True, env=dict(os.environ, PYTHONIOENCODING="utf-8"))
            if proc.returncode != 0:  # the skeleton is this package's: a failure here is a bug of the tool
                raise RuntimeError("the custom skeleton failed on its own example: %s" % proc.stderr.strip())
            outputs.append(proc.stdout.rstrip("\n"))
        return outputs


def files(name, title, command):
    """{path relative to the competition folder: text} of a custom task, but for what every new task has."""
    context = dict(name=name, title=title, command=command)
    program, bundle = "scoring_programs/%s/" % name, "bundles/%s/" % name
    evaluate_py = _render("evaluate.py.j2", **context)
    per_item, compare = _command_outputs(evaluate_py)
    card = _render("card.md.j2", example_json=json.dumps(EXAMPLE, indent=1, sort_keys=True),
                   per_item_command=COMMANDS[0], per_item_output=per_item, compare_command=COMMANDS[1],
                   compare_output=compare, **context)
    written = {program + "evaluate.py": evaluate_py, program + "metadata": build.METADATA,
               program + "score_keys.txt": "".join(key + "\n" for key in KEYS), program + "README.md": card,
               bundle + "derive.py": _render("derive.py.j2", **context),
               bundle + "sample_data.py": _render("sample_data.py.j2", **context)}
    for source in ("kit/baseline.py", "kit/README.md", "format.html.j2", "metric.html.j2"):
        target = bundle + (source if source.startswith("kit/") else "pages/" + source)
        written[target] = (TEMPLATES / source).read_text(encoding="utf-8")
    return written
