"""``new NAME --kind KIND [--dir FOLDER]``: the files of a complete task, written only once its gold is known to build.

Writes, in a competition folder (by default the current one; this repository for ``build_bundle.py``),
bundles/NAME/ (task.yaml, pages rendered from it at build time, logo, derive hooks, sample-data generator),
scoring_programs/NAME/ (metadata, scoring.json, metric card: the generic scoring program, no code) and
reference_data/NAME/<split>/ (sample gold, or the organizer's gold split into phases), and the folder's README.md
(what to edit, how to build) when it has none. ``--kind custom`` (custom_task.py, no generic kind) writes instead a
skeleton evaluate.py of the task's own, with its sample gold, hooks and kit, which build as written.
"""
import csv
import datetime
import io
import json
import re
from pathlib import Path

import jinja2

from .. import loading, resources
from . import build, custom_task, generic_kits
from .render import yaml_quote
from .taskdef import ROOT, task_names

TEMPLATES = Path(__file__).resolve().parent / "templates" / "new"
NAME_RE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
# The keys a new task shows, the first ranking; the organizer can list others of the kind in scoring.json.
DEFAULT_KEYS = {"classification": ("macro_f1", "accuracy", "weighted_f1"),
                "multilabel": ("samples_f1", "jaccard", "micro_f1", "macro_f1"),
                "spans": ("spans_f1", "spans_precision", "spans_recall"),
                "ranking": ("accuracy", "mrr")}
LABELS = {"macro_f1": "Macro-F1", "accuracy": "Accuracy", "micro_f1": "Micro-F1", "weighted_f1": "Weighted F1",
          "macro_precision": "Macro precision", "macro_recall": "Macro recall", "samples_f1": "Samples F1",
          "jaccard": "Jaccard", "exact_match": "Exact match", "spans_f1": "F1", "spans_precision": "Precision",
          "spans_recall": "Recall", "mrr": "MRR", "hits_at_3": "Hits@3", "hits_at_5": "Hits@5",
          "hits_at_10": "Hits@10"}
SPLITS = ("dev", "test")
CUSTOM = custom_task.KIND  # a program of its own: not a generic kind


class NewTaskError(Exception):
    pass


def _environment():
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True)
    env.filters.update(q=yaml_quote, when=lambda d: d.strftime("%Y-%m-%d %H:%M:%S"))
    return env


def _gold_layout(kind, gold_dir, config):
    """{split: {file name: bytes}} from the organizer's folder: dev/ and test/ subfolders, or one gold file that
    is split by id (about 20% for development). Also returns the reference file name to configure; ``config``
    gets the gold's id column when a spans CSV has one."""
    gold_dir = Path(gold_dir)
    if gold_dir.is_file():  # one gold file, split by id
        return _split_one_file(kind, gold_dir, config)
    if not gold_dir.is_dir():
        raise NewTaskError("--gold-dir %s is neither a folder nor a file" % gold_dir)
    if all((gold_dir / split).is_dir() for split in SPLITS):
        layout = dict((split, dict((p.name, p.read_bytes()) for p in sorted((gold_dir / split).iterdir())
                                   if p.is_file())) for split in SPLITS)
        names = set(n for files in layout.values() for n in files if n != generic_kits.OPTIONS_FILE)
        if len(names) != 1 or not all(layout.values()):
            raise NewTaskError("%s/dev and %s/test must each hold the same gold file (found %s)"
                               % (gold_dir, gold_dir, ", ".join(sorted(names)) or "none"))
        name = names.pop()
        _id_column(kind, layout["dev"][name], name, config)
        return layout, name
    files = [p for p in sorted(gold_dir.iterdir()) if p.is_file() and p.name != generic_kits.OPTIONS_FILE]
    if len(files) != 1:
        raise NewTaskError("--gold-dir %s must hold one gold file (or dev/ and test/ folders), found %d files"
                           % (gold_dir, len(files)))
    return _split_one_file(kind, files[0], config)


def _id_column(kind, data, name, config):
    """A spans gold in CSV with an ``id`` column: posts are named by it (the scorer's default is the row number,
    as in the released tsd_*.csv, which has no id column)."""
    if kind != "spans" or not name.lower().endswith(".csv"):
        return
    header = next(csv.reader(io.StringIO(data.decode("utf-8-sig", "replace"))), [])
    found = [cell.strip() for cell in header if cell.strip().lower() == "id"]
    if len(found) == 1:
        config["id_column"] = found[0]


