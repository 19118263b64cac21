"""Generic kind text: hand-computed edge cases (SQuAD normalization and no-answer rule, BLEU, chrF, ROUGE), file
formats, bad input; oracles to 1e-9: sacrebleu (corpus_bleu, corpus_chrf), rouge-score, and the official SQuAD
v1.1/v2.0 evaluation scripts (run from a fetched mirror), on synthetic and real public data (WMT17 en-de from
sacreBLEU's repository, 500 SQuAD 2.0 dev questions), skipped when the mirrors are absent."""
import json
import math
import random
import subprocess
import sys

import pytest
import sacrebleu
from rouge_score import rouge_scorer

from conftest import load_program
from generic_support import GENERIC, Runner
import text_mirrors

sys.path.insert(0, str(GENERIC))
import generic_text_metrics as metrics  # noqa: E402

PROGRAM = load_program("generic")
ALL = ["exact_match", "f1", "bleu", "chrf", "rouge1", "rouge2", "rouge_l"]
EPS = 1e-9


@pytest.fixture
def run(tmp_path):
    return Runner(tmp_path)


def gold_json(obj):
    return {"gold.json": json.dumps(obj)}


def pred_json(obj):
    return {"predictions.json": json.dumps(obj)}


def scores(run, gold, pred, keys=ALL, **config):
    result = run(dict({"kind": "text", "keys": keys}, **config), gold_json(gold), pred_json(pred))
    assert result.returncode == 0, result.stderr
    return result.scores


# ---------------------------------------------------------------------------------------------------------------
# Hand-computed


def test_worked_example(run):
    """The card's example: "A cat sat." = "the cat sat" after normalization; "Paris, France" against "Paris" has F1
    2/3 (against "the city of Paris" 2/5); "none" on a no-answer item scores 0."""
    got = scores(run, {"1": "the cat sat", "2": ["Paris", "the city of Paris"], "3": ""},
                 {"1": "A cat sat.", "2": "Paris, France", "3": "none"}, ["exact_match", "f1"])
    assert got == pytest.approx({"exact_match": 1 / 3, "f1": 5 / 9}, abs=1e-15)


@pytest.mark.parametrize("references, prediction, exact, f1", [
    ([""], "", 1, 1),                      # no-answer item, empty prediction: right
    ([""], "nothing", 0, 0),               # no-answer item, an answer: wrong
    ([], "", 1, 1),                        # an empty list of references is a no-answer item
    (["the"], "", 1, 1),                   # every reference empty after normalization: a no-answer item
    (["the"], "a", 1, 1),                  # ... and a prediction empty after normalization is empty
    (["the", "big cat"], "", 0, 0),        # SQuAD 2.0 drops references that normalize to nothing
    (["cat"], "", 0, 0),                   # an empty prediction on an answerable item
    (["red fox", "the fox", "a fox jumps"], "Fox!", 1, 1),  # equal to one of several references
    (["red fox", "fox jumps over"], "fox", 0, 2 / 3),     # the best F1: 2/3 against "red fox", 1/2 against the other
    (["New York City"], "york new", 0, 0.8),  # bag of words: P 1, R 2/3
    (["a b a"], "a", 0, 0),                # "a" is an article: both normalize to "b" and ""
    (["x y x"], "x x x", 0, 2 / 3),        # multiset: common 2, P 2/3, R 2/3
])
def test_squad_rules(run, references, prediction, exact, f1):
    got = scores(run, {"q": references}, {"q": prediction}, ["exact_match", "f1"])
    assert got == pytest.approx({"exact_match": exact, "f1": f1}, abs=1e-15)


