"""``new NAME --kind KIND [--dir FOLDER]``: the files of a complete task, written only once its gold is known to build.

Writes, in a competition folder (by default the current one; this repository for ``build_bundle.py``),
bundles/NAME/ (task.yaml, pages rendered from it at build time, logo, derive hooks, sample-data generator),
scoring_programs/NAME/ (metadata, scoring.json, metric card: the generic scoring program, no code) and
reference_data/NAME/<split>/ (sample gold, or the organizer's gold split into phases), the folder's README.md
(what to edit, how to build) and CI files (ci_workflow: a GitHub Actions workflow and ci/competition.sh) when it has
none. ``--kind custom`` (custom_task.py, no generic kind) writes instead a
skeleton evaluate.py of the task's own, with its sample gold, hooks and kit, which build as written.
"""
import csv
import datetime
import io
import json
import math
import re
from pathlib import Path

import jinja2

from .. import loading, resources
from . import build, ci_workflow, custom_task, generic_kits, gold_sniff, new_code
from .render import yaml_quote
from .taskdef import ROOT, task_names

TEMPLATES = Path(__file__).resolve().parent / "templates" / "new"
NAME_RE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
# The keys a new task shows, the first ranking; the organizer can list others of the kind in scoring.json.
DEFAULT_KEYS = {"classification": ("macro_f1", "accuracy", "weighted_f1"),
                "multilabel": ("samples_f1", "jaccard", "micro_f1", "macro_f1"),
                "spans": ("spans_f1", "spans_precision", "spans_recall"),
                "ranking": ("accuracy", "mrr"),
                "text": ("exact_match", "f1"),
                "regression": ("pearson", "spearman", "mae", "rmse"),
                "sequence": ("f1", "precision", "recall", "accuracy"),
}
# A ranking task whose gold is TREC qrels (graded judgments): the keys of TREC and BEIR, nDCG@10 ranking.
QRELS_KEYS = ("ndcg_at_10", "map", "mrr_at_10", "recall_at_100")
LABELS = {"macro_f1": "Macro-F1", "accuracy": "Accuracy", "micro_f1": "Micro-F1", "weighted_f1": "Weighted F1",
          "macro_precision": "Macro precision", "macro_recall": "Macro recall", "samples_f1": "Samples F1",
          "jaccard": "Jaccard", "exact_match": "Exact match", "spans_f1": "F1", "spans_precision": "Precision",
          "spans_recall": "Recall", "mrr": "MRR", "hits_at_3": "Hits@3", "hits_at_5": "Hits@5",
          "hits_at_10": "Hits@10", "f1": "F1", "bleu": "BLEU", "chrf": "chrF", "rouge1": "ROUGE-1",
          "rouge2": "ROUGE-2", "rouge_l": "ROUGE-L",
          "pearson": "Pearson r", "spearman": "Spearman rho", "kendall_tau": "Kendall tau",
          "mae": "MAE", "rmse": "RMSE", "r2": "R2", "qwk": "Quadratic weighted kappa",
          "precision": "Precision", "recall": "Recall",
}
SPLITS = ("dev", "test")
CUSTOM = custom_task.KIND  # a program of its own: not a generic kind
_CUTOFF_LABELS = {"p": "P@%s", "recall": "Recall@%s", "mrr": "MRR@%s", "ndcg": "nDCG@%s", "hits": "Hits@%s"}
# Keys that need an option (classification's subset averages): their leaderboard labels.
SUBSET_LABELS = {"subset_macro_f1": "Subset macro-F1", "subset_micro_f1": "Subset micro-F1",
                 "subset_macro_precision": "Subset macro precision", "subset_macro_recall": "Subset macro recall"}


def label(key, kind=None):
    """A score key's leaderboard label: LABELS, "nDCG@10" for ndcg_at_10 and the like, "F1 pos" for a class's
    f1_pos, "F1 PER" for a sequence task's chunk type."""
    if key in LABELS or key in SUBSET_LABELS:
        return LABELS.get(key) or SUBSET_LABELS[key]
    if key in ("map", "ndcg"):
        return {"map": "MAP", "ndcg": "nDCG"}[key]
    name, _, cutoff = key.rpartition("_at_")
    if name in _CUTOFF_LABELS and cutoff.isdigit():
        return _CUTOFF_LABELS[name] % cutoff
    measure, _, what = key.partition("_")
    if measure in ("f1", "precision", "recall") and what:
        return "%s %s" % (LABELS[measure], what.upper() if kind == "sequence" else what)
    return key


