"""Participants' files for the food-hazard competition, made from a split's gold incidents CSV.

Public data: incidents.csv, the gold file without its four label columns (the name of the original release).
Starting kit: README.md, the keyword baseline, and as sample submission the baseline's predictions.
"""
import csv
import shutil
from pathlib import Path

from codalab_bundles.loading import load_file

LABEL_COLUMNS = ("hazard-category", "product-category", "hazard", "product")
PUBLIC_NAME = "incidents.csv"
KIT = Path(__file__).resolve().parent / "kit"


def _gold_csv(reference_dir):
    found = sorted(p for p in Path(reference_dir).iterdir() if p.suffix.lower() == ".csv")
    if len(found) != 1:
        raise ValueError("expected one gold CSV in %s, found %d" % (reference_dir, len(found)))
    return found[0]


def _baseline():
    return load_file(KIT / "baseline.py")


def public_data(ctx):
    with _gold_csv(ctx.reference_dir).open(encoding="utf-8-sig", newline="") as handle:
        records = [r for r in csv.reader(handle) if r]
    header, rows = records[0], records[1:]
    if header[0].strip() not in ("", "id"):
        # Participants align predictions by this column, so the public file always has one.
        header = [""] + header
        rows = [[str(i)] + row for i, row in enumerate(rows)]
    keep = [i for i, name in enumerate(header) if name.strip() not in LABEL_COLUMNS]
    with (Path(ctx.out_dir) / PUBLIC_NAME).open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")  # minimal quoting and LF, as DataFrame.to_csv
        for record in [header] + rows:
            writer.writerow([record[i] for i in keep])


def starting_kit(ctx):
    out = Path(ctx.out_dir)
    shutil.copyfile(str(KIT / "README.md"), str(out / "README.md"))
    shutil.copyfile(str(KIT / "baseline.py"), str(out / "baseline.py"))
    _baseline().write_submission(str(Path(ctx.public_dir) / PUBLIC_NAME),
                                 str(Path(ctx.submission_dir) / "submission.csv"))
