"""The example of public and private test scores and of a blind test phase (issue 40): SemEval-2021 Toxic Spans
re-hosted with a public/private split of its test set, written as an organizer's competition folder (the seeded
task's program, pages and gold, with its own task.yaml).

Shapes:
- "private": Practice (trial), Evaluation (test: the ranking score over the public posts only), Final (test,
  private_scores and auto_migration: the migrated submissions re-scored with the private posts' figure).
- "blind": the same, with Evaluation blind (every score withheld until Final re-scores the submissions).
The private posts are given by a file of ids (every post whose number is 1 or 3 modulo 5: 48 of the sample's 120),
or (``by_column``) by a column ``subset`` of the gold table.
"""
import csv
import datetime
import io
import shutil

from conftest import ROOT

TASK = "toxic-spans"


def private_posts(count):
    return [i for i in range(count) if i % 5 in (1, 3)]


def _when(value):
    return value.strftime("%Y-%m-%d %H:%M:%S")


def task_yaml(shape="private", by_column=False, dates=None, reveal=False, rule="Force_Last"):
    """task.yaml of the example. ``dates``: (evaluation start, final start), datetimes (default: 2021's)."""
    evaluation, final = dates or (datetime.datetime(2021, 1, 10), datetime.datetime(2021, 1, 31))
    practice = evaluation - datetime.timedelta(days=30)
    marked = ("    column: subset\n    value: private\n" if by_column else "    ids: private_ids.txt\n")
    return """title: "Toxic Spans Detection: public and private test scores"
description: "SemEval-2021 Task 5 re-hosted with a public and a private part of its test set."
docker_image: codalab/codalab-legacy:py37
has_registration: false
enable_detailed_results: true
end_date: null
%(reveal)spages:
  overview: overview.html.j2
  evaluation: evaluation.html
  data: data.html
  terms: terms.html.j2
gold_public:
  trial: true
private:
  test:
%(marked)sphases:
  - label: Practice
    description: "Trial data: try the submission format and the scoring."
    start: %(practice)s
    split: trial
    max_submissions: 500
    max_submissions_per_day: 20
  - label: Evaluation
    description: "%(evaluation_text)s"
    start: %(evaluation)s
    split: test
    max_submissions: 10
    max_submissions_per_day: 10
%(blind)s  - label: Final
    description: "The submissions on the leaderboard at the deadline, re-scored with the private posts."
    start: %(final)s
    split: test
    max_submissions: 100
    max_submissions_per_day: 10
    private_scores: true
    auto_migration: true
leaderboard:
  label: Results
  submission_rule: %(rule)s
  columns:
    - key: spans_F1
      label: F1
      numeric_format: 4
    - key: private_spans_F1
      label: F1 (private)
      numeric_format: 4
    - key: spans_precision
      label: Precision
      numeric_format: 4
    - key: spans_recall
      label: Recall
      numeric_format: 4
""" % {"reveal": "reveal: true\n" if reveal else "", "marked": marked, "practice": _when(practice),
       "evaluation": _when(evaluation), "final": _when(final), "rule": rule,
       "evaluation_text": ("Test data: every score is withheld until the Final phase." if shape == "blind" else
                           "Test data: scored on the public posts; the private ones count after the deadline."),
       "blind": "    blind: true\n" if shape == "blind" else ""}


def write_competition(folder, shape="private", by_column=False, dates=None, reveal=False, test_gold=None,
                      rule="Force_Last"):
    """The example competition folder at ``folder``; ``test_gold``: a CSV (spans,text) to use as the test gold
    instead of the sample's (the real test set). Returns the folder."""
    for part in ("bundles", "scoring_programs", "reference_data"):
        shutil.copytree(str(ROOT / part / TASK), str(folder / part / TASK),
                        ignore=shutil.ignore_patterns("tests", "__pycache__", "*.pyc"))
    gold = folder / "reference_data" / TASK / "test" / "tsd_test_sample.csv"
    if test_gold is not None:
        gold.write_bytes(test_gold.read_bytes())
    rows = list(csv.reader(io.StringIO(gold.read_text(encoding="utf-8"), newline="")))
    private = private_posts(len(rows) - 1)
    if by_column:
        out = io.StringIO()
        marked = set(private)
        csv.writer(out, lineterminator="\n").writerows(
            [rows[0] + ["subset"]] + [row + ["private" if n in marked else "public"] for n, row in enumerate(rows[1:])])
        gold.write_text(out.getvalue(), encoding="utf-8")
    else:
        (folder / "private_ids.txt").write_text("".join("%d\n" % i for i in private), encoding="utf-8")
    (folder / "bundles" / TASK / "task.yaml").write_text(
        task_yaml(shape, by_column, dates, reveal, rule), encoding="utf-8")
    return folder


def read_test_gold(folder):
    """[set of gold offsets] per post of the example's test gold, in order."""
    text = (folder / "reference_data" / TASK / "test" / "tsd_test_sample.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    return [set(int(x) for x in row["spans"].strip("[]").split(",") if x.strip()) for row in rows]


def mean_f1(gold, predicted, posts):
    """SemEval-2021 Task 5's score, written from its definition: per post F1 of the character offsets (1 when both
    are empty, 0 when one is), averaged over ``posts``."""
    total = 0.0
    for post in posts:
        g, p = gold[post], predicted.get(post, set())
        if not g and not p:
            total += 1.0
        elif g and p:
            total += 2.0 * len(g & p) / (len(g) + len(p))
    return total / len(posts)


def read_predictions(path):
    """{post: set of offsets} of a spans-pred.txt zip (``<id>\\t[offsets]`` lines)."""
    import zipfile
    with zipfile.ZipFile(str(path)) as archive:
        text = archive.read("spans-pred.txt").decode("utf-8")
    found = {}
    for line in text.splitlines():
        post, spans = line.split("\t")
        found[int(post)] = set(int(x) for x in spans.strip("[]").split(",") if x.strip())
    return found
