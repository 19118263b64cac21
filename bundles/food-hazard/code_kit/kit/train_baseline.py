#!/usr/bin/env python3
"""Trains the baseline model (model/model.py): counts, per label, how often each word of the titles and texts
appears with each class, and writes them as the model's nb_params.json.

    python3 train_baseline.py train.csv model/nb_params.json

train.csv: labeled incidents (the columns of incidents.csv plus hazard-category, product-category, hazard,
product). Python 3.6+, standard library only.
"""
import csv
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "model"))
import model  # noqa: E402  (the baseline's own tokenizer, so training and prediction read the same words)


def train(rows):
    """The parameters model.load reads: per label and class, its documents, its words, and each word's count."""
    labels = dict((label, {}) for label in model.LABELS)
    vocabulary = set()
    for row in rows:
        tokens = model.words(row)
        vocabulary.update(tokens)
        for label in model.LABELS:
            entry = labels[label].setdefault(row[label], {"documents": 0, "words": 0, "counts": {}})
            entry["documents"] += 1
            entry["words"] += len(tokens)
            for token in tokens:
                entry["counts"][token] = entry["counts"].get(token, 0) + 1
    return {"vocabulary_size": len(vocabulary), "labels": labels}


def read_rows(path):
    with open(path, encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__.strip().splitlines()[3].strip() + "\n")
        return 2
    params = train(read_rows(argv[0]))
    with open(argv[1], "w", encoding="utf-8") as handle:
        json.dump(params, handle, sort_keys=True, separators=(",", ":"))
        handle.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
