"""The measures of kind ``text``, standard library only: SQuAD's exact match and F1, sacreBLEU's corpus BLEU and
chrF, and rouge-score's ROUGE-1, ROUGE-2 and ROUGE-L F-measures, each written from its published definition.

Every measure is computed from per-item statistics, so that a resample of the items recomputes it exactly:
- exact_match, f1, rouge1, rouge2, rouge_l: one value per item (the best over its references); the score is
  their mean.
- bleu: per item the hypothesis length, the closest reference length and, per n-gram order 1-4, the clipped
  matches and the hypothesis n-grams; summed over the items they give the corpus BLEU (``bleu_of``).
- chrf: per item, per character n-gram order 1-6, the hypothesis n-grams, reference n-grams and matches (of the
  reference with the best sentence-level chrF); summed, they give the corpus chrF (``chrf_of``).

A prediction is read in pieces (``pieces``: about 256K characters each, cut just after a space or a tab) and each
measure keeps, per item, only its statistics of the text seen so far (SquadItem, BleuItem, ChrfItem, RougeItem;
``item_scores`` feeds them): the number of tokens or n-grams and the counts of those a reference has (all of the
first piece's), the last tokens before the cut, the row of the longest-common-subsequence table (a bit per
reference token), the normalized text only while it is no longer than the longest reference. Each statistic of
the whole text is the sum (or the continuation) of those of its pieces, so a text of any length gives the same
figures as if it were handled whole, holding the text itself, the item's reference statistics and one piece's
tokens.
"""
import math
import re
import string
import unicodedata
from collections import Counter
from itertools import chain

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
        # A piece boundary (white space) is one for each step, except inside an article that holds white space.
        self.piecewise = all(len(word.split()) == 1 for word in words)
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
    return _token_f1(Counter(gold_tokens), len(gold_tokens),
                     predicted_counts if predicted_counts is not None else Counter(predicted_tokens),
                     len(predicted_tokens))


def _token_f1(gold, gold_length, predicted, length):
    """token_f1 from counts: ``gold`` and ``predicted`` count the tokens (``predicted`` may leave out those
    ``gold`` lacks), ``gold_length`` and ``length`` are the numbers of tokens."""
    if not gold_length or not length:
        return float(gold_length == length)
    common = _overlap(gold, predicted)
    if common == 0:
        return 0.0
    precision = 1.0 * common / length
    recall = 1.0 * common / gold_length
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
    return _whole(SquadItem(gold, normalize), prediction)


class SquadItem(object):
    """Exact match and F1 of one prediction fed piece by piece (``pieces``) against the normalized references
    ``gold`` (squad_gold). Kept: the number of tokens of the normalized prediction and the counts of those a
    reference has; the normalized text while it is no longer than the longest reference (past that it can equal
    none)."""

    def __init__(self, gold, normalize):
        self.gold, self.normalize = gold, normalize
        tokens = [reference.split() for reference in gold]
        self.gold_counts = [(Counter(t), len(t)) for t in tokens]
        self.known = _known([counts for counts, _ in self.gold_counts])
        self.longest = max(len(reference) for reference in gold)
        self.normal, self.length, self.counts = "", 0, None
        self.whole = None if normalize.piecewise else []  # (normalized whole, at the end)

    def feed(self, piece):
        if self.whole is not None:
            self.whole.append(piece)
            return
        normal = self.normalize(piece)
        if self.normal is not None:
            # normalize(a + b) for a ending in white space: the two joined, by a space when it is collapsed
            joined = self.normal + " " + normal if self.normalize.whitespace and self.normal and normal else \
                self.normal + normal
            self.normal = joined if len(joined) <= self.longest else None
        tokens = normal.split()
        self.length += len(tokens)
        self.counts = _add_known(self.counts, Counter(tokens), self.known)

    def result(self):
        if self.whole is not None:
            text, self.whole = "".join(self.whole), None
            self.feed(text)
        exact = 1.0 if self.normal is not None and self.normal in self.gold else 0.0
        found = self.counts or Counter()
        return exact, max(_token_f1(counts, length, found, self.length) for counts, length in self.gold_counts)


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
    return _tokens_13a(text.rstrip())


