"""Scoring program of eHealth-KD 2019: key phrases and relations in Spanish health sentences, three scenarios.

Scores (those of the 2019 leaderboard): main_score, m_prec, m_rec (scenario 1: both subtasks), a_f1, a_prec,
a_rec (scenario 2: key phrases), b_f1, b_prec, b_rec (scenario 3: relations). An absent scenario scores 0.
"""
import io
import os
import sys

# In the repository the shared runtime sits in ../common; in a built scoring program it sits beside this file.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "common"))

from scoring_runtime import SubmissionError, ReferenceDataError, Result, main, read_text  # noqa: E402

import ehealth_kd_report  # noqa: E402
from ehealth_kd_format import FormatProblem, load_scenario  # noqa: E402
from ehealth_kd_layout import SCENARIOS, expected_layout, find_scenarios  # noqa: E402
from ehealth_kd_matching import match_sentence  # noqa: E402
from ehealth_kd_metric import Counts, keyphrase_counts, relation_counts, sentence_items  # noqa: E402

TITLE = "eHealth-KD 2019: detailed results"
KEYS = {1: ("main_score", "m_prec", "m_rec"), 2: ("a_f1", "a_prec", "a_rec"), 3: ("b_f1", "b_prec", "b_rec")}
_KIND_NAMES = {"sentences": "output_scenario%d.txt", "a": "output_a_scenario%d.txt", "b": "output_b_scenario%d.txt"}


def _load(files, error, wanted=None):
    # The files are read as streams (a submission can be large), straight from the file objects.
    kinds = ("sentences", "a", "b")
    handles = [io.open(files.paths[k], encoding="utf-8-sig", newline=None) for k in kinds]
    try:
        return load_scenario(handles[0], handles[1], handles[2], files.names["a"], files.names["b"], wanted)
    except UnicodeDecodeError:
        # The files are read in this order, so the first that is not UTF-8 is the one: name its line and byte.
        for kind in kinds:
            read_text(files.paths[kind], files.names[kind], error)
        raise error("scenario %d: a file is not UTF-8 text" % files.number)
    finally:
        for handle in handles:
            handle.close()


def _load_gold(files):
    missing = files.missing()
    if missing:
        raise ReferenceDataError("scenario %d of the reference data lacks %s"
                                 % (files.number, ", ".join(_KIND_NAMES[k] % files.number for k in missing)))
    try:
        return _load(files, ReferenceDataError)
    except FormatProblem as problem:
        # Organizers can inspect their own file; the message, seen by participants, must not quote gold data.
        raise ReferenceDataError("%s: %s" % (problem.where, problem.summary))


def _load_submission(files, wanted):
    missing = files.missing()
    if missing:
        raise SubmissionError("%s: scenario %d needs %s as well (an empty file is fine for output_a/output_b)"
                              % (files.folder or "the top level of the zip", files.number,
                                 " and ".join(_KIND_NAMES[k] % files.number for k in missing)))
    try:
        return _load(files, SubmissionError, wanted)
    except FormatProblem as problem:
        raise SubmissionError(str(problem))


def _pair_sentences(gold, annotated, submitted, name, notes):
    """(gold, submitted) sentence pairs for the annotated gold sentences, which must be returned unchanged.

    The message names the first differing line of the whole file, annotated or not, so that it does not tell
    which sentences of scenario 1 are the scored ones.
    """
    differing = [index for index, text in enumerate(gold.texts)
                 if index >= len(submitted.texts) or submitted.texts[index] != text]
    if differing:
        first = differing[0]
        if first >= len(submitted.texts):
            problem = ("%s has %d sentences where the given sentence file has %d"
                       % (name, len(submitted.texts), len(gold.texts)))
        else:
            problem = ("%s, line %d: the sentence differs from line %d of the given sentence file (%d line%s differ"
                       " or are missing in all)" % (name, first + 1, first + 1, len(differing),
                                                     "" if len(differing) == 1 else "s"))
        if set(differing) & set(annotated):
            raise SubmissionError(problem + "; return every sentence unchanged, one per line, in the given order")
        notes.append("Warning: %s; those sentences are not scored, so this does not change the scores" % problem)
    if len(submitted.texts) > len(gold.texts):
        notes.append("Note: %s has %d more lines than the given sentence file; they are ignored"
                     % (name, len(submitted.texts) - len(gold.texts)))
    crossing = submitted.cross_sentence_keyphrases
    if crossing:
        lines = ", ".join(str(line) for line in crossing[:5]) + (", ..." if len(crossing) > 5 else "")
        notes.append("Note: %d key phrase%s of %s reach%s past the sentence where %s first span starts (line%s %s); "
                     "as the official scorer does, %s kept as written and match%s no gold key phrase"
                     % (len(crossing), "" if len(crossing) == 1 else "s", submitted_a_name(name),
                        "es" if len(crossing) == 1 else "", "its" if len(crossing) == 1 else "their",
                        "" if len(crossing) == 1 else "s", lines, "it is" if len(crossing) == 1 else "they are",
                        "es" if len(crossing) == 1 else ""))
    if submitted.cross_sentence_relations:
        notes.append("Note: relations between key phrases of different sentences are ignored (%d in %s)"
                     % (submitted.cross_sentence_relations, name))
    return [(gold.sentence(index), submitted.sentence(index)) for index in annotated]