@pytest.mark.parametrize("normalize, references, prediction, exact, f1", [
    ({"lowercase": False}, ["Cat"], "cat", 0, 0),
    ({"lowercase": False}, ["The cat"], "cat", 0, 2 / 3),  # "The" is no article when case is kept
    ({"punctuation": False}, ["cat"], "cat.", 0, 0),
    ({"articles": False}, ["the cat"], "cat", 0, 2 / 3),
    ({"articles": ["der", "die", "das"]}, ["der Hund"], "Hund", 1, 1),
    ({"articles": ["der", "die", "das"]}, ["the dog"], "dog", 0, 2 / 3),
    ({"whitespace": False}, ["the cat"], "cat", 0, 1),     # " cat" != "cat", but the same words
    # German quotation marks and a dash are no ASCII punctuation: kept by default, so "„stadt“" is one token ...
    ({}, ["„Stadt“ – Land"], "Stadt Land", 0, 0.4),  # "land" in common: P 1/2, R 1/3 ("„stadt“", "–", "land")
    # ... removed with "unicode" (MLQA): "stadt land" on both sides
    ({"punctuation": "unicode"}, ["„Stadt“ – Land"], "Stadt Land", 1, 1),
    ({"punctuation": "unicode"}, ["¿Qué?"], "qué", 1, 1),
    ({"punctuation": "unicode"}, ["५ रुपये।"], "५ रुपये", 1, 1),  # the Devanagari danda (Po)
    ({"punctuation": "unicode"}, ["5$ + 3"], "5 3", 1, 1),  # ASCII punctuation's symbols ($, +) still removed
    ({"punctuation": "unicode"}, ["5 € × 3"], "5 3", 0, 2 / 3),  # € × are symbols (Sc, Sm): P 1, R 2/4
    ({"punctuation": "unicode", "articles": ["der", "die", "das"]}, ["„Der Hund“"], "Hund", 1, 1),
])
def test_normalization_steps_can_be_changed(run, normalize, references, prediction, exact, f1):
    got = scores(run, {"q": references}, {"q": prediction}, ["exact_match", "f1"], normalize=normalize)
    assert got == pytest.approx({"exact_match": exact, "f1": f1}, abs=1e-15)


@pytest.mark.parametrize("reference, hypothesis, expected", [
    # precisions 5/6, 3/5, 2/4, 1/3, lengths equal: (1/12) ** (1/4)
    ("the cat sat on a mat", "the cat sat on the mat", 100 * (1 / 12) ** 0.25),
    # every precision 1, c = 4 < r = 6: brevity penalty exp(1 - 6/4)
    ("the cat sat on the mat", "the cat sat on", 100 * math.exp(-0.5)),
    # no n-gram matches at all: 0
    ("e f g h", "a b c d", 0.0),
    # 3/4, 1/3, then no 3-gram match: 100/(2 * 2), no 4-gram match: 100/(4 * 1) ('exp' smoothing)
    ("a b x d", "a b c d", 100 * (3 / 4 * 1 / 3 * 1 / 4 * 1 / 4) ** 0.25),
    # 13a splits off the period, and a comma only when not between digits: the same 5 tokens
    ("He paid 1,000 dollars.", "He paid 1,000 dollars .", 100.0),
    # 7 tokens against 5: 1-grams 4/7, 2-grams 2/6, then no match: 100/(2 * 5) and 100/(4 * 4); no penalty
    ("He paid 1,000 dollars.", "He paid 1 , 000 dollars.", 100 * (4 / 7 * 2 / 6 * 1 / 10 * 1 / 16) ** 0.25),
    # no 3-gram in the hypothesis: that order's precision is 0, so BLEU is 0 (sacreBLEU without effective order)
    ("the cat", "the cat", 0.0),
])
def test_bleu_by_hand(run, reference, hypothesis, expected):
    got = scores(run, {"1": reference}, {"1": hypothesis}, ["bleu"])
    assert got["bleu"] == pytest.approx(expected, abs=1e-12)
    assert got["bleu"] == sacrebleu.corpus_bleu([hypothesis], [[reference]]).score


def test_bleu_takes_the_closest_reference_length_and_clips_by_the_most_any_reference_has(run):
    # hypothesis 5 tokens; references of 4 and 6 tokens: equally close, the shorter (4) counts, so no penalty;
    # "the the the the the": clipped at 2 (the second reference has 2), 1-gram precision 2/5
    stats = metrics.bleu_stats(["the cat is here", "the cat and the dog ran"], "the the the the the")
    assert stats[:2] == [5, 4] and stats[2] == 2 and stats[6] == 5


