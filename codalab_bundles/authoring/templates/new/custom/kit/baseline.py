"""Baseline: a label for each item of items.csv (columns id,text) from a few words, written to predictions.csv.

    python3 baseline.py items.csv [predictions.csv]

Python 3.6+, standard library only. Replace it with your own system: what counts is the file it writes, one row
per item with the columns id,label (zip that file alone and submit the zip).
"""
import csv
import io
import sys

POSITIVE_WORDS = ("good", "great", "friendly", "clean")


def label(text):
    words = text.lower().split()
    return "positive" if any(word in words for word in POSITIVE_WORDS) else "negative"


def predict(items_path, out_path):
    with io.open(items_path, encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    with io.open(out_path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["id", "label"])
        writer.writerows([row["id"], label(row["text"])] for row in rows)
    return len(rows)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    count = predict(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else "predictions.csv")
    print("wrote %d predictions" % count)
