"""A tiny task definition written into a temporary folder, to test the builder and the replay in isolation."""
import textwrap

from codabench_cases import tiny_png
from codalab_bundles.authoring import taskdef

# One answer per line; accuracy = share of lines equal to the gold. 'SLEEP' makes the program hang (time limits),
# 'SLOW' sleeps 3 s first, 'CRASH' makes it raise (internal errors), 'META' writes output/metadata, a line
# 'WRITE:<text>' replaces scores.txt with <text> (parser checks).
TOY_EVALUATE = '''
import os, sys, time
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "common"))
from scoring_runtime import SubmissionError, Result, main, find_submission_file, find_reference_file, read_text
from report_html import page, section, paragraph

def score(ref_dir, res_dir):
    gold = read_text(find_reference_file(ref_dir, "gold.txt")).split()
    text = read_text(find_submission_file(res_dir, "answers.txt"))
    if text.startswith("WRITE:"):
        raise SystemExit(write_raw(text[6:].strip().replace("|", "\\n")))
    answers = text.split()
    if answers and answers[0] == "META":  # a program that (wrongly) writes output/metadata
        write_raw("accuracy: 0", "metadata")
        answers = answers[1:]
    if answers and answers[0] == "SLEEP":
        time.sleep(60)
    if answers and answers[0] == "SLOW":  # past a 2 s limit, then scores as usual
        time.sleep(3)
        answers = answers[1:]
    if answers and answers[0] == "CRASH":
        raise KeyError(gold[0])
    if len(answers) != len(gold):
        raise SubmissionError("answers.txt: %d answers for %d questions" % (len(answers), len(gold)))
    hits = sum(a == g for a, g in zip(answers, gold))
    return Result([("accuracy", hits / float(len(gold))), ("hits", hits)],
                  page("Toy", section("Hits", paragraph("%d" % hits))))

def write_raw(text, name="scores.txt"):
    with open(os.path.join(sys.argv[2], name), "w") as handle:
        handle.write(text)
    return 0

if __name__ == "__main__":
    sys.exit(main(score, "Toy"))
'''

TOY_DERIVE = '''
def public_data(ctx):
    n = len((ctx.reference_dir / "gold.txt").read_text().split())
    (ctx.out_dir / "questions.txt").write_text("".join("question %d\\n" % i for i in range(n)))

def starting_kit(ctx):
    (ctx.out_dir / "README.md").write_text("Answer each question on its own line.\\n")
    n = len((ctx.public_dir / "questions.txt").read_text().splitlines())
    (ctx.submission_dir / "answers.txt").write_text("a\\n" * n)
'''

TOY_YAML = '''
title: "Toy task: answers: a, b"
description: "A task for tests; 'quotes' and # hashes survive."
docker_image: codalab/codalab-legacy:py37
has_registration: false
enable_detailed_results: true
end_date: 2025-03-01 12:00:00
pages: {overview: overview.html, evaluation: evaluation.html, data: data.html, terms: terms.html, faq: faq.html}
scoring_program: %(program)s
phases:
  - label: Development
    description: "Feedback on the dev split."
    start: 2025-01-15
    split: dev
    max_submissions: 50
    max_submissions_per_day: 5
    execution_time_limit: %(limit)d
  - label: Test
    start: 2025-02-01 00:00:00
    split: test
    max_submissions: 3
    max_submissions_per_day: 1
    execution_time_limit: %(limit)d
    leaderboard_management_mode: hide_results
leaderboard:
  label: Results
  columns:
    - {key: accuracy, label: Accuracy, sort: desc, numeric_format: 3}
    - {key: hits, label: Hits}
    - {key: never_written, label: Unused}
'''


def make_toy(root, limit=300, derive=True):
    """Write bundles/toy, its scoring program and its gold into ``root``; returns the loaded Task."""
    bundles = root / "bundles"
    folder = bundles / "toy"
    (folder / "pages").mkdir(parents=True)
    program = root / "program"
    program.mkdir()
    (program / "evaluate.py").write_text(textwrap.dedent(TOY_EVALUATE))
    (program / "metadata").write_text("command: python3 $program/evaluate.py $input $output\n")
    # never_written is declared but never written, so the replay's "columns without a score" can be tested
    (program / "score_keys.txt").write_text("accuracy\nhits\nnever_written\n")
    (folder / "task.yaml").write_text(TOY_YAML % {"program": program, "limit": limit})
    for page in ("overview", "evaluation", "data", "terms", "faq"):
        (folder / "pages" / ("%s.html" % page)).write_text("<p>%s</p>\n" % page)
    (folder / "logo.png").write_bytes(tiny_png())  # a real image: Codabench refuses a logo it cannot open
    if derive:
        (folder / "derive.py").write_text(TOY_DERIVE)
    for split, gold in (("dev", "a b a"), ("test", "b b a a")):
        (root / "gold" / split).mkdir(parents=True)
        (root / "gold" / split / "gold.txt").write_text(gold + "\n")
    overrides = {"dev": str(root / "gold" / "dev"), "test": str(root / "gold" / "test")}
    return taskdef.load_task("toy", overrides, bundles_dir=bundles)
