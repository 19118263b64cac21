"""Toxic spans benchmark input: a synthetic gold CSV (spans,text) and spans-pred.txt at ``scale`` times the real size.

The real test split has 2,000 posts of about 190 characters, a fifth of them without any gold span, and about 7
gold offsets per post (up to 30 here). Texts are 200-300 characters, some with a quoted line break as in the
released CSV; the predictions are a noisy copy of the gold in shuffled order, so every branch of the metric runs.
"""
import csv
import os
import random

REAL_SIZE = "2,000 posts"
REAL_POSTS = 2000

_WORDS = ("the council said budget people road plan vote city week report never again about their really what "
          "this that because water school park tax money ferry bridge project article reader comment").split()
_INSULTS = ("idiot", "clown", "loser", "stupid", "pathetic", "moron", "fool", "hypocrite")


def _post(rng):
    """(text, gold offsets): 200-300 characters; 0 to 3 insults as the toxic spans, at most 30 offsets."""
    words, spans = [], []
    length = 0
    target = rng.randint(200, 300)
    toxic_left = 0 if rng.random() < 0.2 else rng.randint(1, 3)
    while length <= target:
        if toxic_left and rng.random() < 0.12:
            word = rng.choice(_INSULTS)
            spans.extend(range(length, length + len(word)))
            toxic_left -= 1
        else:
            word = rng.choice(_WORDS)
        words.append(word)
        length += len(word) + 1
    text = " ".join(words)
    if rng.random() < 0.1:
        cut = text.find(" ", len(text) // 2)
        text = text[:cut] + "\n" + text[cut + 1:]
    return text, spans[:30]


def _prediction(rng, gold):
    roll = rng.random()
    if roll < 0.15:
        return []
    kept = [o for o in gold if rng.random() < 0.85]
    if roll > 0.8:
        start = rng.randrange(250)
        kept += list(range(start, start + rng.randint(3, 10)))
    return kept


def make_input(input_dir, scale, seed=0):
    rng = random.Random(seed)
    ref, res = os.path.join(str(input_dir), "ref"), os.path.join(str(input_dir), "res")
    for folder in (ref, res):
        if not os.path.isdir(folder):
            os.makedirs(folder)
    posts = REAL_POSTS * scale
    predictions = []
    with open(os.path.join(ref, "tsd_test.csv"), "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["spans", "text"])
        for post_id in range(posts):
            text, gold = _post(rng)
            writer.writerow([str(gold), text])
            predictions.append("%d\t%s\n" % (post_id, _prediction(rng, gold)))
    rng.shuffle(predictions)
    with open(os.path.join(res, "spans-pred.txt"), "w", encoding="utf-8", newline="") as handle:
        handle.writelines(predictions)


# The organizers' CodaLab scorer reads ref/spans-gold.txt (<id><TAB><list> per post) and res/spans-pred.txt.
OFFICIAL_REPO = "ipavlopoulos/toxic_spans"
OFFICIAL_FILES = ("SemEval2021/evaluation/semeval2021.py",)


def official_command(code_dir, input_dir, work_dir):
    """Its input, written from the same gold (not timed), and the command that scores it."""
    ref, out = os.path.join(work_dir, "ref"), os.path.join(work_dir, "out")
    os.makedirs(ref)
    os.makedirs(out)
    with open(os.path.join(str(input_dir), "ref", "tsd_test.csv"), encoding="utf-8", newline="") as handle, \
            open(os.path.join(ref, "spans-gold.txt"), "w", encoding="utf-8", newline="") as gold:
        for post_id, row in enumerate(csv.DictReader(handle)):
            gold.write("%d\t%s\n" % (post_id, row["spans"]))
    os.symlink(os.path.abspath(os.path.join(str(input_dir), "res")), os.path.join(work_dir, "res"))
    return [os.path.join(code_dir, "semeval2021.py"), work_dir, out]