@pytest.mark.parametrize("reference, hypothesis, expected", [
    ("ab", "ab", 100.0),
    # 1-grams: P = R = 1/2; 2-grams "ab"/"ac": 0; orders 3-6 absent: average over 2 orders, P = R = 1/4, F = 1/4
    ("ac", "ab", 25.0),
    ("a b", "ab", 100.0),                  # whitespace is removed
    ("", "abc", 0.0),
    ("", "", 0.0),
])
def test_chrf_by_hand(run, reference, hypothesis, expected):
    got = scores(run, {"1": reference}, {"1": hypothesis}, ["chrf"])
    assert got["chrf"] == pytest.approx(expected, abs=1e-12)
    assert got["chrf"] == sacrebleu.corpus_chrf([hypothesis], [[reference]]).score


def test_rouge_by_hand(run):
    # gold 6 words, prediction 5, unigram overlap 5: F = 2 (1)(5/6)/(1 + 5/6) = 10/11; bigrams 3 of 4 and of 5:
    # P 3/4, R 3/5, F 2/3; LCS 5: 10/11. An empty prediction and reference score 0, as in rouge-score.
    got = scores(run, {"1": "The cat sat on the mat.", "2": ""}, {"1": "the cat on the mat", "2": ""},
                 ["rouge1", "rouge2", "rouge_l"])
    assert got == pytest.approx({"rouge1": 5 / 11, "rouge2": 1 / 3, "rouge_l": 5 / 11}, abs=1e-15)


def test_rouge_takes_the_best_reference(run):
    got = scores(run, {"1": ["x y z", "cat sat"]}, {"1": "the cat sat"}, ["rouge1"])
    assert got["rouge1"] == pytest.approx(0.8, abs=1e-15)   # "cat sat": P 2/3, R 1


def test_lcs_length_matches_the_table():
    rng = random.Random(4)
    for _ in range(300):
        a = [rng.choice("abcd") for _ in range(rng.randint(0, 12))]
        b = [rng.choice("abcd") for _ in range(rng.randint(0, 12))]
        table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
        for i in range(1, len(a) + 1):
            for j in range(1, len(b) + 1):
                table[i][j] = (table[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1]
                               else max(table[i - 1][j], table[i][j - 1]))
        assert metrics.lcs_length(a, b) == table[-1][-1]


# ---------------------------------------------------------------------------------------------------------------
# Files


SQUAD = {"version": "v2.0", "data": [{"title": "T", "paragraphs": [{"context": "The cat sat on the mat.", "qas": [
    {"id": "a1", "question": "Who sat?", "answers": [{"text": "The cat", "answer_start": 0},
                                                    {"text": "cat", "answer_start": 4}]},
    {"id": "a2", "question": "Who flew?", "answers": [], "is_impossible": True,
     "plausible_answers": [{"text": "cat", "answer_start": 4}]}]}]}]}


def test_squad_dataset_gold(run):
    result = run({"kind": "text", "reference": "dev.json"}, {"dev.json": json.dumps(SQUAD)},
                 pred_json({"a1": "a cat", "a2": ""}))
    assert result.returncode == 0, result.stderr
    assert result.scores["exact_match"] == 1.0 and result.scores["f1"] == 1.0
    assert "scored 2 ids (1 of them no-answer items)" in result.stdout


def test_csv_gold_rows_of_one_id_are_its_references_and_tsv_works(run):
    gold = "id,source,answer\n1,Le chat,the cat\n1,Le chat,a cat\n2,Bonjour,hello\n"
    result = run({"kind": "text", "reference": "gold.csv", "submission": "predictions.tsv", "keys": ["exact_match"],
                  "normalize": {"articles": False}},
                 {"gold.csv": gold}, {"predictions.tsv": "id\tprediction\n1\ta cat\n2\thi\n"})
    assert result.returncode == 0, result.stderr
    assert result.scores == {"exact_match": 0.5}
    tsv = gold.replace(",", "\t")
    result = run({"kind": "text", "reference": "gold.tsv", "submission": "predictions.csv", "keys": ["bleu"]},
                 {"gold.tsv": tsv}, {"predictions.csv": "id,prediction\n2,hello\n1,\"the cat, too\"\n"})
    assert result.returncode == 0, result.stderr
    assert result.scores["bleu"] == sacrebleu.corpus_bleu(["the cat, too", "hello"],
                                                          [["the cat", "hello"], ["a cat", None]]).score
    assert "nrefs:var|case:mixed|eff:no|tok:13a|smooth:exp|version:generic-text-" in result.stdout


