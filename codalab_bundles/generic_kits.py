"""Participants' files and sample gold of a generic task (one made by ``build_bundle.py new``), per kind.

The derive hooks read the task's scoring.json (scoring_programs/<task>/scoring.json), so file names and columns
are written once. Public data: the gold without its answers. Starting kit: a README, a baseline rendered for the
task, and the baseline's output as the sample submission. Sample gold: small synthetic data, the same at every run.
"""
import argparse
import csv
import functools
import io
import json
import random
import shutil
import sys
import tempfile
import zlib
from pathlib import Path

import jinja2

from . import loading, resources
from .taskdef import ROOT

KINDS = ("classification", "multilabel", "spans", "ranking")
KITS = Path(__file__).resolve().parent / "templates" / "kits"
OPTIONS_FILE = "options.json"  # ranking: {query id: [option ids]}, beside the gold; the scorer ignores it
PUBLIC_NAMES = {"classification": "items.csv", "multilabel": "items.csv", "spans": "texts.csv", "ranking": "queries.json"}
SPLIT_SIZES = {"dev": 30, "test": 60}


@functools.lru_cache(maxsize=None)
def generic_config():
    """scoring_programs/generic/generic_config.py: kinds, keys, defaults and checks (no side effects); imported
    once, though every page of a generic task and every derive hook asks for it."""
    return loading.load_file(resources.GENERIC / "generic_config.py", "generic_config_for_builder")


def program_config(program_dir):
    """The scoring.json of the task's program folder (scoring_programs/<task>/) with every default filled in."""
    path = Path(program_dir) / "scoring.json"
    return generic_config().with_defaults(json.loads(path.read_text(encoding="utf-8")))


def gold_problem(kind, program, files):
    """What the generic scoring program says of gold ``files`` ({name: bytes}) as one split's reference data, or
    None: the message an organizer would otherwise meet at build time, as a Python exception."""
    module = loading.scoring_module("generic", "generic_%s" % kind, resources.GENERIC.parent)
    runtime = sys.modules["scoring_runtime"]  # the scoring runtime the module imported
    with tempfile.TemporaryDirectory(prefix="gold-check-") as folder:
        for name, data in files.items():
            Path(folder, name).write_bytes(data)
        try:
            module.read_gold(folder, program)
        except (runtime.ReferenceDataError, runtime.SubmissionError) as exc:
            return str(exc)
    return None


def _render(name, **context):
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(KITS)), undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True)
    return env.get_template(name).render(**context)


# ---------------------------------------------------------------------------------------------------------------
# Reading and writing the gold


def _read_csv(path):
    with open(str(path), encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle))
    return rows[0], [row for row in rows[1:] if row]


def _csv_text(header, rows):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def _column(header, name):
    for i, cell in enumerate(header):
        if cell.strip() == name or cell.strip().lower() == name.lower():
            return i
    raise ValueError("the gold has no column %r (columns: %s)" % (name, ", ".join(header)))


def _gold_path(reference_dir, program):
    name = program["reference"]
    if name.startswith("*"):
        found = sorted(p for p in Path(reference_dir).iterdir() if p.name.endswith(name[1:]))
        if len(found) != 1:
            raise ValueError("expected one %s file in %s, found %d" % (name, reference_dir, len(found)))
        return found[0]
    return Path(reference_dir) / name


# ---------------------------------------------------------------------------------------------------------------
# Derive hooks


def public_data(ctx):
    program = program_config(ctx.program_dir)
    kind = program["kind"]
    gold = _gold_path(ctx.reference_dir, program)
    out = Path(ctx.out_dir) / PUBLIC_NAMES[kind]
    if kind in ("classification", "multilabel"):
        header, rows = _read_csv(gold)
        answer = _column(header, program["label_column" if kind == "classification" else "labels_column"])
        keep = [i for i in range(len(header)) if i != answer]
        out.write_text(_csv_text([header[i] for i in keep], [[row[i] for i in keep] for row in rows]),
                       encoding="utf-8")
    elif kind == "spans":
        header, rows = _read_csv(gold)
        spans = _column(header, program["spans_column"])
        # Without an id column, a post's id is its row number, as the scorer counts it.
        ids = ([row[_column(header, program["id_column"])] for row in rows] if program["id_column"]
               else [str(i) for i in range(len(rows))])
        keep = [i for i in range(len(header)) if i != spans and header[i] != program["id_column"]]
        out.write_text(_csv_text(["id"] + [header[i] for i in keep],
                                 [[item] + [row[i] for i in keep] for item, row in zip(ids, rows)]),
                       encoding="utf-8")
    else:
        options = Path(ctx.reference_dir) / OPTIONS_FILE
        if not options.is_file():
            raise ValueError("a ranking task publishes each query's options: put %s ({query id: [option ids]}) "
                             "beside the gold" % OPTIONS_FILE)
        shutil.copyfile(str(options), str(out))


def starting_kit(ctx):
    program = program_config(ctx.program_dir)
    kind = program["kind"]
    title = program.get("title") or ctx.task
    label = None
    if kind == "classification":
        header, rows = _read_csv(_gold_path(ctx.reference_dir, program))
        labels = sorted(set(row[_column(header, program["label_column"])].strip() for row in rows))
        label = labels[0]
    public = Path(ctx.public_dir) / PUBLIC_NAMES[kind]
    baseline = _render("baseline_%s.py.j2" % kind, title=title, program=program, label=label)
    (Path(ctx.out_dir) / "baseline.py").write_text(baseline, encoding="utf-8")
    (Path(ctx.out_dir) / "README.md").write_text(_render(
        "README.md.j2", title=title, kind=kind, program=program, public=public.name, label=label), encoding="utf-8")
    module = loading.load_file(Path(ctx.out_dir) / "baseline.py", "generic_baseline_%s" % kind)
    with tempfile.TemporaryDirectory() as folder:
        module.main(str(public), folder)
        shutil.copyfile(str(Path(folder) / program["submission"]), str(Path(ctx.submission_dir) /
                                                                        program["submission"]))


