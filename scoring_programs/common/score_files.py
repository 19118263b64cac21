"""Two-file scoring, for participants: ``python3 evaluate.py --gold GOLD --pred PRED`` prints the scores.

GOLD and PRED are each a file, a folder or a zip (a submission zip, a reference zip). The task's own ``score`` reads
them with the same checks and messages as on the platform: a file given alone is put in a folder of its own and
stands for the file the task expects there when it has the same extension (scoring_base.STANDS_IN), so
``--pred run3.csv`` is read as the submission.csv it is. Options:

- ``--json``: one JSON object on stdout instead of the table;
- ``--per-item [all|wrong]``: each item's statistics, verdict and what was wrong (the gold is the participant's own
  here, so nothing is hidden);
- ``--ci``: a bootstrap interval for the ranking score; ``--compare PRED2``: PRED against PRED2, paired bootstrap
  and approximate randomization (resampling.py); ``--samples``, ``--seed``, ``--level`` set them;
- ``--output DIR``: also write scores.txt, scores.json and detailed_results.html there, as the platform would.

GOLD and PRED given the wrong way round score without an error in many tasks (a gold file has the submission's
columns and more), so two signs of a swap are looked for first (swap_signs): PRED, a CSV file, has every column of
GOLD and more; and the names (PRED named like a gold file, or GOLD like predictions). Both: nothing is scored and
the message says which file to give as which (exit 2, wrong usage). One of them: the files are scored and a warning
says the two may be swapped.

Exit status: 0 scored; 1 the submission or the gold cannot be scored (one message on stderr); 2 wrong usage.
"""
import argparse
import csv
import io
import json
import os
import re
import shutil
import sys
import tempfile
import zipfile
from collections import OrderedDict

import resampling
import scoring_private
import scoring_run
import scoring_base
import signature as signatures
from scoring_base import format_score

EPILOG = """examples:
  python3 evaluate.py --gold gold.csv --pred submission.csv
  python3 evaluate.py --gold gold.csv --pred run1.csv --per-item wrong
  python3 evaluate.py --gold gold.csv --pred run1.csv --ci --compare run2.csv --json

GOLD and PRED may each be a file, a folder or a zip. The platform's layout still works:
  python3 evaluate.py INPUT_DIR OUTPUT_DIR   (gold in INPUT_DIR/ref, submission in INPUT_DIR/res)

exit status: 0 scored; 1 the submission or the gold cannot be scored; 2 wrong usage."""


class UsageError(Exception):
    pass


class ScoringFailed(Exception):
    """The submission or the gold cannot be scored: the runtime's one-line message."""


