"""Participants' files for toxic-spans: the texts without spans, and a starting kit with a lexicon baseline.

The gold of a split is either ``spans-gold.txt`` (``<id>\t<list>`` lines, no texts) or one CSV with columns
``spans,text`` whose 0-based row numbers are the post ids; the scoring program reads the same two layouts.
The kit's baseline.py is kit/baseline.py beside this file; the sample submission is made by that same code.
"""
import csv
import io
import shutil
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
BASELINE = HERE / "kit" / "baseline.py"
GOLD_TXT = "spans-gold.txt"
PREDICTIONS = "spans-pred.txt"
# Files the platform or an OS may leave in a data folder; never gold.
_STRAY = ("metadata", ".DS_Store", "Thumbs.db")


def _entries(folder):
    return sorted(p for p in folder.iterdir() if p.name not in _STRAY and not p.name.startswith(("tmp", "._")))


def gold_file(reference_dir):
    """spans-gold.txt if there is one, else the single CSV; one wrapper folder is tolerated."""
    folder = Path(reference_dir)
    entries = _entries(folder)
    if len(entries) == 1 and entries[0].is_dir():
        folder, entries = entries[0], _entries(entries[0])
    if (folder / GOLD_TXT).is_file():
        return folder / GOLD_TXT
    csvs = [p for p in entries if p.is_file() and p.suffix.lower() == ".csv"]
    if len(csvs) != 1:
        raise ValueError("%s: expected %s or exactly one CSV file with columns spans,text, found %s"
                         % (reference_dir, GOLD_TXT, ", ".join(p.name for p in entries) or "nothing"))
    return csvs[0]


def gold_posts(reference_dir):
    """(id, text) for every gold post, in file order; text is None when the gold has no texts."""
    path = gold_file(reference_dir)
    data = path.read_text(encoding="utf-8-sig")
    if path.name == GOLD_TXT:
        return [(int(line.split("\t", 1)[0]), None) for line in data.splitlines() if line.strip()]
    csv.field_size_limit(2 ** 31 - 1)
    reader = csv.reader(io.StringIO(data, newline=""))
    header = [name.strip().lower() for name in next(reader)]
    if "text" not in header:
        raise ValueError("%s: no 'text' column in the header" % path.name)
    column = header.index("text")
    # Blank records are skipped, as the scoring program skips them when it numbers the posts.
    records = [r for r in reader if r and not (len(r) == 1 and not r[0].strip())]
    return [(post_id, record[column]) for post_id, record in enumerate(records)]


def texts_name(split):
    return "%s_texts.csv" % split


def public_data(ctx):
    """<split>_texts.csv with columns id,text (only id when the gold has no texts)."""
    posts = gold_posts(ctx.reference_dir)
    with_text = all(text is not None for _, text in posts)
    with open(str(Path(ctx.out_dir) / texts_name(ctx.split)), "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["id", "text"] if with_text else ["id"])
        for post_id, text in posts:
            writer.writerow([post_id, text] if with_text else [post_id])


def load_baseline():
    """kit/baseline.py as a module, compiled from source so no bytecode cache is written into the repository."""
    module = types.ModuleType("toxic_spans_baseline")
    module.__file__ = str(BASELINE)
    exec(compile(BASELINE.read_text(encoding="utf-8"), str(BASELINE), "exec"), module.__dict__)
    return module


README = """# Toxic spans detection: starting kit ({split} split)

Files:
- `baseline.py`: a baseline that marks the words of a small list of insults (Python 3.6+, standard library).
- `sample_submission.zip`: a valid submission, the baseline's predictions for the {count} posts of `{texts}`.
- `scoring_program/`: the scoring program of the competition, to score predictions on your own computer.

The posts are in `{texts}` of the phase's public data: columns `id,text`, one record per post (texts may
span several lines, so read the file with a CSV reader). A post's id is its row number in the gold file,
counting from 0.

## Predictions

`spans-pred.txt` holds one line per post: the id, a TAB, and the list of the character offsets you
predict as toxic, counted from 0 in the text (Unicode characters, not bytes). Write `[]` for no span.

```
0\t[7, 8, 9, 10, 11, 12]
1\t[]
```

Every post needs exactly one line; the order of the lines does not matter.

## Run the baseline and zip the result

```
# writes spans-pred.txt
python3 baseline.py {texts}
# the same with your own word list
python3 baseline.py {texts} --words idiot,clown
# the file must sit at the root of the zip, not inside a folder
zip submission.zip spans-pred.txt
```

## Score offline

The scoring program reads a gold file (a CSV with columns `spans,text`, as the released `tsd_*.csv` files, or
`<id>\\t<list>` lines as in `spans-gold.txt`) and your predictions (`<id>\\t<list>` lines, any file name):

```
# spans_F1 is the score that ranks the leaderboard
python3 scoring_program/evaluate.py --gold path/to/tsd_trial.csv --pred spans-pred.txt
# the posts you got wrong, and how
python3 scoring_program/evaluate.py --gold path/to/tsd_trial.csv --pred spans-pred.txt --per-item wrong
# a 95% bootstrap interval of spans_F1, and whether another run really differs
python3 scoring_program/evaluate.py --gold path/to/tsd_trial.csv --pred spans-pred.txt --ci --compare other.txt
```

`--json` prints JSON; `--output DIR` also writes `scores.txt` and `detailed_results.html`, which shows more
detail. The platform's layout works too: `python3 scoring_program/evaluate.py input output` with the gold in
`input/ref` and `spans-pred.txt` in `input/res`. A file that cannot be scored gets a one-line message
naming the line and the problem.
"""


def starting_kit(ctx):
    """README.md and baseline.py in the kit; the baseline's predictions as the sample submission."""
    out_dir = Path(ctx.out_dir)
    texts = Path(ctx.public_dir) / texts_name(ctx.split)
    shutil.copyfile(str(BASELINE), str(out_dir / "baseline.py"))
    count = load_baseline().predict_file(str(texts), str(Path(ctx.submission_dir) / PREDICTIONS))
    readme = README.format(split=ctx.split, texts=texts_name(ctx.split), count=count)
    with open(str(out_dir / "README.md"), "w", encoding="utf-8", newline="\n") as handle:
        handle.write(readme)

