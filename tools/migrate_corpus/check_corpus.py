#!/usr/bin/env python3
"""Migrate every bundle of the corpus and hold the result against Codabench's own import.

    python3 tools/migrate_corpus/check_corpus.py CORPUS_DIR OUT_DIR [--importer ../shared/tools/codabench-import]

Runs `build_bundle.py migrate CORPUS_DIR/*.zip --out OUT_DIR`, then Codabench's import (run.py of the importer
folder) on each original and each migrated bundle, and prints one line per bundle: migrate's exit status, whether
Codabench imports the original and the migration, whether `validate` predicted both verdicts, and whether a
leaderboard has two columns of one title. It ends with the counts the issue asks for, and exits 1 when a bundle
that imported no longer does, migrate exits 2, or two columns share a title. A development check, not a test: the
importer and the corpus live outside this repository.
"""
import argparse
import csv
import glob
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def imported(importer, paths):
    """{basename without .zip: the importer's JSON object} for the zips at ``paths``."""
    proc = subprocess.run([sys.executable, os.path.join(importer, "run.py")] + paths, capture_output=True,
                          text=True)
    found = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            result = json.loads(line)
            found[os.path.basename(result["bundle"])[:-4]] = result
    return found


def duplicate_titles(result):
    for board in (result.get("competition") or {}).get("leaderboards", []):
        titles = [c["title"].lower() for c in board["columns"]]
        if len(set(titles)) != len(titles):
            return True
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("out")
    parser.add_argument("--importer", default=os.path.join(ROOT, "..", "shared", "tools", "codabench-import"))
    args = parser.parse_args()
    originals = sorted(glob.glob(os.path.join(args.corpus, "*.zip")))
    subprocess.run([sys.executable, os.path.join(ROOT, "build_bundle.py"), "migrate"] + originals +
                   ["--out", args.out], stdout=subprocess.DEVNULL)
    rows = dict((os.path.basename(r["bundle"])[:-4], r) for r in csv.DictReader(open(os.path.join(args.out,
                                                                                                 "summary.csv"))))
    before = imported(args.importer, originals)
    after = imported(args.importer, sorted(glob.glob(os.path.join(args.out, "*-codabench.zip"))))
    counts = {"regressions": 0, "exit 2": 0, "duplicate titles": 0, "mispredicted": 0, "imports before": 0,
              "imports after": 0}
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
    print("%d bundles; %s" % (len(rows), ", ".join("%s: %d" % kv for kv in counts.items())))
    return 1 if counts["regressions"] or counts["exit 2"] or counts["duplicate titles"] else 0


if __name__ == "__main__":
    sys.exit(main())
