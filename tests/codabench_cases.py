"""Hand-written bundles, one per way the validator and Codabench's import used to disagree, with Codabench's verdict.

Each verdict and stored date below was read off Codabench's own import (codalab/codabench at c7dbc756b07b, run with
../shared/tools/codabench-import) on exactly these bundles; tests/test_codabench_verdicts.py checks that
``validate`` agrees. The file is also importable outside pytest, to rerun that import: ``write_all(folder)``.
"""
import io
import struct
import zipfile
import zlib

PROGRAM = {"metadata": "command: python3 $program/evaluate.py $input $output\n",
           "evaluate.py": "import json, os, sys\nopen(os.path.join(sys.argv[2], 'scores.json'), 'w')"
                          ".write(json.dumps({'accuracy': 1.0}))\n"}

V2 = """\
version: 2
title: Hand-written
image: logo.png
terms: terms.html
registration_auto_approve: true
pages:
  - title: Overview
    file: overview.html
tasks:
  - index: 0
    name: Main
    scoring_program: scoring_program.zip
    reference_data: reference_data.zip
phases:
  - index: 0
    name: Development
    start: "2026-01-05 00:00:00"
    end: "2026-02-01 11:59:59"
    tasks: [0]
  - index: 1
    name: Test
    start: "2026-02-01 12:00:00"
    tasks: [0]
leaderboards:
  - title: Results
    key: main
    columns:
      - title: Accuracy
        key: accuracy
        index: 0
"""

V1 = """\
title: Hand-written v1.5
image: logo.png
has_registration: false
competition_docker_image: codalab/codalab-legacy:py37
html:
  overview: overview.html
  evaluation: evaluation.html
  terms: terms.html
  data: data.html
phases:
  1:
    phasenumber: 1
    label: Development
    max_submissions_per_day: 5
    execution_time_limit: 600
    start_date: "2026-01-05 00:00:00"
    scoring_program: scoring_program.zip
    reference_data: reference_data.zip
  2:
    phasenumber: 2
    label: Test
    max_submissions_per_day: 5
    execution_time_limit: 600
    start_date: "2026-02-01 12:00:00"
    scoring_program: scoring_program.zip
    reference_data: reference_data.zip
leaderboard:
  leaderboards:
    RESULTS: &RESULTS
      label: Results
      rank: 1
  columns:
    accuracy:
      leaderboard: *RESULTS
      label: Accuracy
      rank: 1
"""


def _zip(entries):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            archive.writestr(zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0)), data)
    return buffer.getvalue()