def submitted_a_name(sentences_name):
    """output_a_scenarioN.txt beside the given output_scenarioN.txt (the name used in messages)."""
    folder, _, base = sentences_name.rpartition("/")
    return (folder + "/" if folder else "") + base.replace("output_", "output_a_", 1).replace("input_", "output_a_", 1)


def _sentence_counts(number, matches):
    """(key-phrase counts, relation counts) of each sentence, zero for the kind the scenario does not score."""
    zero = Counts()
    return [(keyphrase_counts(match) if number in (1, 2) else zero,
             relation_counts(match) if number in (1, 3) else zero) for match in matches]


def score(ref_dir, res_dir):
    gold_files = find_scenarios(ref_dir, ReferenceDataError, "reference data")
    if not gold_files:
        raise ReferenceDataError("the reference data holds no scenario files; expected %s" % expected_layout())
    submitted_files = find_scenarios(res_dir, SubmissionError, "submission")
    if not submitted_files:
        raise SubmissionError("the submission holds no scenario files; expected at the root of the zip %s"
                              % expected_layout())
    notes = []
    outcomes = []
    rows = None  # scenario 1's sentences, when it is scored
    scores = []
    for number, folder in SCENARIOS:
        counts, matches = None, []
        if number not in gold_files:
            status = "not in this phase"
        elif number not in submitted_files:
            status = "not submitted"
        else:
            gold = _load_gold(gold_files[number])
            annotated = gold.annotated()
            files = submitted_files[number]
            submitted = _load_submission(files, set(annotated))
            pairs = _pair_sentences(gold, annotated, submitted, files.names["sentences"], notes)
            matches = [match_sentence(g, s) for g, s in pairs]
            per_sentence = _sentence_counts(number, matches)
            counts = sum((phrases + relations for phrases, relations in per_sentence), Counts())
            if number == 1:
                # What the per-sentence figures need, kept instead of the matches: at scale these are hundreds of
                # thousands of objects, which the collector would walk through once it is on again.
                rows = [(match.gold.line, match.gold.text, match.missing) + sentence
                        for match, sentence in zip(matches, per_sentence)]
            status = "%d sentences" % len(pairs)
            notes.append("Scenario %d: %d annotated sentences scored; C=%d I=%d P=%d M=%d S=%d"
                         % ((number, len(pairs)) + counts.as_tuple()))
        if counts is None:
            notes.append("Scenario %d: %s, scored 0" % (number, status))
        outcomes.append((number, folder, status, counts, matches))
        figures = (counts.f1(), counts.precision(), counts.recall()) if counts is not None else (0.0, 0.0, 0.0)
        scores.extend(zip(KEYS[number], figures))
    # The runtime shows the first page only when the reference data says its gold is public (trial, development).
    page_notes = [note for note in notes if note.startswith(("Note:", "Warning:"))]
    return Result(scores, ehealth_kd_report.build(TITLE, outcomes, True, page_notes), notes,
                  hidden_gold_html=ehealth_kd_report.build(TITLE, outcomes, False, page_notes),
                  items=(lambda: sentence_items(rows, KEYS[1][0])) if rows is not None else None)


if __name__ == "__main__":
    sys.exit(main(score, TITLE, program="ehealth-kd"))
