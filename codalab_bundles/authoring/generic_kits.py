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

# One kind a line (kinds are added side by side).
KINDS = (
    "classification",
    "multilabel",
    "spans",
    "ranking",
    "text",
    "regression",
    "sequence",
)
KITS = Path(__file__).resolve().parent / "templates" / "kits"
OPTIONS_FILE = "options.json"  # ranking: {query id: [option ids]}, beside the gold; the scorer ignores it
PUBLIC_NAMES = {
    "classification": "items.csv",
    "multilabel": "items.csv",
    "spans": "texts.csv",
    "ranking": "queries.json",
    "text": "items.json",
    "regression": "items.csv",
    "sequence": "tokens.conll",
}
# text: the public data's name by the gold's format (a SQuAD dataset, a CSV or TSV; else items.json, the ids)
TEXT_PUBLIC_NAMES = {"squad": "questions.json", "csv": "items.csv", "tsv": "items.tsv"}
# ranking with a TREC qrels gold: participants get the query ids (with their text when TOPICS_FILE, "qid<TAB>text"
# lines, is beside the gold) as QRELS_PUBLIC, and OPTIONS_FILE (optional: candidates to re-rank) as CANDIDATES_FILE.
TOPICS_FILE = "topics.tsv"
QRELS_PUBLIC = "queries.tsv"
CANDIDATES_FILE = "candidates.json"
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


def is_qrels(program):
    """Whether a ranking task's gold is TREC qrels lines (not the multiple-choice JSON or CSV)."""
    return program["kind"] == "ranking" and generic_config().file_format(program["reference"]) == "lines"


def public_name(program, gold):
    """The file of the public data that the baseline reads (``gold``: the gold file, whose format it may follow)."""
    if is_qrels(program):
        return QRELS_PUBLIC
    if program["kind"] == "text":
        return TEXT_PUBLIC_NAMES.get(_text_format(gold), PUBLIC_NAMES["text"])
    if program["kind"] == "sequence" and _sequence_json(program["reference"]):
        return "tokens.jsonl"
    return PUBLIC_NAMES[program["kind"]]


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
    if kind == "ranking" and is_qrels(program):  # the options (candidates) are optional, the topics too
        problem = _options_problem(program, files, gold) if OPTIONS_FILE in files else None
        return problem or _topics_problem(files, gold)
    return _options_problem(program, files, gold) if kind == "ranking" else None


def _topics(data):
    """{query id as given: text} of TOPICS_FILE's "qid<TAB>text" lines; ValueError naming a bad line."""
    topics = {}
    for number, line in enumerate(data.decode("utf-8-sig").splitlines(), 1):
        if not line.strip():
            continue
        query, tab, text = line.partition("\t")
        if not tab or not query.strip():
            raise ValueError("%s, line %d: a line is a query id, a tab and the query's text" % (TOPICS_FILE, number))
        topics[query.strip()] = text.strip()
    return topics


def _topics_problem(files, gold):
    if TOPICS_FILE not in files:
        return None
    try:
        topics = _topics(files[TOPICS_FILE])
    except (ValueError, UnicodeDecodeError) as exc:
        return "%s: %s" % (TOPICS_FILE, exc)
    id_key = _id_key()
    without = [q for q in gold if q not in set(id_key(t) for t in topics)]
    if without:
        return "%s has no text for %d of the gold's queries (first: %s): add them" % (
            TOPICS_FILE, len(without), ", ".join(str(q) for q in without[:5]))
    return None


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
    out = Path(ctx.out_dir) / public_name(program, gold)
    if kind == "sequence":
        _public_sequence(gold, out, program)
    elif kind == "text":
        _text_public_data(gold, program, out)
    elif kind in ("classification", "multilabel"):
        header, rows = _read_csv(gold)
        answer = _column(header, program["label_column" if kind == "classification" else "labels_column"])
        keep = [i for i in range(len(header)) if i != answer]
        out.write_text(_csv_text([header[i] for i in keep], [[row[i] for i in keep] for row in rows]),
                       encoding="utf-8")
    elif kind == "regression":
        header, rows = _read_csv(gold)
        value = _column(header, program["value_column"])
        keep = [i for i in range(len(header)) if i != value]
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
    elif is_qrels(program):
        _qrels_public(ctx, program, gold)
    else:
        options = Path(ctx.reference_dir) / OPTIONS_FILE
        if not options.is_file():
            raise ValueError("a ranking task publishes each query's options: put %s ({query id: [option ids]}) "
                             "beside the gold" % OPTIONS_FILE)
        shutil.copyfile(str(options), str(out))


