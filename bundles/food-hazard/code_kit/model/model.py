"""The baseline model of the Food Hazard Detection code-submission competition: a multinomial naive Bayes
classifier per label (hazard-category, product-category, hazard, product) over the words of each incident's title
and text. Python 3.6+, standard library only; its parameters are nb_params.json, beside this file, written by the
starting kit's train_baseline.py.

The interface every submission implements: load(model_dir) returns a model; model.predict(items) gets the test
items (dicts with "id", "year", "month", "day", "country", "title", "text") and returns one prediction per item,
in order: a dict of the four labels.
"""
import json
import math
import os
import re

LABELS = ("hazard-category", "product-category", "hazard", "product")
WORD = re.compile(r"[a-z]{3,}")


def words(item):
    """The words the model reads: the lower-cased title and text, runs of at least three letters a-z."""
    return WORD.findall(("%s %s" % (item.get("title", ""), item.get("text", ""))).lower())


class NaiveBayes(object):
    """One label's classifier: log P(class) + sum over the item's words of log P(word | class), add-one
    smoothed over the training vocabulary; words outside it are skipped, ties go to the first class by name."""

    def __init__(self, classes, vocabulary_size):
        documents = sum(entry["documents"] for entry in classes.values())
        self.classes = []
        for name in sorted(classes):
            entry = classes[name]
            denominator = entry["words"] + vocabulary_size
            self.classes.append((name, math.log(entry["documents"] / float(documents)),
                                 dict((w, math.log((c + 1.0) / denominator)) for w, c in entry["counts"].items()),
                                 math.log(1.0 / denominator)))
        self.vocabulary = set(w for entry in classes.values() for w in entry["counts"])

    def predict(self, tokens):
        known = [w for w in tokens if w in self.vocabulary]
        best, best_score = None, None
        for name, prior, logs, unseen in self.classes:
            score = prior + sum(logs.get(w, unseen) for w in known)
            if best_score is None or score > best_score:
                best, best_score = name, score
        return best


class Model(object):
    def __init__(self, params):
        self.classifiers = dict((label, NaiveBayes(params["labels"][label], params["vocabulary_size"]))
                                for label in LABELS)

    def predict(self, items):
        predictions = []
        for item in items:
            tokens = words(item)
            predictions.append(dict((label, self.classifiers[label].predict(tokens)) for label in LABELS))
        return predictions


def load(model_dir):
    with open(os.path.join(model_dir, "nb_params.json"), encoding="utf-8") as handle:
        return Model(json.load(handle))
