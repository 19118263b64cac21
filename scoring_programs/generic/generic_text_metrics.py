"""The measures of kind ``text``, standard library only: SQuAD's exact match and F1, sacreBLEU's corpus BLEU and
chrF, and rouge-score's ROUGE-1, ROUGE-2 and ROUGE-L F-measures, each written from its published definition.

Every measure is computed from per-item statistics, so that a resample of the items recomputes it exactly:
- exact_match, f1, rouge1, rouge2, rouge_l: one value per item (the best over its references); the score is
  their mean.
- bleu: per item the hypothesis length, the closest reference length and, per n-gram order 1-4, the clipped
  matches and the hypothesis n-grams; summed over the items they give the corpus BLEU (``bleu_of``).
- chrf: per item, per character n-gram order 1-6, the hypothesis n-grams, reference n-grams and matches (of the
  reference with the best sentence-level chrF); summed, they give the corpus chrF (``chrf_of``).
"""
import math
import re
import string
import unicodedata
from collections import Counter

# ---------------------------------------------------------------------------------------------------------------
# SQuAD: normalization, exact match, F1 (the official evaluation scripts v1.1 and v2.0)

DEFAULT_ARTICLES = ("a", "an", "the")
_PUNCTUATION = dict((ord(ch), None) for ch in string.punctuation)  # ASCII punctuation, deleted


class _UnicodePunctuation(dict):
    """str.translate table of MLQA's punctuation: every character whose Unicode category starts with P, and the
    ASCII punctuation (which has symbols such as $ + < = > ^ ` | ~ of categories S*), deleted; any other character
    kept. Filled as characters are met (a table of all code points would take a second to build)."""

    def __missing__(self, code):
        ch = chr(code)
        value = None if ch in string.punctuation or unicodedata.category(ch).startswith("P") else code
        self[code] = value
        return value


_UNICODE_PUNCTUATION = _UnicodePunctuation()


class Normalizer(object):
    """SQuAD's answer normalization, in its order: lowercase, remove ASCII punctuation, replace the articles (whole
    words) by a space, collapse whitespace. Each step can be turned off; ``articles`` is True (a, an, the), False,
    or the words of another language; ``punctuation`` "unicode" removes every Unicode punctuation character too
    (MLQA's evaluation)."""

    def __init__(self, lowercase=True, punctuation=True, articles=True, whitespace=True):
        self.lowercase, self.punctuation, self.whitespace = lowercase, punctuation, whitespace
        self._punctuation = _UNICODE_PUNCTUATION if punctuation == "unicode" else _PUNCTUATION
        words = DEFAULT_ARTICLES if articles is True else list(articles or ())
        self.articles = tuple(words)
        self._articles = (re.compile(r"\b(%s)\b" % "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)),
                                     re.UNICODE) if words else None)

    def __call__(self, text):
        if self.lowercase:
            text = text.lower()
        if self.punctuation:
            text = text.translate(self._punctuation)
        if self._articles is not None:
            text = self._articles.sub(" ", text)
        if self.whitespace:
            text = " ".join(text.split())
        return text


def token_f1(gold_tokens, predicted_tokens, predicted_counts=None):
    """SQuAD 2.0's F1 of two token lists: 1 if both are empty, 0 if one is; else the harmonic mean of the
    precision and recall of the common tokens (a multiset intersection). ``predicted_counts``: the Counter of
    ``predicted_tokens``, when the caller has it (one prediction, several references)."""
    if not gold_tokens or not predicted_tokens:
        return float(gold_tokens == predicted_tokens)
    gold = Counter(gold_tokens)
    predicted = predicted_counts if predicted_counts is not None else Counter(predicted_tokens)
    # The multiset intersection's size, summed in C (Counter's & operator loops in Python).
    shared = gold.keys() & predicted.keys()
    common = sum(map(min, map(gold.__getitem__, shared), map(predicted.__getitem__, shared)))
    if common == 0:
        return 0.0
    precision = 1.0 * common / len(predicted_tokens)
    recall = 1.0 * common / len(gold_tokens)
    return (2 * precision * recall) / (precision + recall)


def squad_gold(references, normalize):
    """The normalized references that count, as SQuAD 2.0's script keeps them: those with a token after
    normalization; when none has one the item is a no-answer item, whose only reference is ""."""
    kept = []
    for reference in references:
        normal = normalize(reference)
        if normal.split():
            kept.append(normal)
    return kept or [""]


def squad_scores(gold, prediction, normalize):
    """(exact match, F1) of ``prediction`` against the normalized references ``gold`` (squad_gold): the best over
    the references."""
    normal = normalize(prediction)
    tokens = normal.split()
    exact = 1.0 if normal in gold else 0.0
    if len(gold) == 1:
        return exact, token_f1(gold[0].split(), tokens)
    counts = Counter(tokens)
    return exact, max(token_f1(g.split(), tokens, counts) for g in gold)