class NewTaskError(Exception):
    pass


def _writer():
    """(the paths written, a write(path, text or bytes) that makes folders and records each path)."""
    written = []

    def write(path, data):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        written.append(path)
    return written, write


def _schedule(today):
    """(today, development start, test start) of a new task: development from tomorrow, test six weeks later."""
    today = today or datetime.date.today()
    dev_start = datetime.datetime(today.year, today.month, today.day) + datetime.timedelta(days=1)
    return today, dev_start, dev_start + datetime.timedelta(weeks=6)


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
        names = set(n for files in layout.values() for n in files if n not in _BESIDE_GOLD)
        if len(names) != 1 or not all(layout.values()):
            raise NewTaskError("%s/dev and %s/test must each hold the same gold file (found %s)"
                               % (gold_dir, gold_dir, ", ".join(sorted(names)) or "none"))
        name = names.pop()
        _check_gold_file(kind, name, layout["dev"][name], config)
        _id_column(kind, layout["dev"][name], name, config)
        return layout, name
    files = [p for p in sorted(gold_dir.iterdir()) if p.is_file() and p.name not in _BESIDE_GOLD]
    if len(files) != 1:
        raise NewTaskError("--gold-dir %s must hold one gold file (or dev/ and test/ folders), found %d files"
                           % (gold_dir, len(files)))
    return _split_one_file(kind, files[0], config)


# Files beside a ranking gold: the options (candidates) and, with qrels, the topics.
_BESIDE_GOLD = (generic_kits.OPTIONS_FILE, generic_kits.TOPICS_FILE)


def _id_column(kind, data, name, config):
    """A spans gold in CSV with an ``id`` column: posts are named by it (the scorer's default is the row number,
    as in the released tsd_*.csv, which has no id column)."""
    if kind != "spans" or not name.lower().endswith(".csv"):
        return
    header = next(csv.reader(io.StringIO(data.decode("utf-8-sig", "replace"))), [])
    found = [cell.strip() for cell in header if cell.strip().lower() == "id"]
    if len(found) == 1 and "id_column" not in config:
        config["id_column"] = found[0]


def _check_gold_file(kind, name, data, config):
    """Refuse a gold that ``kind`` cannot read or cannot mean, in words about the gold (the organizer has written
    no scoring.json yet): its file name's extension, then what the file looks like (gold_sniff)."""
    suffixes = generic_kits.generic_config().file_suffixes(kind)
    if suffixes and not name.lower().endswith(suffixes):
        look = gold_sniff.sniff_data(name, data)
        raise NewTaskError("the gold file %s: a %s gold is a %s file (%s)" % (
            name, kind, " or ".join(suffixes), gold_sniff.kind_named(look)))
    problem = gold_sniff.misfit(kind, gold_sniff.sniff_data(name, data), config)
    if problem:
        raise NewTaskError("%s: %s" % (name, problem))


def _split_one_file(kind, path, config):
    data = path.read_bytes()
    _check_gold_file(kind, path.name, data, config)
    _id_column(kind, data, path.name, config)
    program = dict(generic_kits.generic_config().with_defaults(config), reference=path.name)
    files = {path.name: data}
    for beside in _BESIDE_GOLD:
        if kind == "ranking" and path.with_name(beside).is_file():
            files[beside] = path.with_name(beside).read_bytes()
    problem = generic_kits.gold_problem(kind, program, files)
    if problem:  # checked whole, so that lines are the file's own
        raise NewTaskError("the gold: %s" % problem)
    try:
        parts = generic_kits.split_gold(kind, path, program)
    except (ValueError, OSError, UnicodeDecodeError) as exc:
        raise NewTaskError("%s: %s" % (shown_path(path), exc))
    return (dict((split, dict((n, t.encode("utf-8")) for n, t in files_.items())) for split, files_ in parts.items()),
            path.name)


