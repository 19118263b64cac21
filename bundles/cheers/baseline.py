#!/usr/bin/env python3
"""Random baseline for CHEERS Round 1, in the spirit of the organizers' create_random_baseline.py.

Each sentence is called relevant with the probability seen in the training data; a sentence called relevant
gets a sector drawn with the training data's sector frequencies (every id in every sector_ids list counts once).
The draw is seeded, so the same inputs give the same run file.

Usage:
  python3 baseline.py --train sentences_train_en.csv --sentences sentences_val_en.csv --out run.csv [--seed 0]
Without --train, relevance is a coin flip and the sector is uniform over the ids of --mapping.
Standard library only (Python 3.6+).
"""
import argparse
import csv
import io
import json
import random
import re

RUN_HEADER = ["doc_id", "sentence_id", "is_relevant", "sector_id"]


def read_rows(path):
    with io.open(path, encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle, skipinitialspace=True))


def training_statistics(rows):
    """(share of relevant sentences, {sector id: occurrences}) of labelled sentences."""
    counts = {}
    relevant = 0
    for row in rows:
        relevant += row["is_relevant"].strip() == "1"
        for sector in re.findall(r"-?[0-9]+", row["sector_ids"]):
            counts[int(sector)] = counts.get(int(sector), 0) + 1
    return (float(relevant) / len(rows) if rows else 0.5), counts


def uniform_statistics(mapping_path):
    """No training data: a coin flip for relevance, every sector of the mapping equally likely."""
    with io.open(mapping_path, encoding="utf-8-sig") as handle:
        return 0.5, dict((int(sector), 1) for sector in json.load(handle).values())


def _weighted_choice(rng, weights):
    """One key of ``weights`` drawn in proportion to its weight; written out so every Python gives the same draw."""
    keys = sorted(weights)
    point = rng.random() * sum(weights[k] for k in keys)
    for key in keys:
        point -= weights[key]
        if point < 0:
            return key
    return keys[-1]


def random_run(sentences, relevance_prior, sector_counts, seed=0):
    """Rows [doc_id, sentence_id, is_relevant, sector_id] for the sentences (dicts with doc_id, sentence_id)."""
    rng = random.Random(seed)
    rows = []
    for sentence in sentences:
        relevant = rng.random() < relevance_prior
        sector = _weighted_choice(rng, sector_counts) if relevant and sector_counts else -1
        rows.append([sentence["doc_id"].strip(), sentence["sentence_id"].strip(), int(relevant), sector])
    return rows


def write_run(path, rows):
    with io.open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(RUN_HEADER)
        writer.writerows(rows)


def main():
    parser = argparse.ArgumentParser(description="Write a random CHEERS run file.")
    parser.add_argument("--sentences", required=True, help="the split's sentences CSV (doc_id, sentence_id, ...)")
    parser.add_argument("--train", help="labelled training sentences CSV (is_relevant, sector_ids)")
    parser.add_argument("--mapping", help="immap_sector_name_to_id.json, used when there is no --train")
    parser.add_argument("--out", required=True, help="the run file to write")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.train:
        prior, counts = training_statistics(read_rows(args.train))
    elif args.mapping:
        prior, counts = uniform_statistics(args.mapping)
    else:
        parser.error("give --train or --mapping")
    write_run(args.out, random_run(read_rows(args.sentences), prior, counts, args.seed))


if __name__ == "__main__":
    main()