# ---------------------------------------------------------------------------------------------------------------
# BLEU: sacreBLEU's corpus_bleu with its defaults (tokenize 13a, smooth exp, max order 4, no effective order,
# mixed case)

BLEU_ORDER = 4
# mteval-v13a's tokenization as sacreBLEU applies it: these ASCII symbols become tokens of their own; a period or
# comma is split off unless it stands between digits; a hyphen after a digit is split off.
_SYMBOLS = dict((ord(ch), " %s " % ch) for ch in " !\"#$%&()*+/:;<=>?@[\\]^_`{|}~")
_13A = ((re.compile(r"([^0-9])([\.,])"), r"\1 \2 "), (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
        (re.compile(r"(?<=[0-9])-"), " - "))  # same as ([0-9])(-) -> \1 \2 , without a template to expand
_ENTITIES = (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"))


def tokenize_13a(text):
    """The tokens of one segment as sacreBLEU's default tokenizer gives them (after its right strip)."""
    line = text.rstrip().replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        for entity, character in _ENTITIES:
            line = line.replace(entity, character)
    line = (" %s " % line).translate(_SYMBOLS)
    # Each pattern needs a period, comma or hyphen: skipping the regex passes a line lacks is worth it.
    if "." in line or "," in line:
        line = _13A[0][0].sub(_13A[0][1], line)
        line = _13A[1][0].sub(_13A[1][1], line)
    if "-" in line:
        line = _13A[2][0].sub(_13A[2][1], line)
    return line.split()


def _word_ngrams(tokens, order):
    """Counter of the n-grams (tuples) of orders 1..order."""
    grams = Counter(zip(tokens))
    for n in range(2, order + 1):
        grams.update(zip(*[tokens[i:] for i in range(n)]))
    return grams


def bleu_stats(references, hypothesis):
    """One segment's additive BLEU statistics: [hypothesis length, closest reference length (the shorter on a
    tie), matches of order 1..4 (clipped by the most any reference has), hypothesis n-grams of order 1..4]."""
    tokens = tokenize_13a(hypothesis)
    length = len(tokens)
    lengths = []
    merged = None
    for reference in references:
        ref_tokens = tokenize_13a(reference)
        lengths.append(len(ref_tokens))
        grams = _word_ngrams(ref_tokens, BLEU_ORDER)
        if merged is None:
            merged = grams  # the usual single reference: no merge needed
        else:
            for gram, count in grams.items():
                if count > merged[gram]:
                    merged[gram] = count
    closest = min(lengths, key=lambda n: (abs(length - n), n))
    # The hypothesis n-grams of order n number length - n + 1; only the matches need the n-grams themselves.
    total = [max(length - n, 0) for n in range(BLEU_ORDER)]
    correct = [0] * BLEU_ORDER
    hyp = _word_ngrams(tokens, BLEU_ORDER)
    for gram in filter(merged.__contains__, hyp):
        count, clip = hyp[gram], merged[gram]
        correct[len(gram) - 1] += count if count < clip else clip
    return [length, closest] + correct + total


def _log(value):
    return -9999999999 if value == 0.0 else math.log(value)  # sacreBLEU's floor for log(0)


def bleu_of(stats):
    """Corpus BLEU (0-100) from summed bleu_stats, as sacreBLEU computes it: brevity penalty exp(1 - r/c) when
    c < r; precision p_n = 100 matches/total, and when an order has no match, 100/(2^k total) for the k-th such
    order ('exp' smoothing); an order without hypothesis n-grams ends the loop, leaving its precision at 0;
    BLEU = BP exp(sum log p_n / 4), and 0 when no n-gram matches."""
    sys_len, ref_len = stats[0], stats[1]
    correct, total = stats[2:2 + BLEU_ORDER], stats[2 + BLEU_ORDER:]
    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    if not any(correct):
        return 0.0
    precisions = [0.0] * BLEU_ORDER
    smooth = 1.0
    for n in range(BLEU_ORDER):
        if total[n] == 0:
            break
        if correct[n] == 0:
            smooth *= 2
            precisions[n] = 100. / (smooth * total[n])
        else:
            precisions[n] = 100. * correct[n] / total[n]
    return bp * math.exp(sum([_log(p) for p in precisions]) / BLEU_ORDER)


def bleu_brevity(stats):
    sys_len, ref_len = stats[0], stats[1]
    if sys_len >= ref_len:
        return 1.0
    return math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0


# ---------------------------------------------------------------------------------------------------------------
# chrF: sacreBLEU's CHRF defaults (character n-grams 1-6, no word n-grams, beta 2, whitespace removed)

CHRF_ORDER = 6
CHRF_BETA = 2


def _char_grams(line, n):
    """The character n-grams of ``line`` (an iterator): zip of shifted copies, joined, runs in C."""
    return iter(line) if n == 1 else map("".join, zip(*[line[i:] for i in range(n)]))


def chrf_of(stats):
    """chrF (0-100) of [hyp n-grams, ref n-grams, matches] per order, as sacreBLEU computes it: precision and
    recall averaged over the orders where both the hypothesis and the reference have n-grams, then
    F_beta = (1 + beta^2) P R / (beta^2 P + R), and 0 when P + R = 0."""
    factor = CHRF_BETA ** 2
    avg_prec, avg_rec, effective = 0.0, 0.0, 0
    for i in range(CHRF_ORDER):
        n_hyp, n_ref, n_match = stats[3 * i:3 * i + 3]
        if n_hyp > 0 and n_ref > 0:
            avg_prec += n_match / n_hyp
            avg_rec += n_match / n_ref
            effective += 1
    if effective == 0:
        avg_prec = avg_rec = 0.0
    else:
        avg_prec /= effective
        avg_rec /= effective
    if avg_prec + avg_rec:
        score = (1 + factor) * avg_prec * avg_rec
        score /= ((factor * avg_prec) + avg_rec)
        return 100 * score
    return 0.0


def chrf_stats(references, hypothesis):
    """One segment's additive chrF statistics, of the reference whose sentence chrF is highest (the first on a
    tie): per order, [hypothesis n-grams (0 when the reference has none of that order), reference n-grams,
    matches]."""
    hyp = "".join(hypothesis.split())
    size = len(hyp)
    counts = [Counter(_char_grams(hyp, n)) for n in range(1, CHRF_ORDER + 1)]
    best, best_score = None, -1.0
    for reference in references:
        ref = "".join(reference.split())
        stats = []
        for n in range(1, CHRF_ORDER + 1):
            if len(ref) < n:
                stats.extend((0, 0, 0))
                continue
            # A string of length L has L - n + 1 n-grams; the matches need only the reference n-grams that the
            # hypothesis has, counted (sum over n-grams of the smaller count).
            grams = counts[n - 1]
            shared = Counter(filter(grams.__contains__, _char_grams(ref, n)))
            match = sum(map(min, shared.values(), map(grams.__getitem__, shared)))
            stats.extend((max(size - n + 1, 0), len(ref) - n + 1, match))
        if len(references) == 1:
            return stats
        score = chrf_of(stats)
        if score > best_score:
            best, best_score = stats, score
    return best


# ---------------------------------------------------------------------------------------------------------------
# ROUGE: Google's rouge-score (default tokenizer, no stemming), F-measure, best over references (score_multi)

_ROUGE_TOKEN = re.compile(r"[a-z0-9]+")


def rouge_tokens(text):
    """rouge-score's default tokens: the text lowercased, every run of characters other than a-z and 0-9 a
    separator."""
    return _ROUGE_TOKEN.findall(text.lower())


def _fmeasure(overlap, predicted, gold):
    precision = overlap / max(predicted, 1)
    recall = overlap / max(gold, 1)
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def rouge_n(gold_tokens, predicted_tokens, n):
    gold = Counter(zip(*[gold_tokens[i:] for i in range(n)]))
    predicted = Counter(zip(*[predicted_tokens[i:] for i in range(n)]))
    overlap = 0
    for gram, count in gold.items():
        other = predicted.get(gram)
        if other:
            overlap += min(count, other)
    return _fmeasure(overlap, sum(predicted.values()), sum(gold.values()))


def lcs_length(a, b):
    """Length of the longest common subsequence of two token lists (bit-parallel: each bit of ``row`` is a
    position of ``a``; a zero bit marks a step of the LCS)."""
    if not a or not b:
        return 0
    masks = {}
    for i, token in enumerate(a):
        masks[token] = masks.get(token, 0) | (1 << i)
    full = (1 << len(a)) - 1
    row = full
    for token in b:
        matched = row & masks.get(token, 0)
        row = ((row + matched) | (row - matched)) & full
    return len(a) - bin(row).count("1")


def rouge_l(gold_tokens, predicted_tokens):
    if not gold_tokens or not predicted_tokens:
        return 0.0
    common = lcs_length(gold_tokens, predicted_tokens)
    precision = common / len(predicted_tokens)
    recall = common / len(gold_tokens)
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


ROUGE_KEYS = ("rouge1", "rouge2", "rouge_l")


def rouge_scores(references, prediction, keys=ROUGE_KEYS):
    """{key: the best F-measure over the references} for the ROUGE keys asked for."""
    predicted = rouge_tokens(prediction)
    golds = [rouge_tokens(reference) for reference in references]
    out = {}
    for key in keys:
        if key == "rouge_l":
            out[key] = max(rouge_l(g, predicted) for g in golds)
        else:
            n = int(key[-1])
            out[key] = max(rouge_n(g, predicted, n) for g in golds)
    return out