def _split_one_file(kind, path, config):
    data = path.read_bytes()
    _id_column(kind, data, path.name, config)
    program = dict(generic_kits.generic_config().with_defaults(config), reference=path.name)
    files = {path.name: data}
    options = path.with_name(generic_kits.OPTIONS_FILE)
    if kind == "ranking" and options.is_file():
        files[options.name] = options.read_bytes()
    problem = generic_kits.gold_problem(kind, program, files)
    if problem:  # checked whole, so that lines are the file's own
        raise NewTaskError("the gold: %s" % problem)
    try:
        parts = generic_kits.split_gold(kind, path, program)
    except (ValueError, OSError, UnicodeDecodeError) as exc:
        raise NewTaskError("%s: %s" % (shown_path(path), exc))
    return (dict((split, dict((n, t.encode("utf-8")) for n, t in files_.items())) for split, files_ in parts.items()),
            path.name)


def _example(kind):
    """(prose, JSON) of a small worked example the generic suite re-scores: files and the scores they give."""
    if kind == "classification":
        ref = {"gold.csv": "id,label\n1,pos\n2,neg\n3,pos\n4,neu\n5,x\n"}
        res = {"predictions.csv": "id,label\n1,pos\n2,pos\n3,pos\n4,neu\n5,neg\n"}
        scores = {"macro_f1": 0.45, "accuracy": 0.6, "weighted_f1": 0.52}
        prose = ("Gold pos, neg, pos, neu, x; predicted pos, pos, pos, neu, neg. Per class F1: pos 4/5, neg 0, "
                 "neu 1, x 0, so `macro_f1` = 1.8/4 = 0.45; `accuracy` = 3/5 = 0.6; `weighted_f1` = (2 x 0.8 + 1 x 0 "
                 "+ 1 x 1 + 1 x 0)/5 = 0.52.")
    elif kind == "multilabel":
        ref = {"gold.csv": "id,labels\n1,a|b\n2,\n3,c\n4,a\n"}
        res = {"predictions.csv": "id,labels\n1,a\n2,\n3,c|d\n4,b\n"}
        scores = {"samples_f1": 1.0 / 3, "jaccard": 0.25, "micro_f1": 0.5, "macro_f1": 5.0 / 12}
        prose = ("Gold/predicted sets {a,b}/{a}, {}/{}, {c}/{c,d}, {a}/{b}: `samples_f1` = (2/3 + 0 + 2/3 + 0)/4 = "
                 "1/3; `jaccard` = (1/2 + 0 + 1/2 + 0)/4 = 1/4; `micro_f1` = 4/8; `macro_f1` = (2/3 + 0 + 1 + 0)/4.")
    elif kind == "spans":
        ref = {"gold.csv": "spans,text\n\"[0, 1, 6]\",ab cd efg\n[],hello\n\"[10, 11, 12, 13, 14, 15]\",0123456789abcdef\n"}
        res = {"spans-pred.txt": "0\t[0, 1, 4, 5]\n1\t[]\n2\t[]\n"}
        scores = {"spans_f1": 11.0 / 21, "spans_precision": 0.5, "spans_recall": 5.0 / 9}
        prose = ("Gold/predicted offsets {0,1,6}/{0,1,4,5}, {}/{}, {10..15}/{}: per post F1 4/7, 1, 0, so "
                 "`spans_f1` = 11/21; precision 1/2, 1, 0 and recall 2/3, 1, 0 give 0.5 and 5/9.")
    else:
        ref = {"gold.json": "{\"q1\": \"a\", \"q2\": \"b\", \"q3\": \"c\", \"q4\": \"d\"}\n"}
        res = {"predictions.json": "{\"q1\": [\"a\", \"b\"], \"q2\": [\"a\", \"b\"], \"q3\": [\"a\"], "
                                   "\"q4\": [\"a\", \"b\", \"d\"]}\n"}
        scores = {"accuracy": 0.25, "mrr": (1 + 0.5 + 0 + 1.0 / 3) / 4}
        prose = ("The correct option is ranked 1, 2, not at all, 3: `accuracy` = 1/4; `mrr` = (1 + 1/2 + 0 + 1/3)/4.")
    # The example's files are in the kind's default layout: the suite lays these fields over the task's config.
    names = {"reference": sorted(ref)[0], "submission": sorted(res)[0]}
    columns = {"classification": {"id_column": "id", "label_column": "label"},
               "multilabel": {"id_column": "id", "labels_column": "labels", "separator": "|", "zero_division": 0},
               "spans": {"spans_column": "spans"}, "ranking": {}}[kind]
    example = {"config": dict(names, **columns), "gold_public": True, "ref": ref, "res": res, "scores": scores}
    return prose, json.dumps(example, indent=1, sort_keys=True)