# ---------------------------------------------------------------------------------------------------------------
# Sample gold (no organizer data yet) and the organizer's gold split into phases

_WORDS = ("the", "service", "was", "really", "slow", "great", "food", "and", "staff", "never", "again", "quite",
          "good", "bad", "price", "room", "clean", "noisy", "friendly", "awful", "would", "come", "back")
_LABELS = {"classification": ("negative", "neutral", "positive"), "multilabel": ("food", "price", "service", "room")}


def sample_gold(kind, split, seed):
    """{file name: text} of a synthetic gold split."""
    rng = random.Random(seed)
    n = SPLIT_SIZES[split]
    texts = [" ".join(rng.choice(_WORDS) for _ in range(rng.randint(4, 12))) for _ in range(n)]
    if kind == "classification":
        rows = [[str(i + 1), text, rng.choice(_LABELS[kind])] for i, text in enumerate(texts)]
        return {"gold.csv": _csv_text(["id", "text", "label"], rows)}
    if kind == "multilabel":
        rows = [[str(i + 1), text, "|".join(sorted(rng.sample(_LABELS[kind], rng.randint(0, 2))))]
                for i, text in enumerate(texts)]
        return {"gold.csv": _csv_text(["id", "text", "labels"], rows)}
    if kind == "spans":
        rows = []
        for text in texts:
            words, offsets, position = text.split(" "), [], 0
            for word in words:
                if word in ("awful", "bad", "slow", "noisy"):
                    offsets.extend(range(position, position + len(word)))
                position += len(word) + 1
            rows.append([json.dumps(offsets), text])
        return {"gold.csv": _csv_text(["spans", "text"], rows)}
    options = {}
    answers = {}
    for i in range(n):
        query = "q%d" % (i + 1)
        ids = ["%s_%s" % (query, letter) for letter in "abcde"]
        rng.shuffle(ids)
        options[query], answers[query] = ids, rng.choice(ids)
    return {"gold.json": json.dumps(answers, indent=1, sort_keys=True) + "\n",
            OPTIONS_FILE: json.dumps(options, indent=1, sort_keys=True) + "\n"}


def sample_seed(task, split):
    return zlib.crc32(("sample/%s/%s" % (task, split)).encode("utf-8"))


def write_sample_data(task, kind, out=None, root=ROOT):
    """Write the sample gold of every split into out/<split>/ (default: the competition folder's
    reference_data/<task>/)."""
    out = Path(out) if out else Path(root) / "reference_data" / task
    written = []
    for split in SPLIT_SIZES:
        folder = out / split
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in sorted(sample_gold(kind, split, sample_seed(task, split)).items()):
            (folder / name).write_text(text, encoding="utf-8")
            written.append(folder / name)
    return written


def sample_data_main(task, argv, root=ROOT):
    """The sample-data generator of a generic task in the competition folder ``root``."""
    parser = argparse.ArgumentParser(description="Write %s's sample gold into reference_data/%s/." % (task, task))
    parser.add_argument("--out", help="another folder (default: reference_data/%s)" % task)
    args = parser.parse_args(argv)
    kind = program_config(Path(root) / "scoring_programs" / task)["kind"]
    for path in write_sample_data(task, kind, args.out, root):
        print(path)
    return 0


def _in_dev(item):
    """About one item in five goes to the development split, by its id, the same at every run."""
    return zlib.crc32(item.encode("utf-8")) % 5 == 0


def split_gold(kind, path, program):
    """{split: {file name: text}}: an organizer's single gold file split into dev (about 20%) and test by id."""
    path = Path(path)
    name = path.name
    if kind == "ranking":
        answers = json.loads(path.read_text(encoding="utf-8"))
        options_path = path.with_name(OPTIONS_FILE)
        if not options_path.is_file():
            raise ValueError("a ranking task publishes each query's options: put %s ({query id: [option ids]}) "
                             "beside %s" % (OPTIONS_FILE, name))
        options = json.loads(options_path.read_text(encoding="utf-8"))
        parts = {"dev": [q for q in sorted(answers) if _in_dev(q)], "test": [q for q in sorted(answers) if not
                                                                            _in_dev(q)]}
        return dict((split, {name: json.dumps(dict((q, answers[q]) for q in queries), indent=1) + "\n",
                             OPTIONS_FILE: json.dumps(dict((q, options[q]) for q in queries), indent=1) + "\n"})
                    for split, queries in _both_filled(parts).items())
    header, rows = _read_csv(path)
    if program.get("id_column"):
        key = _column(header, program["id_column"])
        ids = [row[key] for row in rows]
    else:
        ids = [str(i) for i in range(len(rows))]
    parts = {"dev": [row for item, row in zip(ids, rows) if _in_dev(item)],
             "test": [row for item, row in zip(ids, rows) if not _in_dev(item)]}
    return dict((split, {name: _csv_text(header, chosen)}) for split, chosen in _both_filled(parts).items())


def _both_filled(parts):
    if not parts["dev"] or not parts["test"]:
        everything = parts["dev"] + parts["test"]
        if len(everything) < 2:
            raise ValueError("the gold has fewer than 2 items: nothing to split into phases")
        cut = max(1, len(everything) // 5)
        parts = {"dev": everything[:cut], "test": everything[cut:]}
    return parts
