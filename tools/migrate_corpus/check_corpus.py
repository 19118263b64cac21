#!/usr/bin/env python3
"""Migrate every bundle of the corpus and hold the result against Codabench's own import.

    python3 tools/migrate_corpus/check_corpus.py CORPUS_DIR OUT_DIR [--importer ../shared/tools/codabench-import]
                                                 [--python27 PATH]

Runs `build_bundle.py migrate CORPUS_DIR/*.zip --out OUT_DIR`, then Codabench's import (run.py of the importer
folder) on each original and each migrated bundle, and prints one line per bundle: migrate's exit status, whether
Codabench imports the original and the migration, whether `validate` predicted both verdicts, and whether a
leaderboard has two columns of one title.

Under it, the leaderboard's key order. Until its commit 3c3cc0f0a (October 2014) CodaLab loaded competition.yaml
with plain `yaml.load` on Python 2.7, so it created the columns (and without selection_default ranked by the first
one) in the order of a Python 2.7 dict, not of the file. A real Python 2.7 with PyYAML (3.10 is CodaLab's pin;
--python27, else python2.7 on the PATH or under ~/.pyenv) loads each original that way and prints the order it
iterates leaderboard.columns and leaderboard.column_groups; codalab_bundles.python27_order.python27_key_order must
give the same order from the keys in file order (what Python 3's yaml.safe_load gives), or the bundle counts as a
key-order mismatch. Then the first column in file order and in Python 2.7 order, whether any column has
selection_default, the earliest phase start, and the `leaderboard` object of migrate's report (which column the
migration ranks by), checked: CodaLab's ranking column is stated only where both orders agree or the bundle's
era is told, in one report line, and the migration ranks by a column one of the orders gives (or --rank-by's, or
for a dump the column shown first); anything else is an unfounded ranking claim. Without a Python 2.7 the key
order is skipped with a note.

It ends with the counts the issue asks for, and exits 1 when a bundle that imported no longer does, migrate exits
2, two columns share a title, a key order differs, or a ranking claim is unfounded. A development check, not a test: the importer, the corpus
and Python 2.7 live outside this repository.
"""
import argparse
import csv
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
from codalab_bundles.platforms.python27_order import python27_key_order  # noqa: E402

# Run by Python 2.7 on the original bundles: the keys of leaderboard.columns and .column_groups in the order a plain
# yaml.load's dicts iterate them (CodaLab's unpacker before 3c3cc0f0a), one JSON line per bundle. The yaml is found
# as migrate finds it: competition.yaml, else the first name holding '.yaml' outside __MACOSX/.
PY27_KEY_ORDER = r"""
import json, sys, zipfile, yaml
def plain(key):
    if isinstance(key, (str, unicode, int, long, bool)):
        return key
    return {"unhashable here": repr(key)}
for path in sys.argv[1:]:
    out = {"bundle": path}
    try:
        archive = zipfile.ZipFile(path)
        yamls = [n for n in archive.namelist() if ".yaml" in n and not n.startswith("__MACOSX/")]
        name = "competition.yaml" if "competition.yaml" in yamls else yamls[0]
        spec = yaml.load(archive.read(name))
        board = spec.get("leaderboard") if isinstance(spec, dict) else None
        for part in ("columns", "column_groups"):
            value = board.get(part) if isinstance(board, dict) else None
            out[part] = [plain(k) for k in value] if isinstance(value, dict) else None
    except Exception as exc:
        out["error"] = "%s: %s" % (type(exc).__name__, exc)
    print(json.dumps(out))
"""


class FileOrderLoader(yaml.SafeLoader):
    """yaml.safe_load, which keeps the file's key order, also reading a dump's !!python/str and /unicode tags."""


for _tag in ("str", "unicode"):
    FileOrderLoader.add_constructor("tag:yaml.org,2002:python/" + _tag, yaml.SafeLoader.construct_yaml_str)


def by_bundle(stdout):
    """{basename without .zip: object} of the JSON lines a script printed, one per bundle."""
    found = {}
    for line in stdout.splitlines():
        if line.startswith("{"):
            result = json.loads(line)
            found[os.path.basename(result["bundle"])[:-4]] = result
    return found


def imported(importer, paths):
    """{basename without .zip: the importer's JSON object} for the zips at ``paths``."""
    return by_bundle(subprocess.run([sys.executable, os.path.join(importer, "run.py")] + paths, capture_output=True,
                                    text=True).stdout)


def duplicate_titles(result):
    for board in (result.get("competition") or {}).get("leaderboards", []):
        titles = [c["title"].lower() for c in board["columns"]]
        if len(set(titles)) != len(titles):
            return True
    return False