def _tokens_13a(line):
    """tokenize_13a of a text already right-stripped, or of a piece of it (``pieces``): a piece boundary is one
    for each step (none looks across white space other than the line break of "-" + line break)."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
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


def _add_known(counts, found, known):
    """``counts`` (None before the first piece) with a piece's counts ``found`` added: all of the first piece's
    (a piece bounds their number, and most texts are one piece), then those of the grams ``known()`` holds (a
    reference's, a set or a dict's keys): what no reference has is not counted past the first piece."""
    if counts is None:
        return found
    for gram in found.keys() & known():
        counts[gram] += found[gram]
    return counts


def _known(counters):
    """known() for _add_known of the references' Counters ``counters``: the keys of the one, or their union."""
    if len(counters) == 1:
        return counters[0].keys
    return _Known(lambda: chain.from_iterable(counters))


def _overlap(a, b):
    """The size of the multiset intersection of two Counters (summed in C: Counter's & operator loops in
    Python)."""
    shared = a.keys() & b.keys()
    return sum(map(min, map(a.__getitem__, shared), map(b.__getitem__, shared)))


class _Known(object):
    """known() for _add_known: the set of the grams ``grams()`` gives, made when first asked for (a text of one
    piece never asks)."""

    def __init__(self, grams):
        self.grams, self.set = grams, None

    def __call__(self):
        if self.set is None:
            self.set = set(self.grams())
        return self.set


def _new_grams(joined, kept, n):
    """The n-grams (tuples) of ``joined`` that do not lie within its first ``kept`` tokens: those of a piece,
    with the tokens before it (the tail of the text so far) where an n-gram crosses the boundary."""
    start = max(kept - n + 1, 0)
    return zip(*[joined[start + i:] for i in range(n)])


def bleu_stats(references, hypothesis):
    """One segment's additive BLEU statistics: [hypothesis length, closest reference length (the shorter on a
    tie), matches of order 1..4 (clipped by the most any reference has), hypothesis n-grams of order 1..4]."""
    item = BleuItem(references)
    for piece in pieces(hypothesis, stripped_end(hypothesis)):
        item.feed(piece)
    return item.result()


class BleuItem(object):
    """bleu_stats of one hypothesis fed piece by piece (``pieces`` of the right-stripped text). Kept: its number
    of tokens, its last 3 tokens and the counts of its n-grams that a reference has."""

    def __init__(self, references):
        self.lengths = []
        merged = None
        for reference in references:
            ref_tokens = tokenize_13a(reference)
            self.lengths.append(len(ref_tokens))
            grams = _word_ngrams(ref_tokens, BLEU_ORDER)
            if merged is None:
                merged = grams  # the usual single reference: no merge needed
            else:
                for gram, count in grams.items():
                    if count > merged[gram]:
                        merged[gram] = count
        self.merged = merged
        self.length, self.tail, self.counts = 0, [], None

    def feed(self, piece):
        tokens = _tokens_13a(piece)
        if not tokens:
            return
        # Only the matches need the n-grams themselves: those the references lack are not counted.
        if self.tail:
            joined, grams = self.tail + tokens, Counter()
            for n in range(1, BLEU_ORDER + 1):
                grams.update(_new_grams(joined, len(self.tail), n))
        else:
            joined, grams = tokens, _word_ngrams(tokens, BLEU_ORDER)
        self.counts = _add_known(self.counts, grams, self.merged.keys)
        self.length += len(tokens)
        self.tail = joined[-(BLEU_ORDER - 1):]

    def result(self):
        length = self.length
        closest = min(self.lengths, key=lambda n: (abs(length - n), n))
        # The hypothesis n-grams of order n number length - n + 1.
        total = [max(length - n, 0) for n in range(BLEU_ORDER)]
        correct = [0] * BLEU_ORDER
        merged = self.merged
        counts = self.counts or {}
        for gram in filter(merged.__contains__, counts):
            count, clip = counts[gram], merged[gram]
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
    return _whole(ChrfItem(references), hypothesis)