@pytest.mark.parametrize("res, message", [
    ('{"1": "a", "2": 3}', "predictions.json, id '2': the prediction must be a string (\"\" for no answer), found a "
                           "number"),
    ('{"1": "a", "2": null}', "found null"),
    ('{"1": "a", "2": ["b"]}', "found a list"),
    ('{"1": "a", "2": "b", "9": "c"}', "predictions.json: id '9' is not an id of this phase"),
    ('{"1": "a"}', "predictions.json has no prediction for 1 of the 2 ids ('2')"),
    ('{"1": "a", "2": "b",}', "predictions.json, line 1, column 21: not valid JSON"),
    ('{"1": "a", "2": "b", "1": "c"}', "predictions.json: id '1' is given more than once"),
    ('{"1": "a", "01": "b"}', "predictions.json: id '01' is given more than once"),
    ('["a", "b"]', "predictions.json must hold a JSON object {id: predicted text}, found a list"),
])
def test_bad_submissions_get_one_line(run, res, message):
    result = run({"kind": "text"}, gold_json({"1": "secret gold", "2": ["hidden"]}), {"predictions.json": res})
    assert result.returncode == 1 and result.scores is None
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert "Traceback" not in result.stderr and "secret" not in result.stderr and "hidden" not in result.stderr


def test_bad_csv_submission_names_the_line(run):
    result = run({"kind": "text", "submission": "p.csv"}, gold_json({"1": "x", "2": "y"}),
                 {"p.csv": "id,prediction\n1,a\n1,b\n"})
    assert result.returncode == 1
    assert "p.csv, line 3: id '1' is given twice, on lines 2 and 3" in result.stderr


@pytest.mark.parametrize("gold, message", [
    ('{"1": 5}', "reference file gold.json, id '1': the reference must be a string or a list of strings, found a "
                 "number"),
    ('{"1": ["x", 2]}', "found a list"),
    ('[]', "must hold a JSON object {id: reference text or [reference texts]} or a SQuAD dataset"),
    ('{"data": [{"paragraphs": [{"qas": [{"id": "q", "answers": [{"txt": "x"}]}]}]}]}',
     "data[0].paragraphs[0].qas[0] (id 'q'): \"answers\" must be a list of objects with a \"text\" string"),
])
def test_bad_gold_is_an_organizers_error_without_gold_text(run, gold, message):
    result = run({"kind": "text"}, {"gold.json": gold}, pred_json({"1": "x"}))
    assert result.returncode != 0 and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_config_checks_normalize():
    from generic_config import check_config
    assert check_config({"kind": "text", "normalize": {"articles": ["der", "die"], "lowercase": False}}) == []
    assert check_config({"kind": "text", "normalize": {"stem": True}}) == [
        'normalize has no step "stem" (steps: lowercase, punctuation, articles, whitespace)']
    assert "normalize.articles must be true, false or a non-empty list" in check_config(
        {"kind": "text", "normalize": {"articles": []}})[0]
    assert check_config({"kind": "text", "normalize": {"whitespace": "yes"}}) == [
        'normalize.whitespace must be true or false, found "yes"']
    assert check_config({"kind": "text", "normalize": {"punctuation": "unicode"}}) == []
    assert check_config({"kind": "text", "normalize": {"punctuation": "ascii"}}) == [
        'normalize.punctuation must be true or false or "unicode", found "ascii"']
    assert check_config({"kind": "text", "normalize": {"whitespace": "unicode"}}) == [
        'normalize.whitespace must be true or false, found "unicode"']
    assert "must end in .json or .csv or .tsv" in check_config({"kind": "text", "submission": "p.txt"})[0]


# ---------------------------------------------------------------------------------------------------------------
# Per-item statistics: additive, so that a resample recomputes the corpus score exactly


def _score_in_process(tmp_path, monkeypatch, config, ref, res):
    for folder, files in (("ref", ref), ("res", res)):
        (tmp_path / folder).mkdir(exist_ok=True)
        for name, text in files.items():
            (tmp_path / folder / name).write_text(text, encoding="utf-8")
    (tmp_path / "scoring.json").write_text(json.dumps(config))
    monkeypatch.setenv("GENERIC_SCORING_CONFIG", str(tmp_path / "scoring.json"))
    return PROGRAM.score(str(tmp_path / "ref"), str(tmp_path / "res"))