def find_python27(given):
    """A Python 2.7 with PyYAML: ``given``, else python2.7 on the PATH, else the newest ~/.pyenv 2.7; or None."""
    candidates = [given] if given else [shutil.which("python2.7")] + sorted(
        glob.glob(os.path.expanduser("~/.pyenv/versions/2.7*/bin/python")), reverse=True)
    for candidate in filter(None, candidates):
        try:
            probe = subprocess.run([candidate, "-E", "-c", "import sys, yaml; assert sys.version_info[:2] == (2, 7)"],
                                   capture_output=True)
        except OSError:
            continue
        if probe.returncode == 0:
            return candidate
    return None


def python27_orders(python27, paths):
    """{basename without .zip: the Python 2.7 script's object} for the zips at ``paths``. -E: no PYTHON* variable
    (PYTHONHASHSEED would randomise the hashes, PYTHONPATH could bring Python 3 modules)."""
    return by_bundle(subprocess.run([python27, "-E", "-c", PY27_KEY_ORDER] + paths, capture_output=True,
                                    text=True).stdout)


def file_spec(path):
    """The original's competition.yaml as Python 3's safe_load reads it (keys in file order); None if unreadable."""
    try:
        with zipfile.ZipFile(path) as archive:
            yamls = [n for n in archive.namelist() if ".yaml" in n and not n.startswith("__MACOSX/")]
            name = "competition.yaml" if "competition.yaml" in yamls else yamls[0]
            spec = yaml.load(archive.read(name).decode("utf-8"), Loader=FileOrderLoader)
    except (zipfile.BadZipFile, IndexError, UnicodeDecodeError, yaml.YAMLError):
        return None
    return spec if isinstance(spec, dict) else None


def board_part(spec, part):
    board = (spec or {}).get("leaderboard")
    value = board.get(part) if isinstance(board, dict) else None
    return value if isinstance(value, dict) else None


def earliest_start(spec):
    phases = (spec or {}).get("phases")
    phases = list(phases.values()) if isinstance(phases, dict) else phases if isinstance(phases, list) else []
    days = [str(p.get("start_date") or p.get("start"))[:10] for p in phases if isinstance(p, dict)]
    days = sorted(d for d in days if re.match(r"\d{4}-\d\d-\d\d$", d))
    return days[0] if days else None


def key_order(spec, py27, report, counts):
    """The key-order lines of one bundle (``py27``: the Python 2.7 script's object, {} when it printed none for
    this bundle, None without a Python 2.7); counts mismatches and bundles whose first column differs."""
    lines, columns = [], board_part(spec, "columns") or {}
    for part in ("columns", "column_groups"):
        in_file = board_part(spec, part)
        if in_file is None or py27 is None:
            continue
        actual = py27.get(part)
        if py27.get("error") or actual is None:
            lines.append("%s: KEY-ORDER MISMATCH, Python 2.7 did not read them (%s)" % (
                part, py27.get("error") or ("not a mapping" if py27 else "no output")))
            counts["key-order mismatches"] += 1
            continue
        predicted = python27_key_order(list(in_file))
        if predicted is None:
            verdict = "python27_key_order cannot order these keys"
        elif predicted == actual:
            verdict = "= python27_key_order"
        else:
            verdict = "KEY-ORDER MISMATCH: python27_key_order gives %s" % json.dumps(predicted, ensure_ascii=False)
            counts["key-order mismatches"] += 1
        lines.append("%s in Python 2.7 order: %s %s" % (part, json.dumps(actual, ensure_ascii=False), verdict))
    first_file = next(iter(columns), None)
    first_py27 = (py27.get("columns") or [None])[0] if py27 else None
    if py27 and first_file != first_py27:
        counts["first column differs"] += 1
    has_default = any(isinstance(c, dict) and "selection_default" in c for c in columns.values())
    lines.append("first column: %s in the file, %s in Python 2.7 order; selection_default: %s; earliest phase "
                 "start: %s" % (first_file, first_py27 if py27 else "-", "yes" if has_default else "no",
                                earliest_start(spec)))
    lines.append("migrate's leaderboard: %s" % (json.dumps(report.get("leaderboard"), sort_keys=True,
                                                           ensure_ascii=False) if report else "no report"))
    problem = ranking_claim_problem(report) if report else None
    if problem:
        lines.append("RANKING CLAIM: %s" % problem)
        counts["ranking claims unfounded"] += 1
    return lines