def _qrels_public(ctx, program, gold):
    """queries.tsv: each query of the qrels once, in order, with its text from TOPICS_FILE when given; the
    candidates to re-rank (OPTIONS_FILE) as CANDIDATES_FILE when given. Never a judgment."""
    queries = []
    with open(str(gold), encoding="utf-8-sig") as handle:
        for line in handle:
            parts = line.split()
            if parts and (not queries or queries[-1] != parts[0]) and parts[0] not in queries:
                queries.append(parts[0])
    topics_path = Path(ctx.reference_dir) / TOPICS_FILE
    topics = _topics(topics_path.read_bytes()) if topics_path.is_file() else {}
    id_key = _id_key()
    texts = dict((id_key(q), t) for q, t in topics.items())
    lines = ["%s\t%s\n" % (q, texts[id_key(q)]) if id_key(q) in texts else "%s\n" % q for q in queries]
    (Path(ctx.out_dir) / QRELS_PUBLIC).write_text("".join(lines), encoding="utf-8")
    options = Path(ctx.reference_dir) / OPTIONS_FILE
    if options.is_file():
        shutil.copyfile(str(options), str(Path(ctx.out_dir) / CANDIDATES_FILE))


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
    public = Path(ctx.public_dir) / public_name(program, _gold_path(ctx.reference_dir, program))
    qrels = is_qrels(program)
    baseline = _render("baseline_%s%s.py.j2" % (kind, "_qrels" if qrels else ""), title=title, program=program,
                       label=label, public=public.name, candidates=CANDIDATES_FILE,
                       run_format=generic_config().file_format(program["submission"]))
    (Path(ctx.out_dir) / "baseline.py").write_text(baseline, encoding="utf-8")
    (Path(ctx.out_dir) / "README.md").write_text(_render(
        "README.md.j2", title=title, kind=kind, program=program, public=public.name, label=label, qrels=qrels,
        candidates=CANDIDATES_FILE), encoding="utf-8")
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


def sample_gold(kind, split, seed, qrels=False):
    """{file name: text} of a synthetic gold split (``qrels``: a ranking gold as TREC qrels, with candidates and
    topics)."""
    rng = random.Random(seed)
    n = SPLIT_SIZES[split]
    texts = [" ".join(rng.choice(_WORDS) for _ in range(rng.randint(4, 12))) for _ in range(n)]
    if kind == "classification":
        rows = [[str(i + 1), text, rng.choice(_LABELS[kind])] for i, text in enumerate(texts)]
        return {"gold.csv": _csv_text(["id", "text", "label"], rows)}
    if kind == "regression":  # a rating from 0 to 5 that grows with the text's length, plus noise
        rows = [[str(i + 1), text, "%.2f" % min(5.0, max(0.0, 0.4 * len(text.split(" ")) + rng.gauss(0, 0.8)))]
                for i, text in enumerate(texts)]
        return {"gold.csv": _csv_text(["id", "text", "score"], rows)}
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
    if kind == "text":
        return {"gold.json": _sample_squad(rng, texts)}
    if qrels:
        return _sample_qrels(rng, n, texts)
    options = {}
    answers = {}
    for i in range(n):
        query = "q%d" % (i + 1)
        ids = ["%s_%s" % (query, letter) for letter in "abcde"]
        rng.shuffle(ids)
        options[query], answers[query] = ids, rng.choice(ids)
    return {"gold.json": json.dumps(answers, indent=1, sort_keys=True) + "\n",
            OPTIONS_FILE: json.dumps(options, indent=1, sort_keys=True) + "\n"}


