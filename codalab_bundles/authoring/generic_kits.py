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
import types
import zlib
from pathlib import Path

import jinja2

from .. import loading, resources
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


def _scorer(kind):
    """The generic scoring program's module of ``kind`` and the scoring runtime it imported."""
    module = loading.scoring_module("generic", "generic_%s" % kind, resources.GENERIC.parent)
    return module, sys.modules["scoring_runtime"]


def _id_key():
    """The generic programs' id rule (spaces stripped, integers as numbers: "007" is 7), as a function."""
    _scorer("ranking")
    return sys.modules["generic_table"].id_key


def gold_problem(kind, program, files):
    """What the generic scoring program says of gold ``files`` ({name: bytes}) as one split's reference data, or
    None: the message an organizer would otherwise meet at build time, as a Python exception. A ranking gold also
    needs its options (OPTIONS_FILE), which participants rank."""
    module, runtime = _scorer(kind)
    with tempfile.TemporaryDirectory(prefix="gold-check-") as folder:
        for name, data in files.items():
            Path(folder, name).write_bytes(data)
        try:
            gold = module.read_gold(folder, program)
        except (runtime.ReferenceDataError, runtime.SubmissionError) as exc:
            return str(exc)
    return _options_problem(program, files, gold) if kind == "ranking" else None


def _options_problem(program, files, answers):
    """What is wrong with the ranking gold's OPTIONS_FILE ({query id: [option ids]}), or None: it must exist and
    list the options of every query of the gold, and of no other (the public data and the sample are made from
    it)."""
    id_key = _id_key()
    fix = ('put %s beside %s: {"q1": ["a", "b", "c"], ...}, the options of every query, which participants rank'
           % (OPTIONS_FILE, program["reference"]))
    if OPTIONS_FILE not in files:
        return "no %s: a ranking task publishes each query's options; %s" % (OPTIONS_FILE, fix)
    try:
        options = json.loads(files[OPTIONS_FILE].decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        return "%s is not JSON (%s): %s" % (OPTIONS_FILE, exc, fix)
    if not isinstance(options, dict):
        return "%s holds a JSON %s, not an object: %s" % (OPTIONS_FILE, type(options).__name__, fix)
    for query, given in options.items():
        keys = [id_key(str(o)) for o in given if isinstance(o, (str, int)) and not isinstance(o, bool)] \
            if isinstance(given, list) else []
        if not given or len(keys) != len(given) or len(set(keys)) != len(keys):
            return ("%s: the options of query %s must be a list of distinct option ids (strings or integers), "
                    "found %s" % (OPTIONS_FILE, json.dumps(query), json.dumps(given)[:80]))
    listed = set(id_key(q) for q in options)
    without = sorted(set(answers) - listed, key=str)
    if without:
        return "%s gives no options for %d of the gold's queries (first: %s): add them" % (
            OPTIONS_FILE, len(without), ", ".join(str(q) for q in without[:5]))
    unknown = sorted(listed - set(answers), key=str)
    if unknown:
        return "%s gives options for %d queries the gold does not have (first: %s): remove them" % (
            OPTIONS_FILE, len(unknown), ", ".join(str(q) for q in unknown[:5]))
    return None


def build_problem(task, split, config, files):
    """What building one split of a generic task from gold ``files`` ({name: bytes}) fails on, or None: the derive
    hooks run as ``build`` runs them, and the starting kit's sample submission is scored against the gold, as
    ``build`` replays it. ``new`` asks before writing anything, so that what it accepts ``build`` builds."""
    program = generic_config().with_defaults(config)
    module, runtime = _scorer(program["kind"])
    with tempfile.TemporaryDirectory(prefix="build-check-") as folder:
        folders = dict((name, Path(folder, name)) for name in ("ref", "program", "public", "kit", "submission"))
        for path in folders.values():
            path.mkdir()
        for name, data in files.items():
            (folders["ref"] / name).write_bytes(data)
        (folders["program"] / "scoring.json").write_text(json.dumps(config), encoding="utf-8")
        ctx = types.SimpleNamespace(task=task, split=split, reference_dir=folders["ref"],
                                    program_dir=folders["program"], seed=0, out_dir=folders["public"],
                                    public_dir=folders["public"], submission_dir=folders["submission"])
        try:
            public_data(ctx)
            ctx.out_dir = folders["kit"]
            starting_kit(ctx)
        except Exception as exc:  # what the build would say of this split, with the same words
            return "deriving the public data and starting kit fails: %s: %s" % (type(exc).__name__, exc)
        try:
            module.score(str(folders["ref"]), str(folders["submission"]), program)
        except (runtime.ReferenceDataError, runtime.SubmissionError) as exc:
            return "the starting kit's sample submission would fail: %s" % exc
    return None


def _render(name, **context):
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(KITS)), undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True)
    return env.get_template(name).render(**context)


