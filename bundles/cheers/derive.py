"""CHEERS: participants' files derived from a split's gold folder (see bundles/README.md for the hooks).

A gold folder holds sentences_<split>_en.csv (labelled), optionally documents_<split>_en.csv and
immap_sector_name_to_id.json. The labelled training data lives in the sibling folder ``train`` (no phase scores
on it); every phase's public data carries it, and the random baseline takes its statistics from it.
"""
import csv
import io
import shutil
from pathlib import Path

from codalab_bundles.loading import load_file

HERE = Path(__file__).resolve().parent
LABEL_COLUMNS = ("is_relevant", "sector_ids")
MAPPING = "immap_sector_name_to_id.json"


def _load_baseline():
    return load_file(HERE / "baseline.py")


def _sentences_file(folder):
    found = sorted(Path(folder).glob("sentences_*.csv"))
    if len(found) != 1:
        raise ValueError("%s: expected one sentences_*.csv, found %d" % (folder, len(found)))
    return found[0]


def _train_dir(reference_dir):
    train = Path(reference_dir).parent / "train"
    return train if train.is_dir() and train != Path(reference_dir) and list(train.glob("sentences_*.csv")) else None


def _write_without_labels(source, target):
    with io.open(str(source), encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle))
    keep = [i for i, name in enumerate(rows[0]) if name.strip() not in LABEL_COLUMNS]
    with io.open(str(target), "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerows([[row[i] for i in keep] for row in rows if row])


def public_data(ctx):
    """The split's sentences without labels, its documents and the sector mapping, plus the labelled train split."""
    reference = Path(ctx.reference_dir)
    sentences = _sentences_file(reference)
    _write_without_labels(sentences, ctx.out_dir / sentences.name)
    for extra in sorted(reference.glob("documents_*.csv")) + sorted(reference.glob(MAPPING)):
        shutil.copyfile(str(extra), str(ctx.out_dir / extra.name))
    train = _train_dir(reference)
    if train is not None:
        for path in sorted(train.glob("sentences_*.csv")) + sorted(train.glob("documents_*.csv")):
            shutil.copyfile(str(path), str(ctx.out_dir / path.name))


KIT_README = """# CHEERS Round 1 starting kit ({split} split)

- `baseline.py`: the random baseline (standard library, Python 3.6+). It calls a sentence relevant with the
  training data's share of relevant sentences and draws the sector of a relevant sentence from the training
  sector frequencies.
- `sample_submission.zip`: its run file for this split ({statistics}; the command below rebuilds it).
  Submit it as it is to check the format.
- `scoring_program/`: the scoring program the platform runs; its `README.md` explains the measures.

Make a run file from the public data (unzip it into `data/`):

    python3 baseline.py {source} --sentences data/{sentences} --out run.csv --seed {seed}

A run file is a CSV with the header `doc_id,sentence_id,is_relevant,sector_id` and one row per sentence of the
split. `is_relevant` is 0 or 1; `sector_id` is -1 when `is_relevant` is 0, otherwise one id of
`{mapping}` (or -1 for "no sector"). Zip the CSV alone (any file name) and submit the zip.

Score a run yourself on data with labels (for example a part of the training split you held out), with the
labelled sentences CSV (and the mapping, in a folder with it, if you want sector names):

    python3 scoring_program/evaluate.py --gold labelled.csv --pred run.csv --per-item wrong
    python3 scoring_program/evaluate.py --gold labelled.csv --pred run.csv --ci --compare other-run.csv

`--per-item wrong` lists the sentences you got wrong and how, `--ci` gives a 95% bootstrap interval of HumImpact,
`--compare` tests whether two runs really differ; `--json` prints JSON, `--help` says more. The platform's
layout works too: `python3 scoring_program/evaluate.py input output` with the gold in `input/ref/` and your run
in `input/res/`.
"""


def starting_kit(ctx):
    """baseline.py, a README, and the baseline's run file for this split as the sample submission."""
    baseline = _load_baseline()
    public = Path(ctx.public_dir)
    sentences = public / _sentences_file(ctx.reference_dir).name
    train = [path for path in sorted(public.glob("sentences_train*.csv")) if path != sentences]
    if train:
        prior, counts = baseline.training_statistics(baseline.read_rows(str(train[0])))
        statistics = "relevance and sectors drawn with the statistics of %s" % train[0].name
        source = "--train data/%s" % train[0].name
    elif (public / MAPPING).is_file():
        # No training data shipped: a coin flip and uniform sectors, never statistics of this split's gold.
        prior, counts = baseline.uniform_statistics(str(public / MAPPING))
        statistics = "no training data: a coin flip and uniform sectors"
        source = "--mapping data/%s" % MAPPING
    else:
        raise ValueError("%s: the baseline needs a sibling train/ folder or %s" % (ctx.reference_dir, MAPPING))
    rows = baseline.random_run(baseline.read_rows(str(sentences)), prior, counts, ctx.seed)
    baseline.write_run(str(ctx.submission_dir / ("en_%s_baseline_random.csv" % ctx.split)), rows)
    shutil.copyfile(str(HERE / "baseline.py"), str(ctx.out_dir / "baseline.py"))
    readme = KIT_README.format(split=ctx.split, statistics=statistics, source=source, seed=ctx.seed,
                               sentences=sentences.name, mapping=MAPPING)
    (ctx.out_dir / "README.md").write_text(readme, encoding="utf-8")
