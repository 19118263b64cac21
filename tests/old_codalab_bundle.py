"""An old-style CodaLab v1.5 bundle, as many past competitions were uploaded: no has_registration, no docker image,
month-first and offset dates, phases without ends or limits, a computed average-rank column, two leaderboards,
column groups, a blind phase, and a scoring program that writes ``key:value`` scores and output/metadata (valid in
Python 2 and 3) beside a Python 2-only helper file."""
from codabench_cases import tiny_png
from codalab_bundles.zips import pack

COMPETITION = """\
title: Old SemEval-style task
description: Answer each question with one letter.
image: logo.png
force_submission_to_leaderboard: true
admin_names: alice,bob
html:
  overview: overview.html
  evaluation: evaluation.html
  terms: terms.html
  data: data.html
  faq: faq.html
phases:
  1:
    phasenumber: 1
    label: Practice
    start_date: 8-7-2019
    color: green
    scoring_program: program.zip
    reference_data: reference.zip
    starting_kit: starting_kit.zip
  2:
    phasenumber: 2
    label: Evaluation
    start_date: 2019-09-01 12:00:00+02:00
    max_submissions_per_day: 5
    leaderboard_management_mode: hide_results
    scoring_program: program.zip
    reference_data: reference.zip
    starting_kit: starting_kit.zip
  3:
    phasenumber: 3
    label: Post-Evaluation
    start_date: 2019-09-15
    auto_migration: true
    scoring_program: program.zip
    reference_data: reference.zip
leaderboard:
  leaderboards:
    RESULTS: &RESULTS
      label: Results
      rank: 1
    EXTRA: &EXTRA
      label: Extra
      rank: 2
  column_groups:
    A: &A
      label: Subtask A
      rank: 1
  columns:
    avg:
      leaderboard: *RESULTS
      label: Avg rank
      rank: 1
      sort: asc
      selection_default: 1
      computed:
        operation: Avg
        fields: acc, f1
    acc:
      leaderboard: *RESULTS
      column_group: *A
      label: Accuracy
      rank: 2
      numeric_format: 4
    f1:
      leaderboard: *RESULTS
      column_group: *A
      label: F1
      rank: 3
      numeric_format: 3
    seconds:
      leaderboard: *EXTRA
      label: Seconds
      rank: 4
      sort: asc
"""

# Runs under Python 2 and 3; writes scores the v1.5 way (key:value, no space) and its own output/metadata.
EVALUATE = """\
import os
import sys

input_dir, output_dir = sys.argv[1], sys.argv[2]
gold = open(os.path.join(input_dir, 'ref', 'gold.txt')).read().split()
answers = open(os.path.join(input_dir, 'res', 'answers.txt')).read().split()
hits = sum(1 for a, g in zip(answers, gold) if a == g)
out = open(os.path.join(output_dir, 'scores.txt'), 'w')
out.write('acc:%.6f\\n' % (float(hits) / len(gold)))
out.write('f1:0.5\\n')
out.write('seconds:1.25\\n')
out.close()
open(os.path.join(output_dir, 'metadata'), 'w').write('status: done\\n')
"""

PY2_ONLY = """\
def report(name):
    print "scored", name
"""

PROGRAM = {"metadata": "command: python3 $program/evaluate.py $input $output\n", "evaluate.py": EVALUATE,
           "py2_report.py": PY2_ONLY}


def _zip(files):
    return pack.zip_entries(sorted((name, data if isinstance(data, bytes) else data.encode("utf-8"))
                                   for name, data in files.items()))


def old_bundle_bytes(competition=COMPETITION, program=None):
    sample = _zip({"answers.txt": "a a a\n"})
    files = [("competition.yaml", competition), ("logo.png", tiny_png())]
    files += [("%s.html" % page, "<p>%s</p>" % page) for page in ("overview", "evaluation", "terms", "data", "faq")]
    files += [("program.zip", _zip(program or PROGRAM)), ("reference.zip", _zip({"gold.txt": "a b a\n"})),
              ("starting_kit.zip", _zip({"README.txt": "Zip answers.txt.\n", "sample_submission.zip": sample}))]
    return pack.zip_entries([(n, d if isinstance(d, bytes) else d.encode("utf-8")) for n, d in files])


def write_old_bundle(path, **kwargs):
    path.write_bytes(old_bundle_bytes(**kwargs))
    return path