class ChrfItem(object):
    """chrf_stats of one hypothesis fed piece by piece (``pieces``). Kept: the number of its characters other
    than white space, the last 5 of them, and per order the counts of its character n-grams that a reference has."""

    def __init__(self, references):
        self.references = refs = ["".join(reference.split()) for reference in references]
        longest = max(len(ref) for ref in refs)
        # per order, the n-grams any reference has, made when a second piece comes (None: no reference has n
        # characters)
        self.known = [_Known(lambda n=n: chain.from_iterable(_char_grams(ref, n) for ref in refs))
                      if longest >= n else None for n in range(1, CHRF_ORDER + 1)]
        self.size, self.tail, self.counts = 0, "", [None] * CHRF_ORDER

    def feed(self, piece):
        text = "".join(piece.split())
        if not text:
            return
        joined, kept = self.tail + text, len(self.tail)
        for n in range(1, CHRF_ORDER + 1):
            if self.known[n - 1] is not None:
                # the n-grams that do not lie within the tail, which were counted with the piece before
                grams = _char_grams(joined[max(kept - n + 1, 0):], n)
                self.counts[n - 1] = _add_known(self.counts[n - 1], Counter(grams), self.known[n - 1])
        self.size += len(text)
        self.tail = joined[-(CHRF_ORDER - 1):]

    def result(self):
        size, best, best_score = self.size, None, -1.0
        for ref in self.references:
            stats = []
            for n in range(1, CHRF_ORDER + 1):
                if len(ref) < n:
                    stats.extend((0, 0, 0))
                    continue
                # A string of length L has L - n + 1 n-grams; the matches need only the reference n-grams that the
                # hypothesis has, counted (sum over n-grams of the smaller count).
                found = self.counts[n - 1] or {}
                shared = Counter(filter(found.__contains__, _char_grams(ref, n)))
                match = sum(map(min, shared.values(), map(found.__getitem__, shared)))
                stats.extend((max(size - n + 1, 0), len(ref) - n + 1, match))
            if len(self.references) == 1:
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
    return RougeItem([gold_tokens], ["rouge%d" % n], tokens=True).fed(predicted_tokens)["rouge%d" % n]


def lcs_length(a, b):
    """Length of the longest common subsequence of two token lists."""
    row = _LcsRow(a)
    row.feed(b)
    return row.length()


class _LcsRow(object):
    """The longest common subsequence of the tokens ``a`` and a token list fed piece by piece, bit-parallel: each
    bit of ``row`` is a position of ``a``, a zero bit marks a step of the LCS (the row of the dynamic-programming
    table, in len(a) bits)."""

    def __init__(self, a):
        masks = {}
        for i, token in enumerate(a):
            masks[token] = masks.get(token, 0) | (1 << i)
        self.masks, self.size = masks, len(a)
        self.full = self.row = (1 << len(a)) - 1

    def feed(self, tokens):
        row, full, masks = self.row, self.full, self.masks
        if not row:
            return  # every token of a is matched: the row stays
        # A token a lacks leaves the row as it is ((row + 0) | (row - 0) = row): only the others are stepped.
        for mask in map(masks.__getitem__, filter(masks.__contains__, tokens)):
            matched = row & mask
            row = ((row + matched) | (row - matched)) & full
        self.row = row

    def length(self):
        return self.size - bin(self.row).count("1")


def rouge_l(gold_tokens, predicted_tokens):
    return RougeItem([gold_tokens], ["rouge_l"], tokens=True).fed(predicted_tokens)["rouge_l"]


ROUGE_KEYS = ("rouge1", "rouge2", "rouge_l")


def rouge_scores(references, prediction, keys=ROUGE_KEYS):
    """{key: the best F-measure over the references} for the ROUGE keys asked for."""
    return _whole(RougeItem(references, keys), prediction)


