"""Participants' files for eHealth-KD 2019, derived from a split's gold scenario folders.

Public data: each scenario folder with its sentence file only; scenario 3 also gets the gold key phrases
(output_a_scenario3.txt), which is what that scenario gives as input. Starting kit: README.md, the word-list
baseline (kit/baseline.py beside this file) and, as the sample submission, that baseline's output on the public
data (never on the gold).
"""
import shutil
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
BASELINE = HERE / "kit" / "baseline.py"
SCENARIOS = ((1, "scenario1-main"), (2, "scenario2-taskA"), (3, "scenario3-taskB"))


def _find(reference_dir, name):
    """The one file called ``name`` in the first levels of the gold folder (a wrapper folder is tolerated)."""
    root = Path(reference_dir)
    found = sorted(p for p in root.rglob(name) if len(p.relative_to(root).parts) <= 3)
    if len(found) > 1:
        raise ValueError("%s: %d files called %s" % (reference_dir, len(found), name))
    return found[0] if found else None


def public_data(ctx):
    written = 0
    for number, folder in SCENARIOS:
        sentences = _find(ctx.reference_dir, "input_scenario%d.txt" % number)
        if sentences is None:
            continue
        target = Path(ctx.out_dir) / folder
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(str(sentences), str(target / sentences.name))
        if number == 3:
            given = _find(ctx.reference_dir, "output_a_scenario3.txt")
            if given is not None:
                shutil.copyfile(str(given), str(target / given.name))
        written += 1
    if not written:
        raise ValueError("%s: no scenario folder with an input_scenarioN.txt" % ctx.reference_dir)


def load_baseline():
    """kit/baseline.py as a module, compiled from source so no bytecode cache lands in the repository."""
    module = types.ModuleType("ehealth_kd_baseline")
    module.__file__ = str(BASELINE)
    exec(compile(BASELINE.read_text(encoding="utf-8"), str(BASELINE), "exec"), module.__dict__)
    return module


README = """# eHealth-KD 2019: starting kit ({split} split)

- `baseline.py`: a word-list baseline (Python 3.6+, standard library only).
- `sample_submission.zip`: a valid submission, the baseline's output for scenarios {scenarios} of this split's
  public data.
- `scoring_program/`: the competition's scoring program, to score your output offline.

## What to submit

A zip whose root holds one folder per scenario you answer (any you leave out scores 0):

```
scenario1-main/output_scenario1.txt      the sentences of input_scenario1.txt, unchanged, one per line
scenario1-main/output_a_scenario1.txt    key phrases:  ID<TAB>START END[;START END...]<TAB>LABEL<TAB>TEXT
scenario1-main/output_b_scenario1.txt    relations:    LABEL<TAB>SOURCE_ID<TAB>TARGET_ID
scenario2-taskA/...                      the same three files with scenario2 (output_b may be empty)
scenario3-taskB/...                      the same three files with scenario3
```

Offsets count characters (not bytes) over the whole sentence file, each sentence followed by one newline;
END is exclusive. A key phrase of several words may be one span or one span per word; a discontinuous one
lists its pieces joined by `;`. Labels: `Concept`, `Action`, `Predicate`, `Reference` for key phrases;
`is-a, same-as, has-property, part-of, causes, entails, in-time, in-place, in-context, subject, target,
domain, arg` for relations. In scenario 3, copy the given `output_a_scenario3.txt` and add the relations.

## Run the baseline and zip the result

```
python3 baseline.py PUBLIC_DATA_DIR submission
# optional: learn its word list from annotated folders you have
python3 baseline.py PUBLIC_DATA_DIR submission --train path/to/annotated/folder
cd submission && zip -r ../submission.zip scenario*
```

## Score offline

With a folder (or zip) of gold scenario folders (input_scenarioN.txt, output_a_scenarioN.txt,
output_b_scenarioN.txt) and your own scenario folders in another folder or a zip:

```
python3 scoring_program/evaluate.py --gold gold/ --pred submission.zip
python3 scoring_program/evaluate.py --gold gold/ --pred submission.zip --per-item wrong
python3 scoring_program/evaluate.py --gold gold/ --pred submission.zip --ci --compare other-submission.zip
```

`main_score` (scenario 1 F1) ranks the leaderboard. `--per-item wrong` lists the sentences of scenario 1 with
something incorrect, partial, missing or spurious; `--ci` gives a 95% bootstrap interval of `main_score` over the
sentences; `--compare` tests whether two submissions really differ; `--json` prints JSON and `--output DIR` writes
the platform's files (`scores.txt`, `detailed_results.html` with the counts of correct, incorrect, partial, missing
and spurious items and per-label figures). The platform's layout works too:
`python3 scoring_program/evaluate.py input output` with the gold in `input/ref` and yours in `input/res`. A file that cannot be scored gets a one-line
message naming the file, the line and the problem.
"""


def starting_kit(ctx):
    out_dir = Path(ctx.out_dir)
    shutil.copyfile(str(BASELINE), str(out_dir / "baseline.py"))
    baseline = load_baseline()
    written = baseline.run(str(ctx.public_dir), str(ctx.submission_dir), baseline.built_in_lexicon())
    readme = README.format(split=ctx.split, scenarios=", ".join(str(n) for n in written))
    with open(str(out_dir / "README.md"), "w", encoding="utf-8", newline="\n") as handle:
        handle.write(readme)