def ranking_claim_problem(report):
    """What is wrong with the report's account of the ranking column, or None: it must state CodaLab's column only
    where both orders agree or the era is told, say it in its own line, and rank by a column one of them gives
    (or the organizer's choice, or for a dump the column shown first)."""
    ranking = (report.get("leaderboard") or {}).get("codalab_ranking")
    if not ranking:
        return None if not (report.get("leaderboard") or {}).get("columns") else "no account of the ranking column"
    known, era = ranking["codalab_ranked_by"], ranking["era"]
    picks = {"file": ranking["file_order"], "python27": ranking["python27_order"]}
    if known is not None:
        agreed = picks["python27"] in (None, picks["file"])
        if not agreed and era not in picks:
            return "states %s as CodaLab's ranking though the orders differ and the era is not told" % known
        if known != (picks["file"] if agreed else picks[era]):
            return "states %s, which the %s order does not give" % (known, era)
    elif era not in (None, "dump"):
        return "the era %s is told but no ranking column is stated" % era
    said = [i for i in report.get("changes", []) + report.get("notes", [])
            if i["where"] == "leaderboard" and ("CodaLab ranked by" in i["message"] or "CodaLab dump" in i["message"])]
    if len(said) != 1:
        return "%d report lines state the ranking (one expected)" % len(said)
    if ranking["chosen"] not in picks.values() and era != "dump" and "--rank-by" not in ranking["why"]:
        return "ranks by %s, which neither order gives" % ranking["chosen"]
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("out")
    parser.add_argument("--importer", default=os.path.join(ROOT, "..", "shared", "tools", "codabench-import"))
    parser.add_argument("--python27", help="a Python 2.7 with PyYAML (default: python2.7 on the PATH, or ~/.pyenv)")
    args = parser.parse_args()
    originals = sorted(glob.glob(os.path.join(args.corpus, "*.zip")))
    subprocess.run([sys.executable, os.path.join(ROOT, "build_bundle.py"), "migrate"] + originals +
                   ["--out", args.out], stdout=subprocess.DEVNULL)
    rows = dict((os.path.basename(r["bundle"])[:-4], r) for r in csv.DictReader(open(os.path.join(args.out,
                                                                                                 "summary.csv"))))
    before = imported(args.importer, originals)
    after = imported(args.importer, sorted(glob.glob(os.path.join(args.out, "*-codabench.zip"))))
    python27 = find_python27(args.python27)
    orders = python27_orders(python27, originals) if python27 else {}
    counts = {"regressions": 0, "exit 2": 0, "duplicate titles": 0, "mispredicted": 0, "imports before": 0,
              "imports after": 0, "key-order mismatches": 0, "first column differs": 0,
              "ranking claims unfounded": 0}
    for name in sorted(rows):
        row, old, new = rows[name], before.get(name, {}), after.get(name + "-codabench", {})
        flags = []
        if old.get("ok") and not new.get("ok"):
            flags.append("REGRESSION")
            counts["regressions"] += 1
        if row["exit_status"] == "2":
            flags.append("NOT MIGRATED")
            counts["exit 2"] += 1
        if duplicate_titles(new):
            flags.append("DUPLICATE TITLES")
            counts["duplicate titles"] += 1
        if (row["imports_before"] == "yes") != bool(old.get("ok")) or \
                (new and (row["imports_after"] == "yes") != bool(new.get("ok"))):
            flags.append("VALIDATE DISAGREES")
            counts["mispredicted"] += 1
        counts["imports before"] += bool(old.get("ok"))
        counts["imports after"] += bool(new.get("ok"))
        print("%-40s exit %s  imports %-3s -> %-3s %s %s" % (
            name, row["exit_status"], "yes" if old.get("ok") else "no", "yes" if new.get("ok") else "no",
            " ".join(flags), (new.get("error") or "").strip()[:80]))
        stem = row["output"][:-len(".zip")] if row["output"] != "-" else os.path.join(args.out, name + "-codabench")
        report_path = stem + ".report.json"
        report = json.load(open(report_path, encoding="utf-8")) if os.path.exists(report_path) else None
        for line in key_order(file_spec(os.path.join(args.corpus, name + ".zip")),
                              orders.get(name, {}) if python27 else None, report, counts):
            print("    " + line)
    if not python27:
        print("key order not checked: no Python 2.7 with PyYAML found (give --python27)")
        del counts["key-order mismatches"], counts["first column differs"]
    print("%d bundles; %s" % (len(rows), ", ".join("%s: %d" % kv for kv in counts.items())))
    failed = ("regressions", "exit 2", "duplicate titles", "key-order mismatches", "ranking claims unfounded")
    return 1 if any(counts.get(k) for k in failed) else 0


if __name__ == "__main__":
    sys.exit(main())