def _example(kind, keys=(), qrels=False):
    """(prose, JSON) of a small worked example the generic suite re-scores: files and the scores they give; with
    ``qrels``, a qrels gold and a TREC run scored with the task's ``keys``."""
    if qrels:
        return _qrels_example(keys)
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
    elif kind == "text":
        ref = {"gold.json": "{\"1\": \"the cat sat\", \"2\": [\"Paris\", \"the city of Paris\"], \"3\": \"\"}\n"}
        res = {"predictions.json": "{\"1\": \"A cat sat.\", \"2\": \"Paris, France\", \"3\": \"none\"}\n"}
        scores = {"exact_match": 1.0 / 3, "f1": 5.0 / 9}
        prose = ("Item 1: \"A cat sat.\" and \"the cat sat\" both normalize to \"cat sat\": exact match 1, F1 1. "
                 "Item 2: \"paris france\" against \"paris\" has F1 2 x (1/2 x 1)/(1/2 + 1) = 2/3 (against \"city of "
                 "paris\": 2/5), exact match 0. Item 3 has no answer (an empty reference): \"none\" scores 0. "
                 "`exact_match` = 1/3, `f1` = (1 + 2/3 + 0)/3 = 5/9.")
    elif kind == "regression":
        ref = {"gold.csv": "id,score\n1,1\n2,2\n3,3\n4,4\n"}
        res = {"predictions.csv": "id,score\n1,1.5\n2,2\n3,2\n4,5\n"}
        scores = {"pearson": 5.25 / math.sqrt(5 * 7.6875), "spearman": 4.5 / math.sqrt(5 * 4.5), "mae": 0.625,
                  "rmse": 0.75, "kendall_tau": 5 / math.sqrt(6 * 5), "r2": 0.55}
        prose = ("Gold 1, 2, 3, 4; predicted 1.5, 2, 2, 5 (errors +0.5, 0, -1, +1). `pearson`: deviations from the "
                 "means 2.5 and 2.625 give 5.25/sqrt(5 x 7.6875) = 0.8468; `spearman`: predicted ranks 1, 2.5, 2.5, 4 "
                 "(the tie shares 2.5), so 4.5/sqrt(5 x 4.5) = 0.9487; `kendall_tau`: 5 concordant pairs, 0 discordant, 1 "
                 "tied in the predictions: 5/sqrt(6 x 5) = 0.9129; `mae` = 2.5/4 = 0.625; `rmse` = sqrt(2.25/4) = "
                 "0.75; `r2` = 1 - 2.25/5 = 0.55.")
    elif kind == "sequence":
        ref = {"gold.conll": "-DOCSTART- O\n\nNadim B-PER\nLadki I-PER\nin O\nParis I-LOC\n\nAcme B-ORG\nCorp I-ORG\n"
                             "says O\n"}
        res = {"predictions.conll": "Nadim B-PER\nLadki I-PER\nin O\nParis B-LOC\n\nAcme B-ORG\nCorp B-ORG\nsays O\n"}
        scores = {"f1": 4.0 / 7, "precision": 0.5, "recall": 2.0 / 3, "accuracy": 5.0 / 7}
        prose = ("Gold chunks PER 'Nadim Ladki', LOC 'Paris' (an I- tag after O starts a chunk, as in conlleval) and "
                 "ORG 'Acme Corp'; predicted PER 'Nadim Ladki', LOC 'Paris', ORG 'Acme' and ORG 'Corp': 2 of the 4 "
                 "predicted chunks are correct, so `precision` = 2/4, `recall` = 2/3, `f1` = 2 x 2/(3 + 4) = 4/7; "
                 "`accuracy` = 5/7 (Paris and Corp have another tag; the -DOCSTART- line is not a token).")
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
               "spans": {"spans_column": "spans"}, "ranking": {}, "text": {},
               "regression": {"id_column": "id", "value_column": "score"},
               "sequence": {"scheme": "conlleval"}}[kind]
    if kind == "regression":  # the example's own keys (its predictions are not labels: no qwk, no label_range)
        shown = [key for key in keys if key in scores] or sorted(scores)
        scores = dict((key, scores[key]) for key in shown)
        columns = dict(columns, keys=shown, label_range=None)
    example = {"config": dict(names, **columns), "gold_public": True, "ref": ref, "res": res, "scores": scores}
    return prose, json.dumps(example, indent=1, sort_keys=True)