def _corpus(rng, n):
    words = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran", "Paris", "1.5", ",", ".", "x-y", "'s"]
    refs = [[" ".join(rng.choice(words) for _ in range(rng.randint(0, 9))) for _ in range(rng.randint(1, 3))]
            for _ in range(n)]
    hyps = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 9))) for _ in range(n)]
    return refs, hyps


def _streams(refs, indexes):
    width = max(len(refs[i]) for i in indexes)
    return [[refs[i][k] if k < len(refs[i]) else None for i in indexes] for k in range(width)]


@pytest.mark.parametrize("key", ALL)
def test_items_sum_to_the_score_and_a_resample_is_scored_exactly(key, tmp_path, monkeypatch):
    rng = random.Random(7)
    refs, hyps = _corpus(rng, 40)
    ids = ["s%d" % i for i in range(40)]
    result = _score_in_process(tmp_path, monkeypatch, {"kind": "text", "keys": [key]},
                               gold_json(dict(zip(ids, refs))), pred_json(dict(zip(ids, hyps))))
    items = result.items
    assert (items.key, len(items), items.unit) == (key, 40, "item")
    assert items.score() == dict(result.scores)[key]
    draw = [rng.randrange(40) for _ in range(40)]  # with repeats
    totals = {}
    for i in draw:
        for name, value in items.stats[i].items():
            totals[name] = totals.get(name, 0) + value
    resampled = items.finish(totals)
    if key == "bleu":
        assert resampled == sacrebleu.corpus_bleu([hyps[i] for i in draw], _streams(refs, draw)).score
    elif key == "chrf":
        assert resampled == sacrebleu.corpus_chrf([hyps[i] for i in draw], _streams(refs, draw)).score
    else:
        values = [metrics.squad_scores(metrics.squad_gold(refs[i], metrics.Normalizer()), hyps[i],
                                       metrics.Normalizer())[0 if key == "exact_match" else 1]
                  if key in ("exact_match", "f1") else metrics.rouge_scores(refs[i], hyps[i], [key])[key]
                  for i in draw]
        assert resampled == pytest.approx(math.fsum(values) / 40, abs=1e-15)


def test_items_verdicts_and_details(tmp_path, monkeypatch):
    result = _score_in_process(tmp_path, monkeypatch, {"kind": "text", "keys": ["f1"]},
                               gold_json({"1": "cat", "2": "big dog", "3": ""}),
                               pred_json({"1": "the cat", "2": "dog", "3": "x"}))
    assert result.items.verdicts == ["right", "partly", "wrong"]
    assert result.items.details[1] == "predicted 'dog'; reference 'big dog'"
    assert result.items.details[2] == "predicted 'x'; no answer (an empty text)"


# ---------------------------------------------------------------------------------------------------------------
# Oracles on synthetic corpora: sacrebleu and rouge-score, bit for bit (asserted to 1e-9)


def test_synthetic_corpora_against_sacrebleu_and_rouge_score(run):
    rng = random.Random(11)
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    for trial in range(6):
        n = rng.randint(1, 25)
        refs, hyps = _corpus(rng, n)
        ids = [str(i) for i in range(n)]
        got = scores(run, dict(zip(ids, refs)), dict(zip(ids, hyps)), ["bleu", "chrf", "rouge1", "rouge2", "rouge_l"])
        streams = _streams(refs, range(n))
        assert abs(got["bleu"] - sacrebleu.corpus_bleu(hyps, streams).score) <= EPS
        assert abs(got["chrf"] - sacrebleu.corpus_chrf(hyps, streams).score) <= EPS
        multi = [scorer.score_multi(r, h) for r, h in zip(refs, hyps)]
        for ours, theirs in (("rouge1", "rouge1"), ("rouge2", "rouge2"), ("rouge_l", "rougeL")):
            assert abs(got[ours] - math.fsum(m[theirs].fmeasure for m in multi) / n) <= EPS


def test_13a_tokenizer_on_every_ascii_character():
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    tokenizer = Tokenizer13a()
    rng = random.Random(3)
    alphabet = [chr(c) for c in range(32, 127)] + ["\n", "\t", "é", "&amp;", "&quot;", "-\n", "<skipped>", "3.5"]
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 25)))
        assert metrics.tokenize_13a(text) == tokenizer(text.rstrip()).split(), repr(text)