# ---------------------------------------------------------------------------------------------------------------
# Reading and writing the gold


def _is_tsv(path):
    return str(path).lower().endswith(".tsv")


def _read_csv(path):
    """(header, rows) of a CSV file, or of a TSV file (named .tsv: tabs, no quoting, as the scorer reads it)."""
    options = {"delimiter": "\t", "quoting": csv.QUOTE_NONE} if _is_tsv(path) else {}
    with open(str(path), encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle, **options))
    return rows[0], [row for row in rows[1:] if row]


def _csv_text(header, rows, tabs=False):
    if tabs:  # TSV as read: no quoting (the cells came from a TSV file, so they hold no tab nor line end)
        return "".join("\t".join(row) + "\n" for row in [header] + list(rows))
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


def _line_ids(path):
    """The ids of a spans gold of ``<id><TAB>[offsets]`` lines, in order (blank lines skipped, as the scorer does)."""
    with open(str(path), encoding="utf-8-sig") as handle:
        return [line.split("\t", 1)[0].strip() for line in handle if line.strip()]


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
    elif kind == "spans" and generic_config().file_format(gold.name) != "csv":
        # <id><TAB>[offsets] lines carry no text: participants get the ids (a CSV gold can carry the texts)
        out.write_text(_csv_text(["id"], [[item] for item in _line_ids(gold)]), encoding="utf-8")
    elif kind == "spans":
        header, rows = _read_csv(gold)
        spans = _column(header, program["spans_column"])
        # Without an id column, a post's id is its row number, as the scorer counts it.
        id_at = _column(header, program["id_column"]) if program["id_column"] else None
        ids = [row[id_at] for row in rows] if id_at is not None else [str(i) for i in range(len(rows))]
        keep = [i for i in range(len(header)) if i not in (spans, id_at)]
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
    """{split: {file name: text}}: an organizer's single gold file split into dev (about 20%) and test by id; a
    ranking gold's OPTIONS_FILE beside it is split with it."""
    path = Path(path)
    name = path.name
    file_format = generic_config().file_format(name)
    if kind == "ranking" and file_format == "json":
        answers = json.loads(path.read_text(encoding="utf-8"))
        items = [(q, q) for q in sorted(answers)]

        def text(chosen):
            return json.dumps(dict((q, answers[q]) for q, _ in chosen), indent=1) + "\n"
    elif kind == "spans" and file_format != "csv":  # <id><TAB>[offsets] lines
        lines = [line.rstrip("\r\n") + "\n" for line in path.read_text(encoding="utf-8-sig").splitlines()
                 if line.strip()]
        items = [(line.split("\t", 1)[0].strip(), line) for line in lines]

        def text(chosen):
            return "".join(line for _, line in chosen)
    else:
        header, rows = _read_csv(path)
        if program.get("id_column"):
            key = _column(header, program["id_column"])
            items = [(row[key].strip(), row) for row in rows]
        else:  # the scorer's ids: row numbers
            items = [(str(i), row) for i, row in enumerate(rows)]

        def text(chosen):
            return _csv_text(header, [row for _, row in chosen], _is_tsv(name))
    parts = _both_filled({"dev": [item for item in items if _in_dev(item[0])],
                          "test": [item for item in items if not _in_dev(item[0])]})
    gold = dict((split, {name: text(chosen)}) for split, chosen in parts.items())
    if kind == "ranking":  # each split gets the options of its queries (gold_problem checked that all are there)
        id_key = _id_key()
        options = json.loads(path.with_name(OPTIONS_FILE).read_text(encoding="utf-8"))
        for split, chosen in parts.items():
            queries = set(id_key(q) for q, _ in chosen)
            gold[split][OPTIONS_FILE] = json.dumps(dict((q, o) for q, o in options.items() if id_key(q) in queries),
                                                   indent=1) + "\n"
    return gold


def _both_filled(parts):
    if not parts["dev"] or not parts["test"]:
        everything = parts["dev"] + parts["test"]
        if len(everything) < 2:
            raise ValueError("the gold has fewer than 2 items: nothing to split into phases")
        cut = max(1, len(everything) // 5)
        parts = {"dev": everything[:cut], "test": everything[cut:]}
    return parts