# The qrels example: q1 ranks d3 (grade 0), d1 (3), d4 (1), d2 (2) (d1 and d9 tie at 4: the larger id, d9, goes
# first, as in trec_eval; d9 is not judged); d5 (2) is not ranked; q2 ranks its only relevant document first.
QRELS_EXAMPLE = {"qrels.txt": "q1 0 d1 3\nq1 0 d2 2\nq1 0 d3 0\nq1 0 d4 1\nq1 0 d5 2\nq2 0 d6 1\n",
                 "run.txt": "q1 Q0 d3 1 5.0 run\nq1 Q0 d1 2 4.0 run\nq1 Q0 d9 3 4.0 run\nq1 Q0 d4 4 2.0 run\n"
                            "q1 Q0 d2 5 1.0 run\nq2 Q0 d6 1 1.0 run\n"}
QRELS_PROSE = ("q1's ranking, as trec_eval orders it (score descending, ties by the larger document id): d3 (grade 0), "
               "d9 (not judged), d1 (3), d4 (1), d2 (2); d5 (2) is not ranked. Relevant (grade >= 1): d1, d2, d4, d5, "
               "ranked 3, 5, 4. For q1: MRR 1/3 (MRR@10 too), AP = (1/3 + 2/4 + 3/5)/4, P@10 = 3/10, R@100 = 3/4, "
               "nDCG@10 = (3/log2(4) + 1/log2(5) + 2/log2(6)) / (3/log2(2) + 2/log2(3) + 2/log2(4) + 1/log2(5)) = "
               "0.4751; q2 ranks its one relevant document first: 1 in every measure. Each key is the mean over "
               "the two queries.")


def _qrels_example(keys):
    """The qrels example scored by the scoring program itself (whose measures the tests check against trec_eval)."""
    import tempfile
    config = {"reference": "qrels.txt", "submission": "run.txt", "keys": list(keys), "relevance_threshold": 1,
              "missing_queries": "zero"}
    module, _ = generic_kits._scorer("ranking")
    program = generic_kits.generic_config().with_defaults(dict(config, kind="ranking"))
    with tempfile.TemporaryDirectory(prefix="example-") as folder:
        for sub, name in (("ref", "qrels.txt"), ("res", "run.txt")):
            Path(folder, sub).mkdir()
            Path(folder, sub, name).write_text(QRELS_EXAMPLE[name], encoding="utf-8")
        result = module.score(str(Path(folder, "ref")), str(Path(folder, "res")), program)
    example = {"config": config, "gold_public": True, "ref": {"qrels.txt": QRELS_EXAMPLE["qrels.txt"]},
               "res": {"run.txt": QRELS_EXAMPLE["run.txt"]}, "scores": dict(result.scores)}
    return QRELS_PROSE, json.dumps(example, indent=1, sort_keys=True)


def parse_setting(text):
    """``FIELD=VALUE`` of ``new --set`` as (field, value): the value is JSON when it reads as JSON (numbers, true,
    lists, objects), else the text itself (a column name, a file name)."""
    field, sep, value = text.partition("=")
    if not sep or not field.strip():
        raise NewTaskError("--set %s: write FIELD=VALUE, e.g. --set label_column=Stance or --set "
                           "'label_range=[1, 5]'" % text)
    try:
        return field.strip(), json.loads(value)
    except ValueError:
        return field.strip(), value


def gold_file(gold_dir):
    """The organizer's gold file under ``gold_dir`` (a file, a folder holding one, or dev/ and test/ folders:
    the development one), or None when there is no single one."""
    path = Path(gold_dir)
    if path.is_file():
        return path
    if (path / "dev").is_dir():
        path = path / "dev"
    files = [p for p in sorted(path.iterdir()) if p.is_file() and p.name not in _BESIDE_GOLD] \
        if path.is_dir() else []
    return files[0] if len(files) == 1 else None


def infer_kind(gold_dir, notes=None):
    """The kind a gold says it is (numbers: regression, tag columns: sequence, qrels: ranking, ...), for ``new``
    without --kind; NewTaskError when the gold does not say."""
    path = gold_file(gold_dir)
    if path is None:
        raise NewTaskError("--kind is needed: no single gold file found in %s to tell the kind from" % gold_dir)
    look = gold_sniff.sniff(path)
    kind = look.kind
    if kind is None and look.form == "table":
        named = [(column, c) for column, c in look.columns.items() if column.strip().lower() in
                 ("label", "labels", "score", "answer", "spans")]
        if len(named) == 1 and named[0][1].holds == "numbers" and gold_sniff._is_score(named[0][1]):
            kind = "regression"
    if kind not in generic_kits.KINDS:
        raise NewTaskError("--kind is needed: %s, and no kind is certain from it (%s)"
                           % (gold_sniff.kind_named(look), ", ".join(generic_kits.KINDS)))
    if notes is not None:
        notes.append("the gold looks like %s: kind %s chosen from it (give --kind to choose another)"
                     % (look.detail, kind))
    return kind


