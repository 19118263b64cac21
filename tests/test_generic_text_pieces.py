"""Generic kind text, a prediction read in pieces (generic_text_metrics.pieces): hand-computed statistics of texts cut
into many pieces (n-grams and an LCS across the cuts, clipping, a hypothesis longer than its reference), what one
item keeps while it is scored (its statistics, not its tokens), the long texts of a real run against sacrebleu and
rouge-score, and how the page shows a long prediction."""
import json
import sys

import pytest
import sacrebleu
from rouge_score import rouge_scorer

from generic_support import GENERIC, Runner

sys.path.insert(0, str(GENERIC))
import generic_text_metrics as metrics  # noqa: E402

EPS = 1e-9


@pytest.fixture
def run(tmp_path):
    return Runner(tmp_path)


def fed(item, text, size):
    """``item`` fed ``text`` in pieces of about ``size`` characters; (item, the pieces)."""
    parts = list(metrics.pieces(text, size=size))
    for part in parts:
        item.feed(part)
    return item, parts


# ---------------------------------------------------------------------------------------------------------------
# Pieces


def test_pieces_end_after_a_space_or_tab_and_join_to_the_text():
    text = "ab cd\tef\ngh  ijklmnop q"
    parts = list(metrics.pieces(text, size=4))
    assert "".join(parts) == text
    # each piece but the last ends just after a space or a tab; "ef\ngh " goes past 4 characters: a line break is
    # no cut, nor is the inside of "ijklmnop"
    assert parts == ["ab ", "cd\t", "ef\ngh ", " ", "ijklmnop ", "q"]
    assert list(metrics.pieces(text, end=8, size=4)) == ["ab ", "cd\t", "ef"]
    assert list(metrics.pieces("short text")) == ["short text"]


def test_stripped_end_is_the_length_of_the_right_stripped_text():
    for text in ("", "   ", "a", "a \n\t ", " a b  " + " " * 50, "x" * 30 + " " * 30 + "\u2003"):
        assert metrics.stripped_end(text, size=7) == len(text.rstrip())


# ---------------------------------------------------------------------------------------------------------------
# Hand-computed statistics, the text in many pieces


def test_bleu_of_a_hypothesis_longer_than_its_reference_clips_repeated_ngrams():
    """"the the the cat sat the cat" (7 tokens) against "the cat sat": unigrams the 4 (clipped to 1), cat 2 (1),
    sat 1: 3 matches; bigrams (the the) 2, (the cat) 2 (clipped to 1), (cat sat) 1, (sat the) 1: 2 matches; the
    trigram (the cat sat) once: 1; no 4-gram; totals 7, 6, 5, 4; the reference's length 3."""
    expected = [7, 3, 3, 2, 1, 0, 7, 6, 5, 4]
    hypothesis = "the the the cat sat the cat"
    assert metrics.bleu_stats(["the cat sat"], hypothesis) == expected
    for size in (1, 4, 13, 8):
        item, parts = fed(metrics.BleuItem(["the cat sat"]), hypothesis, size)
        assert item.result() == expected
    assert parts == ["the the ", "the cat ", "sat the ", "cat"]  # size 8: (the cat sat) spans two pieces


def test_bleu_ngrams_across_pieces_and_the_right_strip():
    """One 4-gram spread over four pieces; a hyphen before a line break at the end is kept (the text is
    right-stripped before "-" + line break is removed), as sacreBLEU does."""
    item, parts = fed(metrics.BleuItem(["a b c d"]), "a b c d", 2)
    assert parts == ["a ", "b ", "c ", "d"]
    assert item.result() == [4, 4, 4, 3, 2, 1, 4, 3, 2, 1]
    stats = metrics.bleu_stats(["a b c-"], "a b c-\n  ")
    assert stats == [3, 3, 3, 2, 1, 0, 3, 2, 1, 0]
    assert sacrebleu.corpus_bleu(["a b c-\n  "], [["a b c-"]]).sys_len == 3