def create(name, kind, gold_dir=None, title=None, keys=None, today=None, root=ROOT, command="codalab-bundles",
           notes=None):
    """Write the task's files in the competition folder ``root``; returns the paths written. ``command`` is how
    the user calls the tool (for the folder's README); ``notes`` (a list) gets what the organizer should know of
    the task made. Raises NewTaskError, before anything is written: a gold that would not build is refused."""
    if not NAME_RE.match(name or ""):
        raise NewTaskError("the task name %r must be lower-case letters and digits, words joined by '-' "
                           "(e.g. sentiment or hotel-reviews): it names folders and bundle files" % name)
    if kind not in generic_kits.KINDS + (CUSTOM,):
        raise NewTaskError("--kind is one of %s" % ", ".join(generic_kits.KINDS + (CUSTOM,)))
    root = Path(root)
    folders = (root / "bundles" / name, root / "scoring_programs" / name, root / "reference_data" / name)
    taken = [str(f.relative_to(root)) for f in folders if f.exists()]
    if taken or name in task_names(root / "bundles") or name in ("common", "generic"):
        raise NewTaskError("%s already exists: choose another name" % (", ".join(taken) or name))
    if kind == CUSTOM:
        return _create_custom(name, title, gold_dir, keys, today, root, command)
    config_module = generic_kits.generic_config()
    keys = list(keys or DEFAULT_KEYS[kind])
    config = {"kind": kind, "keys": keys, "title": title or name.replace("-", " ").title()}
    layout = None
    if kind == "spans":
        config["reference"] = "gold.csv"  # the sample gold: the released tsd_*.csv layout (spans,text)
    if gold_dir is not None:
        layout, reference = _gold_layout(kind, gold_dir, config)
        config["reference"] = reference
    problems = config_module.check_config(config)
    if problems:
        raise NewTaskError("scoring.json would be wrong: %s" % "; ".join(problems))
    program = config_module.with_defaults(config)
    for split, files in sorted((layout or {}).items()):
        # the scoring program's own message, then what building the split would fail on: before anything is
        # written, so that what new accepts, build builds
        problem = generic_kits.gold_problem(kind, program, files)
        if problem:
            raise NewTaskError("the %s gold: %s" % (split, problem))
        problem = generic_kits.build_problem(name, split, config, files)
        if problem:
            raise NewTaskError("the %s gold would not build: %s; give the gold of a %s task in a layout that "
                               "'%s new --help' lists" % (split, problem, kind, command))
    if kind == "spans" and config_module.file_format(program["reference"]) != "csv" and notes is not None:
        notes.append("the gold's <id><TAB>[offsets] lines carry no text: participants get only the ids "
                     "(public data texts.csv); to publish the texts, give the gold as a CSV with columns id,spans,text")
    bundle, program_dir, reference_dir = folders
    written = []

    def write(path, data):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        written.append(path)

    env = _environment()
    today = today or datetime.date.today()
    dev_start = datetime.datetime(today.year, today.month, today.day) + datetime.timedelta(days=1)
    test_start = dev_start + datetime.timedelta(weeks=6)
    write(bundle / "task.yaml", env.get_template("task.yaml.j2").render(
        name=name, kind=kind, title=config["title"], today=today.isoformat(), keys=keys, labels=LABELS,
        command=command, description="Predict the %s of each item; ranked by %s." % (
            {"classification": "label", "multilabel": "labels", "spans": "spans", "ranking": "best option"}[kind],
            LABELS.get(keys[0], keys[0])),
        dev_start=dev_start, test_start=test_start, end_date=test_start + datetime.timedelta(weeks=2, seconds=-1)))
    for page in ("overview", "evaluation", "data", "terms"):
        write(bundle / "pages" / ("%s.html.j2" % page), (TEMPLATES / "pages" / ("%s.html.j2" % page)).read_bytes())
    logo = loading.load_file(resources.MAKE_LOGO, "make_logo_for_new")
    write(bundle / "logo.png", logo.logo_png(name))
    write(bundle / "derive.py", env.get_template("derive.py.j2").render(name=name, kind=kind))
    write(program_dir / "metadata", build.METADATA)
    write(program_dir / "scoring.json", json.dumps(config, indent=1) + "\n")
    prose, example = _example(kind)
    formula = "See `scoring_programs/generic/README.md`, section `%s`, for each key's formula." % kind
    named = dict((role, program[field] if "*" not in program[field] else role + program[field][1:])
                 for role, field in (("gold", "reference"), ("predictions", "submission")))
    write(program_dir / "README.md", env.get_template("card.md.j2").render(
        title=config["title"], kind=kind, program=program, keys=keys, formula=formula, example_text=prose,
        example_json=example, name=name, gold_file=named["gold"], pred_file=named["predictions"]))
    if layout is None:
        write(bundle / "sample_data.py", env.get_template("sample_data.py.j2").render(name=name, kind=kind))
        written.extend(generic_kits.write_sample_data(name, kind, reference_dir, root))
    else:
        for split, files in sorted(layout.items()):
            for file_name, data in sorted(files.items()):
                write(reference_dir / split / file_name, data)
    _update_folder_readme(root, command, write)
    return written