def create(name, kind, gold_dir=None, title=None, keys=None, today=None, root=ROOT, command="codalab-bundles",
           notes=None, settings=None, ci=True, code=False):
    """Write the task's files in the competition folder ``root``; returns the paths written. ``command`` is how
    the user calls the tool (for the folder's README); ``notes`` (a list) gets what the organizer should know of
    the task made; ``settings`` ({field: value}, new --set) are scoring.json fields of the kind (columns, options),
    known before the gold is read. ``kind`` None: the gold's own (infer_kind). ``ci``: also the folder's CI files
    (ci_workflow), where it has none. ``code``: a code-submission task (new_code.py). Raises NewTaskError,
    before anything is written: a gold that would not build is refused."""
    if not NAME_RE.match(name or ""):
        raise NewTaskError("the task name %r must be lower-case letters and digits, words joined by '-' "
                           "(e.g. sentiment or hotel-reviews): it names folders and bundle files" % name)
    if kind is None:
        if gold_dir is None:
            raise NewTaskError("--kind is needed without --gold-dir (one of %s)" % ", ".join(generic_kits.KINDS))
        kind = infer_kind(gold_dir, notes)
    if kind not in generic_kits.KINDS + (CUSTOM,):
        raise NewTaskError("--kind is one of %s" % ", ".join(generic_kits.KINDS + (CUSTOM,)))
    if code and new_code.refusal(kind):
        raise NewTaskError(new_code.refusal(kind))
    root = Path(root)
    folders = (root / "bundles" / name, root / "scoring_programs" / name, root / "reference_data" / name)
    taken = [str(f.relative_to(root)) for f in folders if f.exists()]
    if taken or name in task_names(root / "bundles") or name in ("common", "generic"):
        raise NewTaskError("%s already exists: choose another name" % (", ".join(taken) or name))
    if kind == CUSTOM:
        if settings:
            raise NewTaskError("--set is for the generic kinds' scoring.json; a custom task has none: its settings "
                               "are in scoring_programs/%s/evaluate.py" % name)
        return _create_custom(name, title, gold_dir, keys, today, root, command, notes, ci)
    config_module = generic_kits.generic_config()
    chosen_keys = keys
    keys = list(keys or DEFAULT_KEYS[kind])
    config = {"kind": kind, "keys": keys, "title": title or name.replace("-", " ").title()}
    settings = dict(settings or {})
    for field in ("kind", "keys", "title"):
        if field in settings:
            raise NewTaskError("--set %s: give it as --%s" % (field, field))
    config.update(settings)
    layout = None
    if kind == "spans":
        config["reference"] = "gold.csv"  # the sample gold: the released tsd_*.csv layout (spans,text)
    if gold_dir is not None:
        layout, reference = _gold_layout(kind, gold_dir, config)
        config["reference"] = reference
        if kind == "ranking" and config_module.file_format(reference) == "lines":
            # TREC qrels: graded measures, a TREC run, and the two settings written out for the organizer to see
            keys = list(chosen_keys or QRELS_KEYS)
            config.update(dict(dict(submission="run.txt", relevance_threshold=1, missing_queries="zero"),
                               **settings), keys=keys)
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
    written, write = _writer()
    env = _environment()
    today, dev_start, test_start = _schedule(today)
    qrels = generic_kits.is_qrels(program)
    write(bundle / "task.yaml", env.get_template("task.yaml.j2").render(
        name=name, kind=kind, title=config["title"], today=today.isoformat(), keys=keys,
        labels=dict((key, label(key, kind)) for key in keys), lower_is_better=config_module.LOWER_IS_BETTER,
        command=command, description=(
            "Rank the documents of each query; ranked by %s." % label(keys[0]) if qrels else
            "Predict the %s of each item; ranked by %s." % (
                {"classification": "label", "multilabel": "labels", "spans": "spans", "ranking": "best option",
                 "text": "text", "regression": "score", "sequence": "tag of each token"}[kind],
                label(keys[0]))),
        dev_start=dev_start, test_start=test_start, end_date=test_start + datetime.timedelta(weeks=2, seconds=-1),
        code=new_code.spec(program) if code else None))
    for page in ("overview", "evaluation", "data", "terms"):
        write(bundle / "pages" / ("%s.html.j2" % page), (TEMPLATES / "pages" / ("%s.html.j2" % page)).read_bytes())
    logo = loading.load_file(resources.MAKE_LOGO, "make_logo_for_new")
    write(bundle / "logo.png", logo.logo_png(name))
    write(bundle / "derive.py", env.get_template("derive.py.j2").render(name=name, kind=kind))
    write(program_dir / "metadata", build.METADATA)
    write(program_dir / "scoring.json", json.dumps(config, indent=1) + "\n")
    prose, example = _example(kind, keys, qrels)
    formula = "See `scoring_programs/generic/README.md`, section `%s`, for each key's formula." % kind
    named = dict((role, program[field] if "*" not in program[field] else role + program[field][1:])
                 for role, field in (("gold", "reference"), ("predictions", "submission")))
    write(program_dir / "README.md", env.get_template("card.md.j2").render(
        title=config["title"], kind=kind, program=program, keys=keys, formula=formula, example_text=prose, qrels=qrels,
        example_json=example, name=name, gold_file=named["gold"], pred_file=named["predictions"]))
    if layout is None:
        write(bundle / "sample_data.py", env.get_template("sample_data.py.j2").render(name=name, kind=kind))
        written.extend(generic_kits.write_sample_data(name, kind, reference_dir, root))
    else:
        for split, files in sorted(layout.items()):
            for file_name, data in sorted(files.items()):
                write(reference_dir / split / file_name, data)
    if code:
        new_code.write(env, write, bundle, program, config["title"],
                       (reference_dir / "dev" / program["reference"]).read_text(encoding="utf-8-sig"))
    if ci:
        ci_workflow.write(root, write, notes)
    _update_folder_readme(root, command, write)
    return written


