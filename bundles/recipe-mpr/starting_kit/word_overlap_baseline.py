"""Word-overlap baseline for the Recipe-MPR competition (Python 3.6+, standard library only).

    python3 word_overlap_baseline.py queries.json predictions.json

For each query, ranks the options by the number of content words (lower-cased, crudely stemmed, stop words
removed) they share with the query; ties keep the order of the public file. Writes predictions.json in the
"query id -> option ids ranked best first" form. Zip that file alone and submit the zip.
"""
import json
import re
import sys
from functools import lru_cache

STOP_WORDS = set("""
a about an and any are as at be because but by can could do does for from get good have i i'd i'm in is it its
just like me my no not of on or some something that the this to too want was what what's with would you your
""".split())
_WORD = re.compile(r"[a-z0-9']+")
_SUFFIXES = ("ies", "es", "ing", "ed", "s")


@lru_cache(maxsize=None)  # words recur across queries and options: each is stemmed once
def stem(word):
    """Strip one common English ending, so that e.g. "tomatoes" and "tomato" meet."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[:-len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def content_words(text):
    return set(map(stem, set(_WORD.findall(text.lower())) - STOP_WORDS))


def rank_options(query, options):
    """Option ids, most overlapping first; sorted() is stable, so ties keep the given order."""
    wanted = content_words(query)
    return sorted(options, key=lambda oid: -len(wanted & content_words(options[oid])))


def predict(queries):
    return dict((q["id"], rank_options(q["query"], q["options"])) for q in queries)


def write_predictions(queries_path, predictions_path):
    with open(queries_path, encoding="utf-8") as handle:
        queries = json.load(handle)
    with open(predictions_path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(json.dumps(predict(queries), indent=2, sort_keys=True) + "\n")
    return len(queries)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python3 word_overlap_baseline.py queries.json predictions.json")
    count = write_predictions(sys.argv[1], sys.argv[2])
    print("wrote predictions for %d queries to %s" % (count, sys.argv[2]))
