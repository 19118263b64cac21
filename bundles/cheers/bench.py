"""CHEERS benchmark input: synthetic gold sentences and a run file at ``scale`` times the real test size.

The real Round 1 test split has about 3,000 sentences. Labels follow the sample data's mix (about half relevant,
some relevant without sector, some with two or three sectors); the run is a noisy copy so that every code path
(counted, left out, false alarm, -1) is exercised.
"""
import csv
import json
import os
import random

REAL_SIZE = "3,000 sentences"
REAL_SENTENCES = 3000
SECTORS = list(range(1, 12))


def _gold_sectors(rng):
    roll = rng.random()
    if roll < 0.48:
        return 0, []
    if roll < 0.58:
        return 1, []
    if roll < 0.90:
        return 1, [rng.choice(SECTORS)]
    return 1, rng.sample(SECTORS, rng.choice([2, 3]))


def make_input(input_dir, scale, seed=0):
    rng = random.Random(seed)
    ref, res = os.path.join(str(input_dir), "ref"), os.path.join(str(input_dir), "res")
    for folder in (ref, res):
        if not os.path.isdir(folder):
            os.makedirs(folder)
    with open(os.path.join(ref, "immap_sector_name_to_id.json"), "w", encoding="utf-8") as handle:
        json.dump(dict(("sector %d" % s, s) for s in SECTORS), handle)
    gold_path, run_path = os.path.join(ref, "sentences_test_en.csv"), os.path.join(res, "run.csv")
    with open(gold_path, "w", encoding="utf-8", newline="") as gold_file, \
            open(run_path, "w", encoding="utf-8", newline="") as run_file:
        gold, run = csv.writer(gold_file, lineterminator="\n"), csv.writer(run_file, lineterminator="\n")
        gold.writerow(["doc_id", "sentence_id", "sentence_text", "is_relevant", "sector_ids"])
        run.writerow(["doc_id", "sentence_id", "is_relevant", "sector_id"])
        rows = []
        doc_id = 0
        total = REAL_SENTENCES * scale
        while len(rows) < total:
            for sentence_id in range(min(rng.randint(4, 12), total - len(rows))):
                relevant, sectors = _gold_sectors(rng)
                text = "Sentence %d of report %d, about %s." % (sentence_id, doc_id, sectors or "context")
                gold.writerow([doc_id, sentence_id, text, relevant, "[%s]" % ", ".join(map(str, sectors))])
                guess = relevant if rng.random() < 0.7 else 1 - relevant
                sector = -1
                if guess:
                    sector = rng.choice(sectors) if sectors and rng.random() < 0.5 else rng.choice(SECTORS + [-1])
                rows.append([doc_id, sentence_id, guess, sector])
            doc_id += 1
        rng.shuffle(rows)  # run files come in any order
        run.writerows(rows)