# ---------------------------------------------------------------------------------------------------------------
# Real data: WMT17 newstest2017 en-de (sacreBLEU's repository), SQuAD 2.0 dev questions and the official scripts


@pytest.fixture(scope="module")
def wmt17():
    data, why = text_mirrors.wmt17()
    if data is None:
        pytest.skip(why)
    return data


def test_wmt17_systems_against_sacrebleu_and_rouge_score(wmt17, run):
    systems, reference = wmt17
    ids = [str(i + 1) for i in range(len(reference))]
    gold = {"gold.csv": "id,answer\n" + "".join('%s,"%s"\n' % (i, r.replace('"', '""'))
                                                  for i, r in zip(ids, reference))}
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    for number, name in enumerate(sorted(systems)[:2]):
        output = systems[name]
        config = {"kind": "text", "reference": "gold.csv", "keys": ["bleu", "chrf", "rouge1", "rouge2", "rouge_l"]}
        result = run(config, gold, pred_json(dict(zip(ids, output))))
        assert result.returncode == 0, result.stderr
        assert abs(result.scores["bleu"] - sacrebleu.corpus_bleu(output, [reference]).score) <= EPS, name
        assert abs(result.scores["chrf"] - sacrebleu.corpus_chrf(output, [reference]).score) <= EPS, name
        if number == 0:  # rouge-score is slow: one system
            multi = [scorer.score(r, h) for r, h in zip(reference, output)]
            for ours, theirs in (("rouge1", "rouge1"), ("rouge2", "rouge2"), ("rouge_l", "rougeL")):
                assert abs(result.scores[ours] - math.fsum(m[theirs].fmeasure for m in multi) / len(ids)) <= EPS
    assert "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:generic-text-" in result.stdout
    assert "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:generic-text-" in result.stdout


def test_wmt17_two_references_against_sacrebleu(wmt17, run):
    """Two systems' outputs as the two references of a third: multiple references, sacreBLEU's way."""
    systems, reference = wmt17
    names = sorted(systems)
    ids = [str(i) for i in range(len(reference))]
    refs = [list(pair) for pair in zip(reference, systems[names[1]])]
    output = systems[names[2]]
    result = run({"kind": "text", "keys": ["bleu", "chrf"]}, gold_json(dict(zip(ids, refs))),
                 pred_json(dict(zip(ids, output))))
    assert abs(result.scores["bleu"] - sacrebleu.corpus_bleu(output, [reference, systems[names[1]]]).score) <= EPS
    assert abs(result.scores["chrf"] - sacrebleu.corpus_chrf(output, [reference, systems[names[1]]]).score) <= EPS


@pytest.fixture(scope="module")
def squad_sample():
    """(SQuAD 2.0 dataset of the 500 sampled dev questions, predictions of a deterministic synthetic system)."""
    found = []
    for path in ("squad2/ground_truth.json", "squad2/queries.json"):
        data, why = text_mirrors.read("squad2", path)
        if data is None:
            pytest.skip(why)
        found.append(json.loads(data.decode("utf-8")))
    truth, queries = found
    rng = random.Random(2018)
    paragraphs, predictions = [], {}
    for query in queries["queries"]:
        qid, context = query["id"], query["context"]
        answers = [a for a in truth[qid]["answers"] if not truth[qid]["is_impossible"]]
        paragraphs.append({"context": context, "qas": [{"id": qid, "question": query["question"], "answers": [
            {"text": a, "answer_start": max(context.find(a), 0)} for a in answers if a]}]})
        words = context.split()
        start = rng.randrange(len(words))
        choice = rng.random()
        if answers and choice < 0.35:
            predictions[qid] = rng.choice(answers)
        elif answers and choice < 0.55:
            predictions[qid] = rng.choice(answers) + " " + rng.choice(words)
        elif choice < 0.7:
            predictions[qid] = ""
        else:
            predictions[qid] = " ".join(words[start:start + rng.randint(1, 6)])
    return {"version": "v2.0", "data": [{"title": "sample", "paragraphs": paragraphs}]}, predictions


