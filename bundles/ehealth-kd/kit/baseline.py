"""A word-list baseline for eHealth-KD 2019 (Python 3.6+, standard library only).

    python3 baseline.py PUBLIC_DIR OUT_DIR [--train ANNOTATED_DIR ...]

PUBLIC_DIR holds the phase's scenario folders (scenario1-main/input_scenario1.txt, ...). OUT_DIR receives a
submission in the same layout: output_scenarioN.txt (the sentences, unchanged), output_a_scenarioN.txt and
output_b_scenarioN.txt. Zip the scenario folders (not OUT_DIR itself) and submit the zip.

Key phrases: every word found in a label lexicon. The built-in lexicon is small; --train adds every key phrase
word of annotated folders you have (any folder holding input_*.txt with its output_a_*.txt), each word taking the
label it most often had. Relations: an Action takes the nearest Concept before it as `subject` and the first
Concept after it as `target`. In scenario 3 the given key phrases (output_a_scenario3.txt) are used as they are.
"""
import argparse
import collections
import os
import re
import sys

SCENARIOS = ((1, "scenario1-main"), (2, "scenario2-taskA"), (3, "scenario3-taskB"))

BUILT_IN = {
    "Concept": "enfermedad enfermedades síntoma síntomas médico médicos paciente pacientes tratamiento dolor "
               "fiebre tos piel sangre corazón pulmones riñones huesos hígado cáncer infección infecciones virus "
               "diabetes gripe riesgo salud niños bebés mujeres adultos hospital medicamento medicamentos vacuna",
    "Action": "afecta afectan causa causan provoca provocar produce producen previene prevenir tratar trata "
              "consultar consulte aumenta reduce requiere necesita necesitará daña mejora ayuda tomar",
    "Predicate": "mayoría más menos primeros algunos muchos varios",
    "Reference": "este esta estos estas ello ellos",
}
_WORD = re.compile(r"\w+", re.UNICODE)


def read_lines(path):
    with open(path, encoding="utf-8-sig") as handle:
        return [line.strip() for line in handle.read().splitlines()]


def built_in_lexicon():
    return dict((word, label) for label, words in BUILT_IN.items() for word in words.split())


def train_lexicon(folders):
    """word -> the label it most often has in the output_a files of annotated folders."""
    votes = collections.defaultdict(collections.Counter)
    for folder in folders:
        for name in sorted(os.listdir(folder)):
            if not (name.startswith("input_") and name.endswith(".txt")):
                continue
            annotations = os.path.join(folder, "output_a_" + name[len("input_"):])
            if not os.path.exists(annotations):
                continue
            text = "\n".join(read_lines(os.path.join(folder, name))) + "\n"
            for line in read_lines(annotations):
                fields = line.split("\t")
                if len(fields) < 3:
                    continue
                for span in fields[1].split(";"):
                    start, end = (int(x) for x in span.split())
                    for word in _WORD.findall(text[start:end]):
                        votes[word.lower()][fields[2]] += 1
    return dict((word, counts.most_common(1)[0][0]) for word, counts in votes.items())


def tag_sentences(sentences, lexicon):
    """Key phrases per sentence: lists of (start, end, label) with file-wide offsets."""
    tagged = []
    offset = 0
    for sentence in sentences:
        found = []
        for match in _WORD.finditer(sentence):
            label = lexicon.get(match.group().lower())
            if label:
                found.append((offset + match.start(), offset + match.end(), label))
        tagged.append(found)
        offset += len(sentence) + 1
    return tagged


def read_keyphrases(path, sentences):
    """The given key phrases of scenario 3 per sentence, as (start, end, label, id) with the file's own IDs."""
    starts = []
    offset = 0
    for sentence in sentences:
        starts.append(offset)
        offset += len(sentence) + 1
    tagged = [[] for _ in sentences]
    for line in read_lines(path):
        fields = line.split("\t")
        if len(fields) < 3:
            continue
        first = int(fields[1].split(";")[0].split()[0])
        index = max(i for i, start in enumerate(starts) if start <= first)
        end = int(fields[1].split(";")[-1].split()[1])
        tagged[index].append((first, end, fields[2], int(fields[0])))
    return tagged


def relations(keyphrases):
    """(label, source id, target id): subject and target of every Action, by position."""
    found = []
    ordered = sorted(keyphrases)
    for position, (_, _, label, kid) in enumerate(ordered):
        if label != "Action":
            continue
        before = [k for k in ordered[:position] if k[2] == "Concept"]
        after = [k for k in ordered[position + 1:] if k[2] == "Concept"]
        if before:
            found.append(("subject", kid, before[-1][3]))
        if after:
            found.append(("target", kid, after[0][3]))
    return found


def write_scenario(out_dir, number, folder, sentences, keyphrases):
    """Write the three files; keyphrases is one list of (start, end, label, id) per sentence."""
    target = os.path.join(out_dir, folder)
    if not os.path.isdir(target):
        os.makedirs(target)
    text = "".join(sentence + "\n" for sentence in sentences)
    with open(os.path.join(target, "output_scenario%d.txt" % number), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    with open(os.path.join(target, "output_a_scenario%d.txt" % number), "w", encoding="utf-8", newline="\n") as f:
        for sentence in keyphrases:
            for start, end, label, kid in sentence:
                f.write("%d\t%d %d\t%s\t%s\n" % (kid, start, end, label, text[start:end]))
    with open(os.path.join(target, "output_b_scenario%d.txt" % number), "w", encoding="utf-8", newline="\n") as f:
        for sentence in keyphrases:
            for label, source, destination in relations(sentence):
                f.write("%s\t%d\t%d\n" % (label, source, destination))


def run(public_dir, out_dir, lexicon):
    """Answer every scenario found in public_dir; returns the numbers of the scenarios written."""
    written = []
    for number, folder in SCENARIOS:
        path = os.path.join(public_dir, folder, "input_scenario%d.txt" % number)
        if not os.path.exists(path):
            continue
        sentences = read_lines(path)
        given = os.path.join(public_dir, folder, "output_a_scenario%d.txt" % number)
        if number == 3 and os.path.exists(given):
            keyphrases = read_keyphrases(given, sentences)
        else:
            keyphrases = []
            next_id = 1
            for sentence in tag_sentences(sentences, lexicon):
                keyphrases.append([(start, end, label, next_id + i) for i, (start, end, label) in enumerate(sentence)])
                next_id += len(sentence)
        write_scenario(out_dir, number, folder, sentences, keyphrases)
        written.append(number)
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description="Word-list baseline for eHealth-KD 2019.")
    parser.add_argument("public_dir", help="folder with the scenario folders of the phase's public data")
    parser.add_argument("out_dir", help="folder to write the submission's scenario folders into")
    parser.add_argument("--train", nargs="*", default=[], help="annotated folders to learn the lexicon from")
    args = parser.parse_args(argv)
    lexicon = built_in_lexicon()
    lexicon.update(train_lexicon(args.train))
    written = run(args.public_dir, args.out_dir, lexicon)
    if not written:
        sys.stderr.write("no scenario folder with an input_scenarioN.txt in %s\n" % args.public_dir)
        return 1
    sys.stdout.write("wrote scenarios %s into %s\n" % (", ".join(map(str, written)), args.out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