def test_chrf_character_ngrams_across_pieces():
    """"ab ab" against "abab": white space removed, both are abab: per order 1-4 the n-grams a,b,a,b / ab,ba,ab /
    aba,bab / abab all match (4, 3, 2, 1); orders 5 and 6 the reference lacks."""
    expected = [4, 4, 4, 3, 3, 3, 2, 2, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    for size in (1, 3, 10):
        item, parts = fed(metrics.ChrfItem(["abab"]), "ab ab", size)
        assert item.result() == expected
    assert metrics.chrf_stats(["abab"], "ab ab") == expected


def test_rouge_bigram_and_lcs_across_pieces():
    """"b x a c d b" against "a b c d": ROUGE-1 overlap a b c d = 4, P 4/6, R 1, F 0.8; ROUGE-2: (c d) only, P 1/5,
    R 1/3, F 0.25; LCS 3 (a c d or b c d), P 1/2, R 3/4, F 0.6."""
    for size in (1, 2, 5, 100):
        item, _ = fed(metrics.RougeItem(["a b c d"]), "b x a c d b", size)
        assert item.result() == pytest.approx({"rouge1": 0.8, "rouge2": 0.25, "rouge_l": 0.6}, abs=1e-15)
    assert metrics.lcs_length(list("abcd"), list("bxacdb")) == 3


def test_squad_exact_match_and_f1_across_pieces():
    normalize = metrics.Normalizer()
    gold = metrics.squad_gold(["The cat sat"], normalize)
    for size in (1, 3, 6):
        item, parts = fed(metrics.SquadItem(gold, normalize), "A  cat\tsat. ", size)
        assert len(parts) > 1 and item.result() == (1.0, 1.0)
    # "cat sat cat sat": 4 tokens, 2 shared with "cat sat": P 1/2, R 1, F1 2/3
    item, _ = fed(metrics.SquadItem(gold, normalize), "cat sat cat sat", 2)
    assert item.result() == (0.0, pytest.approx(2 / 3, abs=1e-15))
    # an article with a space inside ("de la") may span pieces: that text is normalized whole
    normalize = metrics.Normalizer(articles=["de la"])
    item, parts = fed(metrics.SquadItem(metrics.squad_gold(["x y"], normalize), normalize), "x de la y", 2)
    assert parts == ["x ", "de ", "la ", "y"] and item.result() == (1.0, 1.0)


# ---------------------------------------------------------------------------------------------------------------
# What an item keeps


def _sizes(value, seen=None):
    """(the longest str, the longest list/tuple/dict/set) held by ``value`` and what it holds, walked."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return 0, 0
    seen.add(id(value))
    if isinstance(value, str):
        return len(value), 0
    if isinstance(value, dict):
        parts = list(value.keys()) + list(value.values())
        size = len(value)
    elif isinstance(value, (list, tuple, set, frozenset)):
        parts, size = list(value), len(value)
    elif hasattr(value, "__dict__") and not callable(value):
        parts, size = list(vars(value).values()), 0
    else:
        return 0, 0
    found = [_sizes(part, seen) for part in parts]
    return max([0] + [f[0] for f in found]), max([size] + [f[1] for f in found])


def test_an_item_keeps_statistics_not_the_tokens_of_its_text(monkeypatch):
    """A hypothesis of 20,000 distinct words fed in pieces of about 40 characters against a 3-word reference: what
    each measure keeps is bounded by the reference and one piece (the first piece's counts, the last tokens, the
    LCS row of 3 bits, the normalized text dropped once longer than the reference), not by the hypothesis."""
    monkeypatch.setattr(metrics, "PIECE", 40)
    references = ["cat sat w7"]
    hypothesis = " ".join("w%d" % i for i in range(20000)) + " cat sat"
    normalize = metrics.Normalizer()
    items = [metrics.SquadItem(metrics.squad_gold(references, normalize), normalize), metrics.BleuItem(references),
             metrics.ChrfItem(references), metrics.RougeItem(references)]
    for piece in metrics.pieces(hypothesis):
        for item in items:
            item.feed(piece)
    first = next(metrics.pieces(hypothesis))
    assert first == "w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 "
    for item in items:
        # at most the n-grams of the first piece (12 tokens, 4 orders: 42; 34 characters, 6 orders: 189) and the
        # reference's
        longest_text, largest = _sizes(item)
        assert longest_text <= 40 and largest <= 189 + 9, (type(item).__name__, longest_text, largest)
    squad, bleu, chrf, rouge = items
    first_grams = metrics._word_ngrams(first.split(), 4)
    assert set(bleu.counts) - set(first_grams) == {("cat",), ("sat",), ("cat", "sat")}
    assert set(squad.counts) - set(first.split()) == {"cat", "sat"}
    assert squad.normal is None and squad.length == 20002
    assert bleu.length == 20002 and bleu.tail == ["w19999", "cat", "sat"]
    assert chrf.size == len(hypothesis.replace(" ", "")) and chrf.tail == "atsat"
    assert all(row.row.bit_length() <= 3 for row in rouge.rows)
    assert squad.result() == (0.0, pytest.approx(2 * (3 / 20002) * 1 / (3 / 20002 + 1), abs=1e-15))
    assert bleu.result()[:2] == [20002, 3] and bleu.result()[2] == 3  # w7, cat and sat


# ---------------------------------------------------------------------------------------------------------------
# A run with long texts, against the reference implementations


def test_long_texts_of_many_pieces_against_sacrebleu_and_rouge_score(run):
    """Three predictions of about 620,000 characters (three pieces each) and a short one: BLEU and chrF as
    sacrebleu's corpus scores, ROUGE as rouge-score's, F1 by hand."""
    words = ["the", "cat", "sat", "on", "a", "mat", "and", "dog", "ran", "far"]
    long_texts = [" ".join(words[(i * k) % 10] for i in range(160000)) for k in (1, 3, 7)]
    refs = ["the cat sat on the mat", "a dog ran far and the cat sat", "on a mat", "the dog"]
    hyps = long_texts + ["the dog"]
    assert [len(list(metrics.pieces(h))) for h in long_texts] == [3, 3, 3]
    ids = [str(i) for i in range(4)]
    result = run({"kind": "text", "keys": ["bleu", "chrf", "rouge1", "rouge2", "rouge_l", "f1"]},
                 {"gold.json": json.dumps(dict(zip(ids, refs)))}, {"predictions.json": json.dumps(dict(zip(ids, hyps)))})
    assert result.returncode == 0, result.stderr
    got = result.scores
    assert abs(got["bleu"] - sacrebleu.corpus_bleu(hyps, [refs]).score) <= EPS
    assert abs(got["chrf"] - sacrebleu.corpus_chrf(hyps, [refs]).score) <= EPS
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    theirs = [scorer.score(r, h) for r, h in zip(refs, hyps)]
    for ours, key in (("rouge1", "rouge1"), ("rouge2", "rouge2"), ("rouge_l", "rougeL")):
        assert abs(got[ours] - sum(t[key].fmeasure for t in theirs) / 4) <= EPS
    # F1 of the first: "the cat sat on the mat" normalizes to "cat sat on mat" (4 tokens); the prediction has
    # 160,000 tokens, 16,000 of each word, 32,000 of them articles: 128,000 tokens, cat sat on mat all shared
    precision, recall = 4 / 128000, 1.0
    first = 2 * precision * recall / (precision + recall)
    assert abs(got["f1"] - (first + _f1(hyps[1], refs[1]) + _f1(hyps[2], refs[2]) + 1.0) / 4) <= EPS


def _f1(prediction, reference):
    normalize = metrics.Normalizer()
    return metrics.token_f1(normalize(reference).split(), normalize(prediction).split())


def test_the_page_shows_the_start_of_a_long_prediction(tmp_path):
    """A prediction of 5,000 characters: the page shows its first 1,000 and its length; the item's detail quotes
    its start as for any text."""
    runner = Runner(tmp_path)
    text = "word " * 1000
    result = runner({"kind": "text", "keys": ["f1"]}, {"gold.json": json.dumps({"1": "cat", "2": "dog"})},
                    {"predictions.json": json.dumps({"1": text, "2": "dog"})})
    assert result.returncode == 0, result.stderr
    html = (tmp_path / "run1" / "output" / "detailed_results.html").read_text(encoding="utf-8")
    assert "<td>%s [... 5000 characters in all]</td>" % text[:1000] in html
    assert text[:1001] not in html
