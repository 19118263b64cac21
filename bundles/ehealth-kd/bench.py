"""Benchmark input for the eHealth-KD 2019 scoring program at ``scale`` times the real test collection.

The real test has 8,800 sentences in scenario 1, of which 100 are annotated, and 100 sentences in each of
scenarios 2 and 3. Sentences come from the sample-data generator (bundles/ehealth-kd/sample_data.py). As a real
system does, the submission annotates every sentence of scenario 1 (the official baseline wrote 59,000 key
phrases there), so reading the submission is most of the work. It is a noisy copy of the full annotations:
key phrases dropped, relabelled, cut to a partial match or added, relations dropped, relabelled or added.
"""
import os
import random

from codalab_bundles.loading import load_file

REAL_SIZE = "8,800 sentences (scenario 1)"
SCENARIO1_SENTENCES, ANNOTATED, OTHER_SCENARIOS = 8800, 100, 100
KEYPHRASE_LABELS = ("Concept", "Action", "Predicate", "Reference")
RELATION_LABELS = ("is-a", "same-as", "has-property", "part-of", "causes", "entails", "in-time", "in-place",
                   "in-context", "subject", "target", "domain", "arg")

_GENERATOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sample_data.py")


def _generator():
    return load_file(_GENERATOR)


def _noisy(sentence, rng):
    """(key phrases {id: (label, spans)}, relations) of a system that gets about three quarters right."""
    keyphrases = {}
    for kid, (label, spans) in sentence.keyphrases.items():
        roll = rng.random()
        if roll < 0.08:
            continue
        if roll < 0.16:
            label = KEYPHRASE_LABELS[(KEYPHRASE_LABELS.index(label) + 1) % len(KEYPHRASE_LABELS)]
        elif roll < 0.24:
            spans = spans[-1:]
        keyphrases[kid] = (label, list(spans))
    if rng.random() < 0.3:
        start = rng.randrange(len(sentence.text) - 1)
        while sentence.text[start].isspace():
            start -= 1  # a key phrase that is a space would break the official scorer (its text field is empty)
        keyphrases[max(sentence.keyphrases) + 1] = ("Concept", [(start, start + 1)])
    relations = []
    for label, source, target in sentence.relations:
        if source in keyphrases and target in keyphrases and rng.random() < 0.85:
            relations.append((rng.choice(RELATION_LABELS) if rng.random() < 0.1 else label, source, target))
    if len(keyphrases) > 1 and rng.random() < 0.3:
        relations.append((rng.choice(RELATION_LABELS),) + tuple(rng.sample(sorted(keyphrases), 2)))
    return keyphrases, relations


def _write_submission(folder, number, sentences, rng):
    """output_scenarioN.txt and a noisy output_a/output_b for every sentence; multi-word runs as one span or not."""
    os.makedirs(folder, exist_ok=True)
    names = ["%s_scenario%d.txt" % (kind, number) for kind in ("output", "output_a", "output_b")]
    handles = [open(os.path.join(folder, name), "w", encoding="utf-8", newline="\n") for name in names]
    try:
        text_file, a_file, b_file = handles
        offset, next_id = 0, 1
        for sentence in sentences:
            keyphrases, relations = _noisy(sentence, rng)
            ids = {}
            for kid in sorted(keyphrases):
                label, spans = keyphrases[kid]
                if len(spans) > 1 and spans[-1][1] - spans[0][0] == sum(e - s for s, e in spans) + len(spans) - 1 \
                        and rng.random() < 0.5:
                    spans = [(spans[0][0], spans[-1][1])]  # contiguous words written as one span
                ids[kid] = next_id
                a_file.write("%d\t%s\t%s\t%s\n" % (next_id, ";".join("%d %d" % (offset + s, offset + e)
                                                                     for s, e in spans),
                                                   label, " ".join(sentence.text[s:e] for s, e in spans)))
                next_id += 1
            for label, source, target in relations:
                b_file.write("%s\t%d\t%d\n" % (label, ids[source], ids[target]))
            text_file.write(sentence.text + "\n")
            offset += len(sentence.text) + 1
    finally:
        for handle in handles:
            handle.close()


def make_input(input_dir, scale, seed=0):
    generator = _generator()
    rng = random.Random(seed)
    ref, res = os.path.join(str(input_dir), "ref"), os.path.join(str(input_dir), "res")
    for number, folder in generator.SCENARIOS:
        total = SCENARIO1_SENTENCES * scale if number == 1 else OTHER_SCENARIOS * scale
        sentences = [generator.make_sentence(rng) for _ in range(total)]
        annotated = set(rng.sample(range(total), ANNOTATED * scale)) if number == 1 else set(range(total))
        generator.write_scenario(os.path.join(ref, folder), number,
                                 [(s, i in annotated) for i, s in enumerate(sentences)])
        _write_submission(os.path.join(res, folder), number, sentences, rng)


# The organizers' CodaLab program reads the same layout: ref/<scenario>/input_scenarioN.txt (+ output_a/b) and
# res/<scenario>/output_scenarioN.txt (+ output_a/b).
OFFICIAL_REPO = "knowledge-learning/ehealthkd-2019"
OFFICIAL_FILES = tuple("data/codalab/program/%s.py" % name for name in ("eval", "score", "utils"))


def official_command(code_dir, input_dir, work_dir):
    return [os.path.join(code_dir, "eval.py"), str(input_dir), work_dir]