def _sample_qrels(rng, n, texts):
    """Queries q1..qn, eight candidate documents each (shuffled), four judged with grades 0-3."""
    lines, options, topics = [], {}, []
    for i in range(n):
        query = "q%d" % (i + 1)
        documents = ["%s_d%d" % (query, k) for k in range(1, 9)]
        rng.shuffle(documents)
        options[query] = documents
        for document in sorted(rng.sample(documents, 4)):
            lines.append("%s 0 %s %d\n" % (query, document, rng.randint(0, 3)))
        topics.append("%s\t%s\n" % (query, texts[i]))
    return {"qrels.txt": "".join(lines), OPTIONS_FILE: json.dumps(options, indent=1, sort_keys=True) + "\n",
            TOPICS_FILE: "".join(topics)}


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


def write_sample_data(task, kind, out=None, root=ROOT, qrels=False):
    """Write the sample gold of every split into out/<split>/ (default: the competition folder's
    reference_data/<task>/); ``qrels``: a ranking sample as TREC qrels."""
    out = Path(out) if out else Path(root) / "reference_data" / task
    written = []
    for split in SPLIT_SIZES:
        folder = out / split
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in sorted(sample_gold(kind, split, sample_seed(task, split), qrels).items()):
            (folder / name).write_text(text, encoding="utf-8")
            written.append(folder / name)
    return written


def sample_data_main(task, argv, root=ROOT):
    """The sample-data generator of a generic task in the competition folder ``root``."""
    parser = argparse.ArgumentParser(description="Write %s's sample gold into reference_data/%s/." % (task, task))
    parser.add_argument("--out", help="another folder (default: reference_data/%s)" % task)
    args = parser.parse_args(argv)
    program = program_config(Path(root) / "scoring_programs" / task)
    for path in write_sample_data(task, program["kind"], args.out, root, is_qrels(program)):
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
    if kind == "ranking" and file_format == "lines":  # TREC qrels: a query's judgments go together
        judgments = {}
        for line in path.read_text(encoding="utf-8-sig").splitlines():
            if line.split():
                judgments.setdefault(line.split()[0], []).append(line + "\n")
        items = [(q, q) for q in judgments]

        def text(chosen):
            return "".join(line for q, _ in chosen for line in judgments[q])
    elif kind == "sequence" and _sequence_json(name):
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
    elif kind == "text" and _text_format(path) != "csv":
        items, text = _text_split_items(path, program)
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
    # each split gets the options of its queries (gold_problem checked that all are there), and the topics
    if kind == "ranking" and (file_format != "lines" or path.with_name(OPTIONS_FILE).is_file()):
        id_key = _id_key()
        options = json.loads(path.with_name(OPTIONS_FILE).read_text(encoding="utf-8"))
        for split, chosen in parts.items():
            queries = set(id_key(q) for q, _ in chosen)
            gold[split][OPTIONS_FILE] = json.dumps(dict((q, o) for q, o in options.items() if id_key(q) in queries),
                                                   indent=1) + "\n"
    if kind == "ranking" and file_format == "lines" and path.with_name(TOPICS_FILE).is_file():
        id_key = _id_key()
        topics = _topics(path.with_name(TOPICS_FILE).read_bytes())
        for split, chosen in parts.items():
            queries = set(id_key(q) for q, _ in chosen)
            gold[split][TOPICS_FILE] = "".join("%s\t%s\n" % (q, t) for q, t in topics.items() if id_key(q) in queries)
    return gold