def _update_folder_readme(root, command, write):
    """The folder's README.md: written when there is none, else its list of tasks brought up to date."""
    readme = Path(root) / "README.md"
    if not readme.exists():
        write(readme, _environment().get_template("folder-README.md.j2").render(tasks=_task_list(root),
                                                                                 command=command))
    else:  # the list of tasks of a README that new wrote (the rest may be the organizer's own)
        text = readme.read_text(encoding="utf-8")
        start, end = text.find(TASKS_BEGIN), text.find(TASKS_END)
        if 0 <= start < end:
            write(readme, text[:start] + _task_list(root) + text[end + len(TASKS_END):])


def _create_custom(name, title, gold_dir, keys, today, root, command):
    """``new NAME --kind custom`` (custom_task): a skeleton scoring program and its sample, which build as written."""
    if gold_dir is not None:
        raise NewTaskError("--kind custom starts from its sample gold (gold.csv: id,text,label), which the skeleton "
                           "evaluate.py scores; put your gold in reference_data/%s/dev/ and test/ once evaluate.py "
                           "reads it (leave out --gold-dir)" % name)
    if keys:
        raise NewTaskError("--kind custom writes the keys its skeleton evaluate.py computes (%s); list yours in "
                           "scoring_programs/%s/score_keys.txt and task.yaml once evaluate.py writes them (leave out "
                           "--keys)" % (", ".join(custom_task.KEYS), name))
    root = Path(root)
    title = title or name.replace("-", " ").title()
    made = custom_task.files(name, title, command)  # runs the skeleton on its card's example: before any write
    written = []

    def write(path, data):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        written.append(path)

    env = _environment()
    today = today or datetime.date.today()
    dev_start = datetime.datetime(today.year, today.month, today.day) + datetime.timedelta(days=1)
    test_start = dev_start + datetime.timedelta(weeks=6)
    keys = list(custom_task.KEYS)
    bundle = root / "bundles" / name
    write(bundle / "task.yaml", env.get_template("task.yaml.j2").render(
        name=name, kind=CUSTOM, title=title, today=today.isoformat(), keys=keys, labels=LABELS, command=command,
        description="Predict the label of each item; ranked by %s." % LABELS.get(keys[0], keys[0]),
        dev_start=dev_start, test_start=test_start, end_date=test_start + datetime.timedelta(weeks=2, seconds=-1)))
    for page in ("overview", "evaluation", "data", "terms"):
        write(bundle / "pages" / ("%s.html.j2" % page), (TEMPLATES / "pages" / ("%s.html.j2" % page)).read_bytes())
    write(bundle / "logo.png", loading.load_file(resources.MAKE_LOGO, "make_logo_for_new").logo_png(name))
    for relative, text in sorted(made.items()):
        write(root / relative, text)
    sample = loading.load_file(bundle / "sample_data.py", "custom_sample_%s" % name.replace("-", "_"))
    written.extend(sample.write(root / "reference_data" / name))
    _update_folder_readme(root, command, write)
    return written


# The list of tasks in the folder's README.md, kept by new between these lines.
TASKS_BEGIN = "<!-- the tasks of this folder: codalab-bundles new keeps this list -->"
TASKS_END = "<!-- end of the tasks -->"


def _task_list(root):
    lines = []
    for task in task_names(Path(root) / "bundles"):
        try:
            config = json.loads((Path(root) / "scoring_programs" / task / "scoring.json").read_text(encoding="utf-8"))
            scored = "%s, scored by `scoring_programs/%s/scoring.json`" % (config["kind"], task)
        except (OSError, ValueError, KeyError, TypeError):
            scored = "its own scoring program, `scoring_programs/%s/evaluate.py`" % task
        lines.append("- `%s` (%s): `bundles/%s/task.yaml`, `reference_data/%s/`; builds `dist/%s.zip`"
                     % (task, scored, task, task, task))
    return "\n".join([TASKS_BEGIN] + lines + [TASKS_END])


def shown_path(path):
    """A path as short as it reads: relative to the current folder when inside it (the CLI's messages too)."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
