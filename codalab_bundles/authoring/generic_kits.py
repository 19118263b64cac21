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

KINDS = ("classification", "multilabel", "spans", "ranking", "sequence")
KITS = Path(__file__).resolve().parent / "templates" / "kits"
OPTIONS_FILE = "options.json"  # ranking: {query id: [option ids]}, beside the gold; the scorer ignores it
PUBLIC_NAMES = {"classification": "items.csv", "multilabel": "items.csv", "spans": "texts.csv", "ranking": "queries.json",
                "sequence": "tokens.conll"}
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


def public_name(program):
    """The public data's file name: PUBLIC_NAMES, except a sequence gold in JSON lines (public tokens.jsonl)."""
    kind = program["kind"]
    if kind == "sequence" and _sequence_json(program["reference"]):
        return "tokens.jsonl"
    return PUBLIC_NAMES[kind]


def _sequence_json(name):
    return name.lower().endswith((".jsonl", ".json"))


def _conll_units(text):
    """A CoNLL gold's lines in units: its documents when it has -DOCSTART- lines (each unit from one such line to
    the next), else its sentences (blank lines end them). [(unit's lines)], every line kept once, in order."""
    lines = text.splitlines()
    by_document = any(line.split()[:1] == ["-DOCSTART-"] for line in lines)
    units, current = [], []
    for line in lines:
        starts = line.split()[:1] == ["-DOCSTART-"] if by_document else bool(line.strip()) and (
            not current or not current[-1].strip())
        if starts and any(item.strip() for item in current):
            units.append(current)
            current = []
        current.append(line)
    if any(item.strip() for item in current):
        units.append(current)
    elif units:
        units[-1].extend(current)
    return units


def _public_sequence(gold, out, program):
    text = gold.read_text(encoding="utf-8-sig")
    if _sequence_json(gold.name):
        rows = []
        for record in _sequence_records(text):
            rows.append(json.dumps({program["id_column"]: record[program["id_column"]], "tokens": record["tokens"]},
                                   ensure_ascii=False))
        out.write_text("\n".join(rows) + "\n", encoding="utf-8")
        return
    lines = []
    for line in text.splitlines():
        columns = line.split()
        if not columns or columns[0] == "-DOCSTART-":
            lines.append(line.rstrip())
        else:  # every column but the tag, the last
            lines.append(("\t" if "\t" in line else " ").join(columns[:-1]))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _sequence_records(text):
    stripped = text.lstrip()
    if stripped.startswith("["):
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _first_chunk_type(reference_dir, program):
    """The first (by name) chunk type of a sequence gold, which the baseline tags: None when it has no chunk."""
    module, _ = _scorer("sequence")
    types = set(kind for sentence in module.read_gold(str(reference_dir), program).sentences
                for kind in sentence.types if kind)
    return min(types) if types else None


# ---------------------------------------------------------------------------------------------------------------
# Derive hooks


def public_data(ctx):
    program = program_config(ctx.program_dir)
    kind = program["kind"]
    gold = _gold_path(ctx.reference_dir, program)
    out = Path(ctx.out_dir) / public_name(program)
    if kind == "sequence":
        _public_sequence(gold, out, program)
    elif kind in ("classification", "multilabel"):
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
    elif kind == "sequence":
        label = _first_chunk_type(ctx.reference_dir, program)
    public = Path(ctx.public_dir) / public_name(program)
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
# Sequence sample: names of each type, capitalized, among the lower-case words above.
_NAMES = {"PER": ("Anna Berg", "Omar", "Li Wei", "Maria de Souza", "Tom"),
          "LOC": ("Paris", "New York", "Lagos", "Lake Como", "Oslo"),
          "ORG": ("Acme Corp", "United Nations", "Globex", "Red Cross")}
_SENTENCES_PER_DOCUMENT = 5


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
    if kind == "sequence":
        return {"gold.conll": _sample_conll(rng, n)}
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


def _sample_conll(rng, sentences):
    """CoNLL lines "token TAG" (IOB2), a -DOCSTART- line before every few sentences, blank lines between."""
    lines = []
    for i in range(sentences):
        if i % _SENTENCES_PER_DOCUMENT == 0:
            lines.extend(["-DOCSTART- O", ""])
        for _ in range(rng.randint(1, 3)):
            for word in (rng.choice(_WORDS) for _ in range(rng.randint(1, 4))):
                lines.append("%s O" % word)
            if rng.random() < 0.8:
                kind = rng.choice(sorted(_NAMES))
                for j, word in enumerate(rng.choice(_NAMES[kind]).split(" ")):
                    lines.append("%s %s-%s" % (word, "I" if j else "B", kind))
        lines.extend([". O", ""])
    return "\n".join(lines)


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
    if kind == "sequence" and _sequence_json(name):
        records = [line for line in path.read_text(encoding="utf-8-sig").splitlines() if line.strip()]
        if records and records[0].lstrip().startswith("["):
            records = [json.dumps(r, ensure_ascii=False) for r in json.loads("\n".join(records))]
        id_key = _id_key()
        items = [(str(id_key(str(json.loads(line)[program["id_column"]]))), line + "\n") for line in records]

        def text(chosen):
            return "".join(line for _, line in chosen)
    elif kind == "sequence":  # CoNLL: by document (-DOCSTART- lines), else by sentence; numbered from 1
        units = _conll_units(path.read_text(encoding="utf-8-sig"))
        items = [(str(i + 1), unit) for i, unit in enumerate(units)]

        def text(chosen):
            return "".join("\n".join(unit).rstrip("\n") + "\n\n" for _, unit in chosen)
    elif kind == "ranking" and file_format == "json":
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
            return _csv_text(header, [row for _, row in chosen])
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