def tiny_png():
    """A real 1x1 PNG: Codabench opens the logo as an image and refuses the bundle when it cannot."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


def _files(pages=("overview", "evaluation", "terms", "data"), empty=(), logo=None):
    files = [("logo.png", tiny_png() if logo is None else logo)]
    files += [("%s.html" % p, b"" if p in empty else ("<p>%s</p>" % p).encode()) for p in pages]
    files += [("scoring_program.zip", _zip(sorted((k, v.encode()) for k, v in PROGRAM.items()))),
              ("reference_data.zip", _zip([("gold.txt", b"a\n")]))]
    return files


def _replace(text, old, new):
    assert old in text, old
    return text.replace(old, new)


# (id, version, competition.yaml text, extra entries before it or None, Codabench's verdict: None when it imports,
#  else a fragment of its error; for imports, {phase index: (stored start, stored end)} where dates matter)
CASES = [
    ("v2-clean", "2", V2, None, None,
     {0: ("2026-01-05 00:00:00", "2026-02-01 11:59:59"), 1: ("2026-02-01 12:00:00", None)}),
    # Codabench reads only the root competition.yaml; the first '.yaml' entry here is the program's metadata.yaml
    ("metadata.yaml entry first", "2", V2, [("scoring_program/metadata.yaml", b"command: python3 x.py\n")], None, {}),
    # dateutil reads '1-5-2026' and '12-31-2026' month first
    ("month-first dates", "2", _replace(_replace(V2, '"2026-01-05 00:00:00"', "'1-5-2026'"),
                                        '"2026-02-01 11:59:59"', "'12-31-2026'").replace(
        '"2026-02-01 12:00:00"', "'1-1-2027'"), None, None,
     {0: ("2026-01-05 00:00:00", "2026-12-31 00:00:00"), 1: ("2027-01-01 00:00:00", None)}),
    ("phase without index", "2", _replace(V2, "  - index: 1\n    name: Test", "  - name: Test"), None, None, {}),
    # a computation key, even null, needs computation_indexes beside it (ColumnSerializer.validate)
    ("computation: null", "2", _replace(V2, "        index: 0\n", "        index: 0\n        computation: null\n"),
     None, "Column with computation must have at least 1 column", {}),
    ("computation and indexes null", "2", _replace(V2, "        index: 0\n", "        index: 0\n        computation: "
                                                   "null\n        computation_indexes: null\n"), None, None, {}),
    ("logo that is not an image", "2", V2, "logo:not a picture", "Please upload a valid image", {}),
    # an unquoted timestamp keeps only its day: the Development end moves back to midnight
    ("unquoted timestamps", "2", _replace(_replace(V2, '"2026-02-01 11:59:59"', "2026-02-01 11:59:59"),
                                          '"2026-01-05 00:00:00"', "2026-01-05 08:00:00"), None, None,
     {0: ("2026-01-05 00:00:00", "2026-02-01 00:00:00")}),
    # ... and when the truncated end equals the next start, the import is refused
    ("truncated dates collide", "2", _replace(_replace(V2, '"2026-02-01 11:59:59"', "2026-02-01 11:59:59"),
                                              '"2026-02-01 12:00:00"', '"2026-02-01 00:00:00"'), None,
     "Phases dates conflict", {}),
    ("end before start", "2", _replace(V2, '    start: "2026-02-01 12:00:00"\n    tasks',
                                       '    start: "2026-02-01 12:00:00"\n    end: "2026-01-20 00:00:00"\n    tasks'),
     None, None, {1: ("2026-02-01 12:00:00", "2026-01-20 00:00:00")}),
    ("phase without end before another", "2", _replace(V2, '    end: "2026-02-01 11:59:59"\n', ""), None,
     "must have an end time", {}),
    ("auto-migration into the first phase", "2", _replace(V2, "    tasks: [0]\n  - index: 1",
                                                          "    tasks: [0]\n    auto_migrate_to_this_phase: true\n"
                                                          "  - index: 1"), None, "auto migrate to the first phase", {}),
    # unknown keys are ignored without a word: the setting is lost
    ("typos in keys", "2", _replace(_replace(V2, "registration_auto_approve", "registration_auto_aprove"),
                                    "    tasks: [0]\n  - index: 1", "    tasks: [0]\n    max_submission_per_day: 2\n"
                                                                   "  - index: 1"), None, None, {}),
    ("v1-clean", "1", V1, None, None,
     {0: ("2026-01-05 00:00:00", "2026-01-31 12:00:00"), 1: ("2026-02-01 12:00:00", None)}),
    ("v1 without html", "1", V1.split("html:")[0] + "phases:" + V1.split("phases:")[1], None,
     "HTML pages could not be found", {}),
    ("v1 without leaderboard", "1", V1.split("leaderboard:")[0], None, "Could not find leaderboard", {}),
    ("v1 empty page", "1", V1, "empty:data", None, {}),
    # phases less than a day apart: the v1 import ends the first one day before the second starts, so before its
    # own start; it is accepted and the phase never opens
    ("v1 phases less than a day apart", "1", _replace(V1, '"2026-02-01 12:00:00"', '"2026-01-05 12:00:00"'), None,
     None, {0: ("2026-01-05 00:00:00", "2026-01-04 12:00:00")}),
    ("v1 unquoted timestamp", "1", _replace(V1, '"2026-02-01 12:00:00"', "2026-02-01 12:00:00"), None, None,
     {1: ("2026-02-01 00:00:00", None)}),
]


def bundle_bytes(case):
    _, version, text, extra, _, _ = case
    empty, logo = (), None
    if isinstance(extra, str) and extra.startswith("empty:"):
        empty, extra = (extra.split(":", 1)[1],), None
    if isinstance(extra, str) and extra.startswith("logo:"):
        logo, extra = extra.split(":", 1)[1].encode(), None
    pages = ("overview", "terms") if version == "2" else ("overview", "evaluation", "terms", "data")
    entries = list(extra or []) + [("competition.yaml", text.encode())] + _files(pages, empty, logo)
    return _zip(entries)


def write_all(folder):
    """Write every case as <folder>/<n>.zip; returns [(path, case)]."""
    import os
    written = []
    for n, case in enumerate(CASES):
        path = os.path.join(folder, "%02d.zip" % n)
        with open(path, "wb") as handle:
            handle.write(bundle_bytes(case))
        written.append((path, case))
    return written
