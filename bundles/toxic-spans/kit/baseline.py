"""Toxic spans baseline: mark every word found in a small list of insults.

    python3 baseline.py trial_texts.csv                    writes spans-pred.txt
    python3 baseline.py trial_texts.csv --out my-pred.txt --words idiot,moron,stupid

Reads a CSV with columns id,text (the public data of a phase) and writes one line per post:
<id><TAB><list of character offsets>. A word matches when it equals a listed word, ignoring case; all its
characters become toxic offsets. Python 3.6+, standard library only.
"""
import argparse
import csv
import re
import sys

DEFAULT_WORDS = ("idiot", "idiots", "stupid", "moron", "morons", "pathetic", "clown", "clowns", "fool", "fools",
                 "dumb", "ignorant", "loser", "losers", "jerk", "jerks")

# Runs of letters: "idiot's" yields "idiot" and "s", "anti-idiot" yields "anti" and "idiot".
_WORD = re.compile(r"[^\W\d_]+")


def find_spans(text, words=DEFAULT_WORDS):
    """Sorted character offsets of every word of ``text`` that is in ``words`` (case-insensitive)."""
    wanted = set(word.lower() for word in words)
    offsets = []
    for match in _WORD.finditer(text):
        if match.group().lower() in wanted:
            offsets.extend(range(match.start(), match.end()))
    return offsets


def read_texts(path):
    """(id, text) pairs of a public texts CSV; a file without a text column gives empty texts."""
    csv.field_size_limit(2 ** 31 - 1)
    with open(path, encoding="utf-8-sig", newline="") as handle:
        return [(int(row["id"]), row.get("text") or "") for row in csv.DictReader(handle)]


def format_line(post_id, offsets):
    return "%d\t[%s]\n" % (post_id, ", ".join(str(offset) for offset in offsets))


def predict_file(texts_csv, out_path, words=DEFAULT_WORDS):
    """Write the predictions for every post of ``texts_csv`` to ``out_path``; returns the number of posts."""
    posts = read_texts(texts_csv)
    with open(out_path, "w", encoding="utf-8", newline="\n") as out:
        for post_id, text in posts:
            out.write(format_line(post_id, find_spans(text, words)))
    return len(posts)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Mark words from a list of insults as toxic spans.")
    parser.add_argument("texts", help="CSV file with columns id,text (e.g. trial_texts.csv)")
    parser.add_argument("--out", default="spans-pred.txt", help="predictions file (default: spans-pred.txt)")
    parser.add_argument("--words", help="comma-separated words to mark (default: a built-in list of %d insults)"
                        % len(DEFAULT_WORDS))
    args = parser.parse_args(argv)
    words = [w.strip() for w in args.words.split(",") if w.strip()] if args.words else DEFAULT_WORDS
    count = predict_file(args.texts, args.out, words)
    print("wrote %d predictions to %s" % (count, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