def parser(title):
    p = argparse.ArgumentParser(prog="evaluate.py", description="%s: score a submission against a gold file." % title,
                                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gold", required=True, help="the gold: a file, a folder or a reference zip")
    p.add_argument("--pred", required=True, help="the submission: a file, a folder or a submission zip")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.add_argument("--per-item", nargs="?", const="all", choices=("all", "wrong"),
                   help="list every item (all) or only the items not fully right (wrong)")
    p.add_argument("--ci", action="store_true", help="a bootstrap interval for the ranking score")
    p.add_argument("--compare", metavar="PRED2", help="test PRED against a second run on the same gold")
    p.add_argument("--samples", type=int, default=resampling.DEFAULT_SAMPLES,
                   help="resamples (and randomization rounds); default %(default)s")
    p.add_argument("--seed", type=int, default=resampling.DEFAULT_SEED, help="default %(default)s")
    p.add_argument("--level", type=float, default=resampling.DEFAULT_LEVEL,
                   help="confidence level of the intervals; default %(default)s")
    p.add_argument("--output", metavar="DIR", help="also write scores.txt, scores.json and detailed_results.html")
    return p


def _extract(path, target):
    try:
        with zipfile.ZipFile(path) as archive:
            for member in archive.namelist():
                parts = member.replace("\\", "/").split("/")
                if member.startswith(("/", "\\")) or ".." in parts or ":" in parts[0]:
                    raise UsageError("%s: the zip holds a path outside its folder (%s)" % (path, member))
            archive.extractall(target)
    except zipfile.BadZipFile as exc:
        raise UsageError("%s is not a valid zip file (%s)" % (path, exc))


def stage(path, work, role):
    """The folder the task reads for ``path``: the folder itself, a zip unzipped into ``work``, or a file alone in
    ``work`` (standing for the file the task expects)."""
    if os.path.isdir(path):
        return path
    if not os.path.isfile(path):
        raise UsageError("%s: no such file or folder (--%s)" % (path, role))
    os.makedirs(work)
    if path.lower().endswith(".zip"):
        _extract(path, work)
        return work
    link = os.path.join(work, os.path.basename(path))
    try:
        os.symlink(os.path.abspath(path), link)
    except (OSError, NotImplementedError):  # no symlinks (Windows without the right): a copy reads the same
        shutil.copyfile(path, link)
    scoring_base.STANDS_IN[os.path.abspath(work)] = link
    return work


def as_given(text):
    """``text`` with the names a given file stood for replaced by its own (a task may name the file it expects,
    "spans-pred.txt, line 3: ...", where the participant gave run3.txt). One pass, so a name put in is never
    replaced again; a name that is itself a given file's is left alone (the file given as PRED may be called
    gold.csv, the name the gold stands for: messages naming it by its path mean that file)."""
    given_names = set(os.path.basename(given) for given in scoring_base.STOOD_FOR)
    names = {}
    for given, stood_for in scoring_base.STOOD_FOR.items():
        for name in stood_for:
            if name not in given_names:
                names[name] = os.path.basename(given)
    if not names:
        return text
    pattern = re.compile("|".join(re.escape(name) for name in sorted(names, key=len, reverse=True)))
    return pattern.sub(lambda match: names[match.group(0)], text)


# Words of a file's name (and its folder's) that say what it holds, for swap_signs.
_GOLD_WORDS = frozenset(("gold", "ref", "reference", "references", "truth", "groundtruth"))
_PRED_WORDS = frozenset(("pred", "preds", "prediction", "predictions", "submission", "submissions", "res", "run",
                         "runs", "result", "results", "output", "outputs"))


def _named(path, words):
    """Whether the file's name or its folder's has one of ``words`` (words are runs of letters)."""
    parts = os.path.normpath(path).replace("\\", "/").split("/")[-2:]
    return any(word in words for part in parts for word in re.findall("[a-z]+", part.lower()))


def _csv_columns(path):
    """The column names of a CSV file's header (stripped, lower case, without empty ones), or None."""
    if not (os.path.isfile(path) and path.lower().endswith(".csv")):
        return None
    try:
        with io.open(path, encoding="utf-8-sig", newline="") as handle:
            header = next(csv.reader(handle), None)
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    return set(cell.strip().lower() for cell in header if cell.strip()) if header else None


def swap_signs(gold, pred):
    """Signs that GOLD and PRED are given the wrong way round, as sentences."""
    signs = []
    gold_columns, pred_columns = _csv_columns(gold), _csv_columns(pred)
    if gold_columns and pred_columns and gold_columns < pred_columns:
        extra = sorted(pred_columns - gold_columns)
        signs.append("PRED %s has every column of GOLD %s and more (%s), as a gold file has"
                     % (pred, gold, ", ".join(repr(c) for c in extra[:3]) + (", ..." if extra[3:] else "")))
    gold_like = [_named(path, _GOLD_WORDS) and not _named(path, _PRED_WORDS) for path in (gold, pred)]
    pred_like = [_named(path, _PRED_WORDS) and not _named(path, _GOLD_WORDS) for path in (gold, pred)]
    if gold_like[1] and not gold_like[0]:
        signs.append("PRED %s is named like a gold file" % pred)
    elif pred_like[0] and not pred_like[1]:
        signs.append("GOLD %s is named like predictions" % gold)
    return signs


def _score(score, ref_dir, res_dir):
    result, message = scoring_run.run_score(score, ref_dir, res_dir)
    result, message = scoring_private.split(result, message, ref_dir)
    if result is None:
        raise ScoringFailed(as_given(message))
    result.notes = [as_given(note) for note in result.notes]
    result.warnings = [as_given(warning) for warning in result.warnings]
    return result


def _items(result, what):
    items = scoring_base.result_items(result)
    if items is None:
        raise UsageError("there are no per-item figures for this submission, so %s cannot be done" % what)
    return items


def run(score, title, program, derived, args, work, warnings=()):
    gold = args.gold
    ref_dir = stage(gold, os.path.join(work, "ref"), "gold")
    res_dir = stage(args.pred, os.path.join(work, "res"), "pred")
    gold_hash = scoring_run.GoldHash(gold if os.path.isfile(gold) and not gold.lower().endswith(".zip")
                                     else ref_dir, derived)
    try:
        result = _score(score, ref_dir, res_dir)
    finally:
        gold_hash.join()  # before the caller removes the staged files it may be reading
    sig = gold_hash.signature(result.program or program)
    result.warnings = list(warnings) + result.warnings
    report = OrderedDict([("title", title), ("signature", sig),
                          ("scores", OrderedDict((k, float(v)) for k, v in result.scores)),
                          ("notes", result.notes), ("warnings", result.warnings)])
    settings = []
    if args.ci:
        interval = resampling.bootstrap(_items(result, "--ci"), args.samples, args.seed, args.level)
        report["interval"] = OrderedDict([("key", _items(result, "--ci").key), ("low", interval.low),
                                          ("high", interval.high), ("level", args.level), ("unit", interval.unit),
                                          ("items", interval.items), ("samples", args.samples), ("seed", args.seed)])
        settings.append(interval.settings())
    if args.compare:
        other = _score(score, ref_dir, stage(args.compare, os.path.join(work, "res2"), "compare"))
        comparison = resampling.paired(_items(result, "--compare"), _items(other, "--compare"),
                                       args.samples, args.seed, args.level)
        report["comparison"] = OrderedDict([
            ("key", comparison.key), ("a", args.pred), ("b", args.compare), ("score_a", comparison.score_a),
            ("score_b", comparison.score_b), ("delta", comparison.delta), ("low", comparison.low),
            ("high", comparison.high), ("p_paired_bootstrap", comparison.p_bootstrap),
            ("p_approximate_randomization", comparison.p_randomization), ("level", args.level),
            ("unit", comparison.unit), ("items", comparison.items), ("samples", args.samples), ("seed", args.seed)])
        report["comparison_scores"] = OrderedDict((k, float(v)) for k, v in other.scores)
        settings.append(comparison.settings())
    report["signature_text"] = signatures.text(sig, *settings)
    if args.per_item:
        items = _items(result, "--per-item")
        report["items"] = [OrderedDict([("id", i), ("verdict", v), ("detail", d), ("stats", s)])
                           for i, v, d, s in zip(items.ids, items.verdicts, items.details, items.stats)
                           if args.per_item == "all" or v != "right"]
        report["unit"] = items.unit
    if args.output:
        if not os.path.isdir(args.output):
            os.makedirs(args.output)
        result.html = scoring_run.page_for(title, result, True, sig)
        scoring_run.write_outputs(args.output, result, sig)
    return result, report


def table(report):
    """The report as text: scores (and the interval), notes, comparison, items, signature."""
    lines = []
    interval = report.get("interval")
    width = max([len(k) for k in report["scores"]] + [5])
    for key, value in report["scores"].items():
        line = "%-*s  %s" % (width, key, format_score(value))
        if interval and key == interval["key"]:
            line += "  %s%% interval [%s, %s]" % (_percent(interval["level"]), format_score(interval["low"]),
                                                   format_score(interval["high"]))
        lines.append(line)
    lines.extend(report["notes"])
    comparison = report.get("comparison")
    if comparison:
        lines.append("")
        lines.append("%s of A (%s) minus B (%s), over %d %s:" % (comparison["key"], comparison["a"],
                                                                 comparison["b"], comparison["items"],
                                                                 scoring_base.plural(comparison["unit"])))
        rows = [("A", format_score(comparison["score_a"])), ("B", format_score(comparison["score_b"])),
                ("A - B", "%s  %s%% interval [%s, %s]" % (format_score(comparison["delta"]), _percent(comparison["level"]),
                                                          format_score(comparison["low"]), format_score(comparison["high"]))),
                ("paired bootstrap", "p = %.4f" % comparison["p_paired_bootstrap"]),
                ("approximate randomization", "p = %.4f" % comparison["p_approximate_randomization"])]
        lines.extend("  %-25s  %s" % row for row in rows)
    if "items" in report:
        lines.append("")
        lines.append("\t".join((report["unit"], "verdict", "statistics", "what was wrong")))
        for item in report["items"]:
            stats = " ".join("%s=%s" % (name, _shortformat_score(value)) for name, value in sorted(item["stats"].items()))
            lines.append("\t".join((item["id"], item["verdict"], stats, item["detail"])))
    lines.append("")
    lines.append("signature: %s" % report["signature_text"])
    return "\n".join(lines) + "\n"


def _percent(level):
    return ("%.4f" % (100 * level)).rstrip("0").rstrip(".")


def _shortformat_score(value):
    return "%d" % value if float(value).is_integer() else ("%.6f" % value).rstrip("0")


def main(score, title, program, derived, argv):
    try:
        args = parser(title).parse_args(argv)
    except SystemExit as exc:  # argparse has printed the help or the usage error
        return 0 if not exc.code else 2
    problem = resampling.check_settings(args.samples, args.seed, args.level)
    if problem:
        sys.stderr.write("evaluate.py: %s\n" % problem)
        return 2
    warnings = []
    if os.path.exists(args.gold) and os.path.exists(args.pred):
        signs = swap_signs(args.gold, args.pred)
        swapped = "give %s as the gold and %s as the submission" % (args.pred, args.gold)
        if len(signs) > 1:
            sys.stderr.write("evaluate.py: GOLD and PRED look swapped: %s. Nothing was scored: %s\n"
                             % ("; ".join(signs), swapped))
            return 2
        if signs:
            warnings.append("GOLD and PRED may be swapped: %s; if so, %s" % (signs[0], swapped))
    work = tempfile.mkdtemp(prefix="score-files-")
    try:
        result, report = run(score, title, program, derived, args, work, warnings)
    except (UsageError, ValueError) as exc:  # ValueError: resampling with no item
        sys.stderr.write("evaluate.py: %s\n" % exc)
        return 2
    except scoring_base.ScoringProgramError as exc:  # the per-item figures the task gave as a function
        sys.stderr.write("%s\n" % (scoring_run.PROGRAM_ERROR % exc))
        return 1
    except ScoringFailed as exc:
        sys.stderr.write("%s\n" % exc)
        for warning in warnings:
            sys.stderr.write("Warning: %s\n" % warning)
        return 1
    finally:
        scoring_base.STANDS_IN.clear()
        scoring_base.STOOD_FOR.clear()
        shutil.rmtree(work, ignore_errors=True)
    out = json.dumps(report, indent=2, ensure_ascii=False) + "\n" if args.json else table(report)
    # UTF-8 whatever the locale (the platform images run with LANG unset, where Python 3.6 would write ASCII).
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is not None:
        buffer.write(out.encode("utf-8"))
        buffer.flush()
    else:
        sys.stdout.write(out)
        sys.stdout.flush()
    scoring_run.print_warnings(result)
    return 0
