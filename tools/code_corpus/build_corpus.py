#!/usr/bin/env python3
"""Rebuild a test corpus of real Codabench code-submission bundles (an ingestion program, input data) and their
example submissions from public repository snapshots. Nothing of them is committed here: only manifest.json
(repository, commit, paths) and this script.

    python3 tools/code_corpus/build_corpus.py --mirror /work/.mirror --out /tmp/code-corpus

For each manifest entry, the snapshot is read with git from the bare mirror <mirror>/<owner>+<name>/repo at the
entry's commit (tools/migrate_corpus/build_corpus.py's Snapshot) and written as OUT/<name>.zip: the bundle folder
zipped with competition.yaml at the root (minus "exclude" patterns and the usual clutter), and
OUT/<name>--<submission>.zip for each submission: a committed zip byte for byte, or a folder ("dir/") zipped.
One line per bundle; an entry whose mirror or commit is absent is skipped with the reason (exit status 0).
"""
import argparse
import fnmatch
import json
import os
import subprocess
import sys

import importlib.util

HERE = os.path.dirname(os.path.abspath(__file__))
# tools/migrate_corpus/build_corpus.py: the mirror reading and deterministic zips (loaded under its own name)
_SPEC = importlib.util.spec_from_file_location("migrate_corpus_build", os.path.join(HERE, "..", "migrate_corpus",
                                                                                   "build_corpus.py"))
_MIGRATE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_MIGRATE)
DEFAULT_EXCLUDE, Snapshot, git_dir_for = _MIGRATE.DEFAULT_EXCLUDE, _MIGRATE.Snapshot, _MIGRATE.git_dir_for
make_zip, spec_members = _MIGRATE.make_zip, _MIGRATE.spec_members

EXCLUDE = DEFAULT_EXCLUDE + ["__MACOSX/*", "*/.DS_Store", "*/__pycache__/*"]


def build_entry(snap, entry):
    """{file name in OUT: zip bytes} of one manifest entry."""
    folder = entry["bundle"].rstrip("/")
    members = {}
    for path, member in spec_members(snap, entry["bundle"]).items():
        if any(fnmatch.fnmatch(path, p) or fnmatch.fnmatch(os.path.basename(path), p)
               for p in EXCLUDE + entry.get("exclude", [])):
            continue
        members[path] = member
    assert "competition.yaml" in members, "%s has no competition.yaml" % folder
    out = {"%s.zip" % entry["name"]: make_zip(members)}
    for name, source in sorted(entry.get("submissions", {}).items()):
        if source.endswith("/"):
            data = make_zip(spec_members(snap, source))
        else:
            data = snap.read(source)
        out["%s--%s.zip" % (entry["name"], name)] = data
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", default="/work/.mirror")
    parser.add_argument("--out", required=True)
    parser.add_argument("--manifest", default=os.path.join(HERE, "manifest.json"))
    args = parser.parse_args(argv)
    with open(args.manifest) as handle:
        entries = json.load(handle)
    os.makedirs(args.out, exist_ok=True)
    for entry in entries:
        git_dir = git_dir_for(args.mirror, entry["repo"])
        if git_dir is None:
            print("%s: skipped, no mirror of %s under %s" % (entry["name"], entry["repo"], args.mirror))
            continue
        try:
            snap = Snapshot(git_dir, entry["commit"])
        except subprocess.CalledProcessError:
            print("%s: skipped, the mirror of %s lacks commit %s" % (entry["name"], entry["repo"], entry["commit"]))
            continue
        for name, data in build_entry(snap, entry).items():
            with open(os.path.join(args.out, name), "wb") as handle:
                handle.write(data)
        print("%s: %s.zip and %d submission(s)" % (entry["name"], entry["name"], len(entry.get("submissions", {}))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