def _both_filled(parts):
    if not parts["dev"] or not parts["test"]:
        everything = parts["dev"] + parts["test"]
        if len(everything) < 2:
            raise ValueError("the gold has fewer than 2 items: nothing to split into phases")
        cut = max(1, len(everything) // 5)
        parts = {"dev": everything[:cut], "test": everything[cut:]}
    return parts


# ---------------------------------------------------------------------------------------------------------------
# Kind text: the gold is a SQuAD dataset, a JSON object {id: text or [texts]}, or a CSV/TSV (rows of one id: its
# references)


def _text_format(path):
    """"squad", "json", "csv" or "tsv" of a text gold file."""
    lower = Path(path).name.lower()
    if lower.endswith((".csv", ".tsv")):
        return lower[-3:]
    data = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    return "squad" if isinstance(data, dict) and isinstance(data.get("data"), list) else "json"


def _without_answers(dataset):
    """A SQuAD dataset without its answers (answers, plausible_answers, is_impossible)."""
    articles = []
    for article in dataset["data"]:
        paragraphs = []
        for paragraph in article["paragraphs"]:
            qas = [dict((k, v) for k, v in qa.items() if k not in ("answers", "plausible_answers", "is_impossible"))
                   for qa in paragraph["qas"]]
            paragraphs.append(dict(paragraph, qas=qas))
        articles.append(dict(article, paragraphs=paragraphs))
    return dict(dataset, data=articles)


def _text_public_data(gold, program, out):
    """Participants' inputs: a SQuAD dataset without its answers; a CSV/TSV's other columns, one row per id; a
    JSON gold's ids (a JSON list)."""
    found = _text_format(gold)
    if found == "squad":
        dataset = json.loads(gold.read_text(encoding="utf-8-sig"))
        out.write_text(json.dumps(_without_answers(dataset), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    elif found == "json":
        ids = list(json.loads(gold.read_text(encoding="utf-8-sig")))
        out.write_text(json.dumps(ids, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    else:
        header, rows = _read_csv(gold)
        answer, key = _column(header, program["reference_column"]), _column(header, program["id_column"])
        keep = [i for i in range(len(header)) if i != answer]
        seen, kept = set(), []
        for row in rows:  # several rows of one id are its references: the inputs once
            if row[key].strip() not in seen:
                seen.add(row[key].strip())
                kept.append([row[i] for i in keep])
        out.write_text(_csv_text([header[i] for i in keep], kept, _is_tsv(gold)), encoding="utf-8")


def _text_split_items(path, program):
    """(items [(id, thing)], text(chosen items)) of a JSON, SQuAD or TSV text gold, for split_gold."""
    found = _text_format(path)
    if found == "tsv":
        header, rows = _read_csv(path)
        key = _column(header, program["id_column"])

        def text(chosen):
            return _csv_text(header, [row for _, row in chosen], True)
        return [(row[key].strip(), row) for row in rows], text
    data = json.loads(path.read_text(encoding="utf-8-sig"))
    if found == "json":
        def text(chosen):
            return json.dumps(dict((item, data[item]) for item, _ in chosen), ensure_ascii=False, indent=1) + "\n"
        return [(item, item) for item in data], text
    ids = [str(qa["id"]) for article in data["data"] for paragraph in article["paragraphs"] for qa in paragraph["qas"]]

    def text(chosen):
        keep = set(item for item, _ in chosen)
        return json.dumps(_without_answers_kept(data, keep), ensure_ascii=False, indent=1) + "\n"
    return [(item, item) for item in ids], text


def _without_answers_kept(dataset, keep):
    """The SQuAD dataset with only the questions whose id is in ``keep`` (answers kept)."""
    articles = []
    for article in dataset["data"]:
        paragraphs = [dict(p, qas=[qa for qa in p["qas"] if str(qa["id"]) in keep]) for p in article["paragraphs"]]
        paragraphs = [p for p in paragraphs if p["qas"]]
        if paragraphs:
            articles.append(dict(article, paragraphs=paragraphs))
    return dict(dataset, data=articles)


def _sample_squad(rng, texts):
    """A SQuAD 2.0 dataset: a paragraph per text; per paragraph one question asking for the word after a word of
    it (answers: that word and the two words), and one in three paragraphs a question it cannot answer."""
    paragraphs = []
    for i, text in enumerate(texts):
        words = text.split(" ")
        at = rng.randrange(len(words) - 1)
        start = sum(len(w) + 1 for w in words[:at + 1])
        qas = [{"id": "q%d" % (i + 1), "question": "Which word follows the %s word '%s'?" % (
            ordinal_word(at + 1), words[at]), "is_impossible": False, "answers": [
                {"text": words[at + 1], "answer_start": start},
                {"text": " ".join(words[at:at + 2]), "answer_start": start - len(words[at]) - 1}]}]
        if i % 3 == 2:
            qas.append({"id": "q%d_none" % (i + 1), "question": "Which word follows 'menu'?", "is_impossible": True,
                        "answers": []})
        paragraphs.append({"context": text, "qas": qas})
    return json.dumps({"version": "v2.0", "data": [{"title": "Reviews", "paragraphs": paragraphs}]}, indent=1) + "\n"


def ordinal_word(number):
    return "%d%s" % (number, "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th"))