class RougeItem(object):
    """rouge_scores of one prediction fed piece by piece (``pieces``). Kept: its number of tokens, its last token,
    per order the counts of its n-grams that a reference has, and per reference the row of the LCS table."""

    def __init__(self, references, keys=ROUGE_KEYS, tokens=False):
        self.keys = [key for key in ROUGE_KEYS if key in keys]
        golds = references if tokens else [rouge_tokens(reference) for reference in references]
        self.orders = [int(key[-1]) for key in self.keys if key != "rouge_l"]
        # per order: per reference (Counter of its n-grams, their number); the n-grams any reference has
        self.golds, self.known, self.counts = {}, {}, {}
        for n in self.orders:
            grams = [Counter(zip(*[gold[i:] for i in range(n)])) for gold in golds]
            self.golds[n] = [(counts, max(len(gold) - n + 1, 0)) for counts, gold in zip(grams, golds)]
            self.known[n], self.counts[n] = _known(grams), None
        self.rows = [_LcsRow(gold) for gold in golds] if "rouge_l" in self.keys else []
        self.gold_lengths = [len(gold) for gold in golds]
        self.length, self.tail = 0, []

    def feed(self, piece):
        self.feed_tokens(rouge_tokens(piece))

    def feed_tokens(self, tokens):
        if not tokens:
            return
        joined, kept = self.tail + tokens if self.tail else tokens, len(self.tail)
        for n in self.orders:
            self.counts[n] = _add_known(self.counts[n], Counter(_new_grams(joined, kept, n)), self.known[n])
        for row in self.rows:
            row.feed(tokens)
        self.length += len(tokens)
        self.tail = joined[-1:]

    def fed(self, tokens):
        self.feed_tokens(tokens)
        return self.result()

    def result(self):
        out = {}
        for key in self.keys:
            if key == "rouge_l":
                out[key] = max(self._rouge_l(row.length(), gold_length)
                               for row, gold_length in zip(self.rows, self.gold_lengths))
            else:
                n = int(key[-1])
                found, predicted = self.counts[n] or {}, max(self.length - n + 1, 0)
                out[key] = max(_fmeasure(_overlap(grams, found), predicted, number) for grams, number in self.golds[n])
        return out

    def _rouge_l(self, common, gold_length):
        if not gold_length or not self.length:
            return 0.0
        precision = common / self.length
        recall = common / gold_length
        return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


# ---------------------------------------------------------------------------------------------------------------
# Pieces: a prediction handled 256K characters at a time, and the statistics of every key of one item

PIECE = 1 << 18
_BREAK = re.compile(r"[ \t]")


def pieces(text, end=None, size=None):
    """text[:end] as consecutive slices of about ``size`` characters, each but the last ending just after a space
    or a tab (a stretch without one is not cut). White space other than a line break is a boundary for every
    step of every measure here (lowercasing too: Greek capital sigma looks across letters only), so each measure
    gives the same statistics from the pieces fed in order as from the whole text."""
    end = len(text) if end is None else end
    size = size or PIECE
    if end <= size:
        yield text if end == len(text) else text[:end]
        return
    start = 0
    while start < end:
        stop = start + size
        if stop >= end:
            yield text[start:end]
            return
        cut = max(text.rfind(" ", start, stop), text.rfind("\t", start, stop))
        if cut < 0:
            found = _BREAK.search(text, stop, end)
            cut = found.start() if found else end - 1
        yield text[start:cut + 1]
        start = cut + 1


def stripped_end(text, size=None):
    """len(text.rstrip()), without copying a long text."""
    end, size = len(text), size or PIECE
    if end <= size:
        return len(text.rstrip())
    while end:
        window = text[max(end - size, 0):end]
        kept = len(window.rstrip())
        if kept:
            return end - len(window) + kept
        end -= len(window)
    return 0


def _whole(item, text):
    """``item``'s result for ``text`` fed in pieces."""
    for piece in pieces(text):
        item.feed(piece)
    return item.result()


def item_scores(references, prediction, keys, normalize, gold=None):
    """{key: value} of one item for the keys asked for (squad_scores' exact match and F1, the ROUGE F-measures,
    bleu_stats, chrf_stats), the prediction read once, in pieces; ``gold``: squad_gold(references), when the
    caller has it."""
    items, out = [], {}
    squad = bleu = rouge = chrf = None
    if "exact_match" in keys or "f1" in keys:
        squad = SquadItem(gold if gold is not None else squad_gold(references, normalize), normalize)
        items.append(squad)
    rouge_keys = [key for key in ROUGE_KEYS if key in keys]
    if rouge_keys:
        rouge = RougeItem(references, rouge_keys)
        items.append(rouge)
    if "chrf" in keys:
        chrf = ChrfItem(references)
        items.append(chrf)
    if "bleu" in keys:
        bleu = BleuItem(references)  # fed the right-stripped text
        end = stripped_end(prediction)
    start = 0
    for piece in pieces(prediction) if len(prediction) > PIECE else (prediction,):
        for item in items:
            item.feed(piece)
        if bleu is not None and start < end:
            bleu.feed(piece if start + len(piece) <= end else piece[:end - start])
        start += len(piece)
    if squad is not None:
        out["exact_match"], out["f1"] = squad.result()
    if rouge is not None:
        out.update(rouge.result())
    if bleu is not None:
        out["bleu"] = bleu.result()
    if chrf is not None:
        out["chrf"] = chrf.result()
    return out