def _update_folder_readme(root, command, write):
    """The folder's README.md: written when there is none (with a section on the CI files when the folder has
    them), else its list of tasks brought up to date."""
    readme = Path(root) / "README.md"
    if not readme.exists():
        write(readme, _environment().get_template("folder-README.md.j2").render(
            tasks=_task_list(root), command=command, ci=(Path(root) / ci_workflow.SCRIPT).exists()))
    else:  # the list of tasks of a README that new wrote (the rest may be the organizer's own)
        text = readme.read_text(encoding="utf-8")
        start, end = text.find(TASKS_BEGIN), text.find(TASKS_END)
        if 0 <= start < end:
            write(readme, text[:start] + _task_list(root) + text[end + len(TASKS_END):])


def _create_custom(name, title, gold_dir, keys, today, root, command, notes=None, ci=True):
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
    written, write = _writer()
    env = _environment()
    today, dev_start, test_start = _schedule(today)
    keys = list(custom_task.KEYS)
    bundle = root / "bundles" / name
    write(bundle / "task.yaml", env.get_template("task.yaml.j2").render(
        name=name, kind=CUSTOM, title=title, today=today.isoformat(), keys=keys, labels=LABELS, command=command,
        lower_is_better=(),
        description="Predict the label of each item; ranked by %s." % LABELS.get(keys[0], keys[0]),
        dev_start=dev_start, test_start=test_start, end_date=test_start + datetime.timedelta(weeks=2, seconds=-1)))
    for page in ("overview", "evaluation", "data", "terms"):
        write(bundle / "pages" / ("%s.html.j2" % page), (TEMPLATES / "pages" / ("%s.html.j2" % page)).read_bytes())
    write(bundle / "logo.png", loading.load_file(resources.MAKE_LOGO, "make_logo_for_new").logo_png(name))
    for relative, text in sorted(made.items()):
        write(root / relative, text)
    sample = loading.load_file(bundle / "sample_data.py", "custom_sample_%s" % name.replace("-", "_"))
    written.extend(sample.write(root / "reference_data" / name))
    if ci:
        ci_workflow.write(root, write, notes)
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