def _official(script, dataset, predictions, tmp_path):
    code, why = text_mirrors.read("squad_scripts", script)
    if code is None:
        pytest.skip(why)
    (tmp_path / script).write_bytes(code)
    (tmp_path / "data.json").write_text(json.dumps(dataset))
    (tmp_path / "pred.json").write_text(json.dumps(predictions))
    proc = subprocess.run([sys.executable, script, "data.json", "pred.json"], cwd=str(tmp_path),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_squad2_sample_against_the_official_v2_script(squad_sample, run, tmp_path):
    dataset, predictions = squad_sample
    official = _official("evaluate-v2.0.py", dataset, predictions, tmp_path)
    assert official["total"] == 500 and 0 < official["NoAns_total"] < 500
    result = run({"kind": "text", "reference": "dev-v2.0.json", "keys": ["exact_match", "f1"]},
                 {"dev-v2.0.json": json.dumps(dataset)}, pred_json(predictions))
    assert result.returncode == 0, result.stderr
    assert abs(result.scores["exact_match"] - official["exact"] / 100) <= EPS
    assert abs(result.scores["f1"] - official["f1"] / 100) <= EPS
    assert "(%d of them no-answer items)" % official["NoAns_total"] in result.stdout


def test_squad_answerable_questions_against_the_official_v1_1_script(squad_sample, run, tmp_path):
    """v1.1 keeps a reference that normalizes to nothing (the sample has one: "."), so an empty prediction matches
    it; v2.0, which this kind follows, drops it. Elsewhere the two scripts agree, and so does this kind."""
    dataset, predictions = squad_sample
    normalize = metrics.Normalizer()
    paragraphs = [p for p in dataset["data"][0]["paragraphs"] if p["qas"][0]["answers"]]
    v11 = {"version": "1.1", "data": [{"title": "sample", "paragraphs": paragraphs}]}
    kept = dict((p["qas"][0]["id"], predictions[p["qas"][0]["id"]]) for p in paragraphs)
    official = _official("evaluate-v1.1.py", v11, kept, tmp_path)
    result = run({"kind": "text", "reference": "dev-v1.1.json", "keys": ["exact_match", "f1"]},
                 {"dev-v1.1.json": json.dumps(v11)}, pred_json(kept))
    disagree = [p["qas"][0]["id"] for p in paragraphs
                if any(not normalize(a["text"]) for a in p["qas"][0]["answers"])
                and not normalize(kept[p["qas"][0]["id"]])]
    assert len(disagree) == 1  # the sample's "." reference, with an empty prediction
    assert abs(result.scores["exact_match"] - (official["exact_match"] / 100 - 1 / len(kept))) <= EPS
    assert abs(result.scores["f1"] - official["f1"] / 100) <= EPS  # v1.1's F1 of two empty texts is 0 too


def test_hand_made_edge_cases_against_the_official_v2_script(run, tmp_path):
    """No-answer items, references that normalize to nothing, several references, punctuation and articles."""
    cases = [([], ""), ([], "x"), (["the"], ""), (["the", "A cat"], ""), (["cat", "a big cat"], "big cat!"),
             (["Über-Straße"], "über straße"), (["x y x"], "x x x"), (["42"], "the 42."), (["an apple"], "apple")]
    qas = [{"id": "q%d" % i, "question": "?", "answers": [{"text": a, "answer_start": 0} for a in answers]}
           for i, (answers, _) in enumerate(cases)]
    dataset = {"version": "v2.0", "data": [{"title": "t", "paragraphs": [{"context": "c", "qas": qas}]}]}
    predictions = dict(("q%d" % i, p) for i, (_, p) in enumerate(cases))
    official = _official("evaluate-v2.0.py", dataset, predictions, tmp_path)
    result = run({"kind": "text", "reference": "d.json", "keys": ["exact_match", "f1"]},
                 {"d.json": json.dumps(dataset)}, pred_json(predictions))
    assert abs(result.scores["exact_match"] - official["exact"] / 100) <= EPS
    assert abs(result.scores["f1"] - official["f1"] / 100) <= EPS


# ---------------------------------------------------------------------------------------------------------------
# MLQA's evaluation: Unicode punctuation and the answer language's articles, on XQuAD

MLQA_ARTICLES = {"de": ["ein", "eine", "einen", "einem", "eines", "einer", "der", "die", "das", "den", "dem", "des"],
                 "es": ["un", "una", "unos", "unas", "el", "la", "los", "las"], "hi": False, "en": True,
                 "vi": ["của", "là", "cái", "chiếc", "những"]}


def _xquad_predictions(dataset, seed):
    """Deterministic predictions: the first answer as it is, in German/typographic quotation marks, with a dash and
    a word of the context added, cut to its first word, empty, or a span of the context."""
    rng = random.Random(seed)
    predictions = {}
    for article in dataset["data"]:
        for paragraph in article["paragraphs"]:
            words = paragraph["context"].split()
            for qa in paragraph["qas"]:
                answer = qa["answers"][0]["text"]
                choice = rng.random()
                if choice < 0.3:
                    text = answer
                elif choice < 0.5:
                    text = rng.choice(("„%s“", "«%s»", "“%s”", "%s.", "(%s)")) % answer
                elif choice < 0.6:
                    text = "%s – %s" % (answer, rng.choice(words))
                elif choice < 0.75:
                    text = answer.split()[0]
                elif choice < 0.8:
                    text = ""
                else:
                    start = rng.randrange(len(words))
                    text = " ".join(words[start:start + rng.randint(1, 5)])
                predictions[qa["id"]] = text
    return predictions


@pytest.mark.parametrize("language", ["de", "es", "hi", "en", "vi"])
def test_xquad_against_the_official_mlqa_script(run, tmp_path, language):
    """MLQA's normalization for de, es, hi, en, vi is lowercase, remove every Unicode punctuation character (and
    ASCII punctuation), remove the language's articles (vi: five frequent words) as whole words, split at whitespace:
    "punctuation": "unicode" and the articles reproduce its EM and F1 to 1e-9 on XQuAD; with ASCII punctuation (the
    default) the figures differ."""
    data, why = text_mirrors.read("xquad", "xquad.%s.json" % language)
    if data is None:
        pytest.skip(why)
    code, why = text_mirrors.read("mlqa_script", "mlqa_evaluation_v1.py")
    if code is None:
        pytest.skip(why)
    dataset = json.loads(data.decode("utf-8"))
    predictions = _xquad_predictions(dataset, 39)
    (tmp_path / "mlqa.py").write_bytes(code)
    (tmp_path / "data.json").write_text(json.dumps(dataset), encoding="utf-8")
    (tmp_path / "pred.json").write_text(json.dumps(predictions), encoding="utf-8")
    proc = subprocess.run([sys.executable, "mlqa.py", "data.json", "pred.json", language], cwd=str(tmp_path),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    assert proc.returncode == 0, proc.stderr
    official = json.loads(proc.stdout)
    assert len(predictions) == 1190
    keys = ["exact_match", "f1"]
    files = {"xquad.json": json.dumps(dataset)}
    mlqa = run({"kind": "text", "reference": "xquad.json", "keys": keys,
                "normalize": {"punctuation": "unicode", "articles": MLQA_ARTICLES[language]}}, files,
               pred_json(predictions))
    assert mlqa.returncode == 0, mlqa.stderr
    assert abs(mlqa.scores["exact_match"] - official["exact_match"] / 100) <= EPS
    assert abs(mlqa.scores["f1"] - official["f1"] / 100) <= EPS
    ascii_only = run({"kind": "text", "reference": "xquad.json", "keys": keys,
                      "normalize": {"articles": MLQA_ARTICLES[language]}}, files, pred_json(predictions))
    assert ascii_only.scores["exact_match"] < mlqa.scores["exact_match"] - 0.01  # „...“, «...» are not removed


def test_a_json_run_is_read_id_by_id_and_refused_at_the_first_bad_one(run):
    """An unknown id near the start of a 3 MB predictions.json is the message, although the file stops being
    UTF-8 at its end (read whole first, that would be the message)."""
    body = '{"1": "a", "9": "b", ' + ", ".join('"x%d": "c"' % i for i in range(300000))
    result = run({"kind": "text"}, gold_json({"1": "secret gold", "2": "hidden"}),
                 {"predictions.json": body.encode("utf-8") + b', "\xff": ""}'})
    assert result.returncode == 1 and result.scores is None
    assert result.stderr.strip() == "Submission error: predictions.json: id '9' is not an id of this phase"
