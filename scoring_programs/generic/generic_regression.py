"""Kind ``regression``: one number per id (similarity scores, intensities, ratings, ordinal labels).

Keys (x: the submission's values, y: the gold's, over the n gold ids; README.md has the full card):
  pearson      Pearson's r (scipy.stats.pearsonr)
  spearman     Spearman's rho: Pearson's r of the average ranks, ties sharing their mean rank (scipy.stats.spearmanr)
  kendall_tau  Kendall's tau-b, ties counted as scipy.stats.kendalltau counts them
  mae          mean |x - y| (lower is better)
  rmse         sqrt(mean (x - y)^2) (lower is better)
  r2           1 - sum (y - x)^2 / sum (y - mean y)^2 (sklearn.metrics.r2_score; a constant gold gives 1 when every
               prediction is exact and 0 otherwise, as sklearn's force_finite)
  qwk          quadratic weighted kappa over the integer labels of ``label_range`` (sklearn cohen_kappa_score with
               weights="quadratic"): 1 - n sum (x - y)^2 / sum over all pairs (i, j) of (x_i - y_j)^2
A correlation is undefined when the predictions or the gold are all equal (scipy gives nan): it scores 0, with a
warning, as the SemEval-2018 Task 1 scorer does.

Per-item statistics: mae and rmse are means of the item's absolute or squared error; qwk adds up label sums (exact
integers); pearson, spearman, kendall_tau and r2 are not sums of per-item terms, so an item's statistic is its
(gold, prediction) pair, named "pair:<gold>,<prediction>" with the count 1: summed over a resample, the counts are
the resample's multiset of pairs, on which the metric is computed exactly as on the whole set.
"""
import itertools
import math
import re
from bisect import bisect_right, insort
from collections import Counter
from itertools import accumulate, chain, groupby, repeat
from operator import add, and_, eq, mul, truediv

import fast_csv

from report_html import paragraph, section, table
from scoring_runtime import Items, ReferenceDataError, SubmissionError, quote

from generic_result import make_result, scores_section
from generic_table import _PLAIN_ID, describe, is_tsv, locate, read_gold_csv, read_submission_csv

LOWER_IS_BETTER = ("mae", "rmse")
CORRELATIONS = ("pearson", "spearman", "kendall_tau")
# A decimal number: digits with an optional point and exponent (no "nan", "inf", "0x10", "1_000", spaces inside).
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_PAIR = "pair:"
# Values beyond this magnitude are refused: their squares and sums stay far from overflow.
MAX_MAGNITUDE = 1e100
# What the platforms store (scoring_runtime.format_score): a score of this magnitude or more is refused.
MAX_SCORE = 1e10


# ---------------------------------------------------------------------------------------------------------------
# Reading


def parse_value(text, where, column, error, label_range=None):
    """The finite number in a cell, or ``error`` naming ``where`` (file, line); a gold value is never quoted.
    With ``label_range`` [min, max] the number must be an integer label in it (3, 3.0 and 3e0 are the label 3;
    2.5 is refused, not rounded)."""
    cell = text.strip()
    shown = "" if error is ReferenceDataError else " %s" % quote(cell)
    if not cell:
        raise error("%s: the %s cell is empty: give a number" % (where, quote(column)))
    value = float(cell) if _NUMBER.match(cell) else None
    if value is None or math.isinf(value):
        reason = "is not a finite number" if value is not None or cell.lower().lstrip("+-") in (
            "inf", "infinity", "nan") else "is not a number"
        raise error("%s: the %s value%s %s" % (where, quote(column), shown, reason))
    if abs(value) > MAX_MAGNITUDE:
        raise error("%s: the %s value%s is beyond the magnitude this scorer takes (1e100)"
                    % (where, quote(column), shown))
    if label_range is not None:
        low, high = label_range
        if value != int(value):
            raise error("%s: the %s value%s is not an integer label: this task's labels are the integers %d to %d "
                        "(round your predictions to a label; the scorer does not round)"
                        % (where, quote(column), shown, low, high))
        if not low <= value <= high:
            raise error("%s: the %s value%s is outside the labels %d to %d" % (where, quote(column), shown, low, high))
    return value


def _values(table, label, column, error, label_range):
    return dict((key, parse_value(cells[0], "%s, line %d" % (label, line), column, error, label_range))
                for key, (line, cells) in table.items())


# ---------------------------------------------------------------------------------------------------------------
# Reading in bulk: whole columns, checked at once. Anything unusual (another shape, an id that is not plain, an id
# twice, a cell that is not a plain number, ids other than the gold's) returns None, and the file is read again row
# by row, which finds the first problem and names its line: results and messages are those of the row-by-row read.

def _bulk_columns(path, id_column, value_column, rows=None):
    """([ids], [value texts]) of a CSV (fast_csv.columns) or TSV file in the usual shape, or None; None too as soon
    as it holds more than ``rows`` data rows (a submission: the gold's count), so that an oversized run costs no
    more than the row-by-row read, which stops at its first bad line."""
    def choose(header):
        names = [cell.strip() for cell in header]
        positions = []
        for name in (id_column, value_column):
            if name in names:
                positions.append(names.index(name))
            elif [cell.lower() for cell in names].count(name.lower()) == 1:
                positions.append([cell.lower() for cell in names].index(name.lower()))
            else:
                raise fast_csv.NotPlain()
        if positions[0] == positions[1]:
            raise fast_csv.NotPlain()
        return positions
    ids, texts = [], []
    try:
        if is_tsv(path):
            with open(path, "rb") as handle:
                head = handle.readlines() if rows is None else list(itertools.islice(handle, rows + 2))
                if rows is not None and len(head) == rows + 2:
                    return None
                lines = b"".join(head).decode("utf-8").splitlines()
            if lines and lines[0].startswith("\ufeff"):
                lines[0] = lines[0][1:]
            if not lines or "\r" in "".join(lines[-1:]) or not all(lines):
                return None
            header = lines[0].split("\t")
            first, second = choose(header)
            rows = [line.split("\t") for line in lines[1:]]
            if any(len(row) != len(header) for row in rows):
                return None
            ids, texts = [row[first] for row in rows], [row[second] for row in rows]
        else:
            for part in fast_csv.columns(path, choose):
                ids.extend(part[0])
                texts.extend(part[1])
                if rows is not None and len(ids) > rows:
                    return None
    except (fast_csv.NotPlain, UnicodeDecodeError, OSError):
        return None
    if not ids or not all(map(_PLAIN_ID.match, ids)) or len(set(ids)) != len(ids):
        return None
    return ids, texts


_NUMBERS = re.compile(r" *[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)? *(?:\0 *[+-]?(?:[0-9]+\.?[0-9]*|"
                      r"\.[0-9]+)(?:[eE][+-]?[0-9]+)? *)*\Z")


def _bulk_values(texts, label_range):
    """The numbers of ``texts``, or None when one is not a plain finite number within the limits."""
    if not _NUMBERS.match("\0".join(texts)):
        return None
    values = list(map(float, texts))
    if max(map(abs, values)) > MAX_MAGNITUDE:
        return None
    if label_range is not None and not (all(map(float.is_integer, values)) and
                                        label_range[0] <= min(values) and max(values) <= label_range[1]):
        return None
    return values


def _bulk_read(directory, config, error, rows=None):
    name = config["reference" if error is ReferenceDataError else "submission"]
    try:
        path = locate(directory, name, error)
    except (ReferenceDataError, SubmissionError):
        return None
    found = _bulk_columns(path, config["id_column"], config["value_column"], rows)
    values = found and _bulk_values(found[1], config.get("label_range"))
    return (found[0], values) if values is not None else None


def read_gold(ref_dir, config):
    """{id: gold value}; ReferenceDataError naming the file, line and problem (``new`` checks with it)."""
    bulk = _bulk_read(ref_dir, config, ReferenceDataError)
    if bulk is not None:
        return dict(zip(*bulk))
    table, label = read_gold_csv(ref_dir, config, [config["value_column"]])
    return _values(table, label, config["value_column"], ReferenceDataError, config.get("label_range"))


def read_predictions(res_dir, config, gold):
    """{id: predicted value} for exactly the gold ids; SubmissionError naming the file, line and problem."""
    bulk = _bulk_read(res_dir, config, SubmissionError, len(gold))
    if bulk is not None and len(bulk[0]) == len(gold) and all(map(gold.__contains__, bulk[0])):
        return dict(zip(*bulk))
    column = config["value_column"]
    table, label = read_submission_csv(res_dir, config, [column], gold)
    return _values(table, label, column, SubmissionError, config.get("label_range"))


# ---------------------------------------------------------------------------------------------------------------
# Metrics on a multiset of (gold, prediction) pairs: a Pairs holds each distinct pair once, sorted, with its count.
# The whole set and every resample go through these same functions, so the score written equals the Items' score.


class Pairs(object):
    """Distinct (gold, prediction) pairs in sorted order, as three lists, and their counts (floats, as summed)."""

    def __init__(self, counts):
        """``counts``: {(gold, prediction): count}."""
        ordered = sorted(counts.items())
        self._set([pair[0] for pair, _ in ordered], [pair[1] for pair, _ in ordered],
                  [float(count) for _, count in ordered])

    def _set(self, gold, pred, counts):
        self.gold, self.pred, self.counts = gold, pred, counts
        self.total = math.fsum(self.counts)
        self.ones = self.total == len(self.counts)  # every pair once: no weights to apply

    @classmethod
    def of_items(cls, gold, pred):
        """The Pairs of aligned lists of values (one pair per item): the same as Pairs(Counter(zip(gold, pred)))."""
        order = sorted(range(len(gold)), key=pred.__getitem__)
        order.sort(key=gold.__getitem__)  # stable: by gold, then by prediction (float keys sort fast)
        gs, ps = list(map(gold.__getitem__, order)), list(map(pred.__getitem__, order))
        pairs = cls.__new__(cls)
        if not any(map(and_, map(eq, gs, gs[1:]), map(eq, ps, ps[1:]))):  # no pair twice
            pairs._set(gs, ps, [1.0] * len(gs))
        else:
            distinct = [(pair, float(len(list(group)))) for pair, group in groupby(zip(gs, ps))]
            pairs._set([pair[0] for pair, _ in distinct], [pair[1] for pair, _ in distinct],
                       [count for _, count in distinct])
        return pairs

    def weighted(self, values):
        return values if self.ones else list(map(mul, self.counts, values))

    def weights(self, values):
        """_weights_by_value of self.gold or self.pred, computed once (spearman and kendall_tau both need them)."""
        cache = self.__dict__.setdefault("_weights", {})
        found = cache.get(id(values))
        if found is None or found[0] is not values:
            found = cache[id(values)] = (values, _weights_by_value(values, self))
        return found[1]


def _pearson_of(xs, ys, pairs):
    """Pearson's r of the points (x, y) counted as ``pairs`` counts them, two-pass as scipy; None when x or y is
    constant."""
    if min(xs) == max(xs) or min(ys) == max(ys):  # constant (values are finite): no hashing of every value
        return None
    total = pairs.total
    mx = math.fsum(pairs.weighted(xs)) / total
    my = math.fsum(pairs.weighted(ys)) / total
    dx = [x - mx for x in xs]
    dy = [y - my for y in ys]
    sxy = math.fsum(pairs.weighted(list(map(mul, dx, dy))))
    sxx = math.fsum(pairs.weighted(list(map(mul, dx, dx))))
    syy = math.fsum(pairs.weighted(list(map(mul, dy, dy))))
    if sxx <= 0 or syy <= 0:  # a spread lost to rounding
        return None
    return max(-1.0, min(1.0, sxy / (math.sqrt(sxx) * math.sqrt(syy))))


def _weights_by_value(values, pairs):
    if pairs.ones:
        return Counter(values)
    weight = {}
    for value, count in zip(values, pairs.counts):
        weight[value] = weight.get(value, 0.0) + count
    return weight


def _average_ranks(values, pairs):
    """The average rank (1-based) of each value, ties sharing the mean of their ranks (scipy.stats.rankdata
    'average'), over the values counted as ``pairs`` counts them."""
    weight = pairs.weights(values)
    order = sorted(weight)
    counts = list(map(weight.__getitem__, order))
    # rank = (weight of the smaller values) + (count + 1) / 2, the running total summed in the same order as a
    # loop would; map/accumulate keep it in C (one step per distinct value)
    before = accumulate(chain((0.0,), counts))
    ranks = dict(zip(order, map(add, before, map(truediv, map(add, counts, repeat(1)), repeat(2.0)))))
    return list(map(ranks.__getitem__, values))


def pearson(pairs):
    return _pearson_of(pairs.gold, pairs.pred, pairs)


def spearman(pairs):
    return _pearson_of(_average_ranks(pairs.gold, pairs), _average_ranks(pairs.pred, pairs), pairs)


def _tie_pairs(counts):
    return sum(c * (c - 1) // 2 for c in counts)


def _discordant(second):
    """Pairs (i < j) with second[i] > second[j], by blocks: the elements before a block are kept sorted, and each
    element of the block finds how many of them exceed it by bisection (C calls); within a block, by insertion into
    a small sorted list."""
    seen, discordant = [], 0
    size = max(64, 8 * int(math.sqrt(len(second))))
    for start in range(0, len(second), size):
        block = second[start:start + size]
        discordant += len(seen) * len(block) - sum(map(bisect_right, [seen] * len(block), block))
        small = []
        for value in block:
            discordant += len(small) - bisect_right(small, value)
            insort(small, value)
        seen = sorted(seen + block)
    return discordant


def kendall_tau(pairs):
    """Kendall's tau-b (scipy.stats.kendalltau's default): (concordant - discordant) / sqrt((n0 - ties in the gold)
    (n0 - ties in the predictions)), n0 = n(n-1)/2; exact integer counts, discordant pairs in about n sqrt(n) C
    steps."""
    gold_weight, pred_weight = pairs.weights(pairs.gold), pairs.weights(pairs.pred)
    if len(gold_weight) < 2 or len(pred_weight) < 2:
        return None
    gold_ties = _tie_pairs(int(c) for c in gold_weight.values())
    pred_ties = _tie_pairs(int(c) for c in pred_weight.values())
    if pairs.ones:  # every pair once: no pair ties with itself
        n, both_ties, second = len(pairs.counts), 0, pairs.pred
    else:
        counts = [int(c) for c in pairs.counts]
        n, both_ties = sum(counts), _tie_pairs(counts)
        # pairs are sorted by (gold, prediction): a discordant pair is an inversion of the predictions in this
        # order (a pair counted c times stands c times in a row, with no inversion among its copies)
        second = [p for p, c in zip(pairs.pred, counts) for _ in range(c)]
    total = n * (n - 1) // 2
    discordant = _discordant(second)
    concordant = total - gold_ties - pred_ties + both_ties - discordant
    return max(-1.0, min(1.0, (concordant - discordant) / math.sqrt(total - gold_ties) / math.sqrt(total - pred_ties)))


def r2(pairs):
    """sklearn.metrics.r2_score; a constant gold (or one item): 1.0 when every prediction is exact, else 0.0."""
    errors = list(map(float.__sub__, pairs.gold, pairs.pred))
    sse = math.fsum(pairs.weighted(list(map(mul, errors, errors))))
    if len(set(pairs.gold)) < 2:
        return 1.0 if sse == 0 else 0.0
    mean = math.fsum(pairs.weighted(pairs.gold)) / pairs.total
    deviations = [g - mean for g in pairs.gold]
    sst = math.fsum(pairs.weighted(list(map(mul, deviations, deviations))))
    return 1.0 - sse / sst


_PAIR_METRICS = {"pearson": pearson, "spearman": spearman, "kendall_tau": kendall_tau, "r2": r2}


# ---------------------------------------------------------------------------------------------------------------
# Additive statistics: mae, rmse (errors) and qwk (integer label sums)


def _error_stats(key, gold, pred):
    error = pred - gold
    return {"items": 1, "absolute_error": abs(error)} if key == "mae" else {"items": 1, "squared_error": error * error}


def _qwk_stats(gold, pred, low):
    a, b = int(gold) - low, int(pred) - low
    return {"items": 1, "gold": a, "predicted": b, "gold_squared": a * a, "predicted_squared": b * b,
            "squared_error": (a - b) * (a - b)}


def _finish_additive(key, totals):
    n = totals.get("items", 0)
    if not n:
        return 0.0
    if key == "mae":
        return totals.get("absolute_error", 0.0) / n
    if key == "rmse":
        return math.sqrt(totals.get("squared_error", 0.0) / n)
    # qwk: 1 - n sum (a - b)^2 / sum_ij (a_i - b_j)^2, in integers; both constant and equal: perfect agreement
    n = int(n)
    sa, sb = int(totals.get("gold", 0)), int(totals.get("predicted", 0))
    disagreement = n * int(totals.get("gold_squared", 0)) + n * int(totals.get("predicted_squared", 0)) - 2 * sa * sb
    if disagreement == 0:
        return 1.0
    return 1.0 - n * int(totals.get("squared_error", 0)) / float(disagreement)


def _additive_totals(key, gold, pred, low):
    """What the items' statistics of ``key`` sum to, computed column-wise (the same numbers, summed exactly)."""
    if key in ("mae", "rmse"):
        errors = list(map(float.__sub__, pred, gold))
        if key == "mae":
            return {"items": float(len(errors)), "absolute_error": math.fsum(map(abs, errors))}
        return {"items": float(len(errors)), "squared_error": math.fsum(map(mul, errors, errors))}
    a = [int(g) - low for g in gold]
    b = [int(p) - low for p in pred]
    return {"items": len(a), "gold": sum(a), "predicted": sum(b), "gold_squared": sum(map(mul, a, a)),
            "predicted_squared": sum(map(mul, b, b)),
            "squared_error": sum((x - y) * (x - y) for x, y in zip(a, b))}


def _pair_name(gold, pred):
    name = "%s%r,%r" % (_PAIR, gold, pred)
    _PAIRS[name] = (gold, pred)
    return name


# name -> (gold, prediction), so that a resample's names are not parsed again
_PAIRS = {}


def pairs_of_totals(totals):
    """The Pairs of summed pair statistics."""
    counts = {}
    for name, count in totals.items():
        if count and name.startswith(_PAIR):
            pair = _PAIRS.get(name)
            if pair is None:
                gold, pred = name[len(_PAIR):].split(",")
                pair = (float(gold), float(pred))
            counts[pair] = counts.get(pair, 0.0) + count  # -0.0 and 0.0 are one value
    return Pairs(counts)


def finish_of(key, low=None):
    """The Items' finish of ``key``: its value from summed statistics (0.0 where undefined)."""
    if key in _PAIR_METRICS:
        metric = _PAIR_METRICS[key]

        def finish(totals):
            pairs = pairs_of_totals(totals)
            value = metric(pairs) if pairs.counts else None
            return 0.0 if value is None else value
    else:
        def finish(totals):
            return _finish_additive(key, totals)
    return finish


def item_stats(key, gold, pred, low=None):
    if key in _PAIR_METRICS:
        return {"items": 1, _pair_name(gold, pred): 1}
    if key == "qwk":
        return _qwk_stats(gold, pred, low)
    return _error_stats(key, gold, pred)


def metrics(keys, gold, pred, low=None):
    """({key: value}, [keys undefined on this data, scored 0]) for aligned lists of gold and predicted values; every
    value is what the key's Items give summed over all items."""
    values, undefined = {}, []
    pairs = None
    for key in keys:
        if key in _PAIR_METRICS:
            if pairs is None:
                pairs = Pairs.of_items(gold, pred)
            value = _PAIR_METRICS[key](pairs)
            if value is None:
                undefined.append(key)
                value = 0.0
        else:
            value = _finish_additive(key, _additive_totals(key, gold, pred, low))
        values[key] = value
    return values, undefined


# ---------------------------------------------------------------------------------------------------------------
# Scoring


def _number(value):
    return ("%.6g" % value) if value != int(value) or abs(value) >= 1e15 else "%d" % value


def build_items(key, ids, gold, pred, low, partly_within):
    """Items of ``key``, one per id: right (the gold value exactly), partly (off by at most ``partly_within``),
    wrong (further); the detail gives the prediction, the gold and the error."""
    items = Items("item", key, finish_of(key, low))
    for item_id, g, p in zip(ids, gold, pred):
        stats = item_stats(key, g, p, low)
        if p == g:
            items.add(item_id, stats)
            continue
        verdict = "partly" if abs(p - g) <= partly_within else "wrong"
        items.add(item_id, stats, verdict, "predicted %s, gold %s (error %s%s)"
                  % (_number(p), _number(g), "+" if p > g else "-", _number(abs(p - g))))
    return items


def _undefined_warning(key, values):
    constant = [what for what, data in (("the predictions", values[1]), ("the gold values", values[0]))
                if len(set(data)) < 2]
    if len(values[0]) < 2:
        why = "there is only one item"
    elif constant:
        why = " and ".join(constant) + " are all equal"
    else:
        why = "a spread lost to rounding"
    return "%s is undefined (%s): scored 0" % (key, why)


def score(ref_dir, res_dir, config):
    label_range = config.get("label_range")
    gold_values = read_gold(ref_dir, config)
    predicted = read_predictions(res_dir, config, gold_values)
    label = describe(locate(res_dir, config["submission"], SubmissionError), SubmissionError)
    ids = list(gold_values)
    gold, pred = [gold_values[k] for k in ids], [predicted[k] for k in ids]
    low = label_range[0] if label_range else None
    keys = config["keys"]
    values, undefined = metrics(keys, gold, pred, low)
    for key in keys:
        if not abs(values[key]) < MAX_SCORE:
            raise SubmissionError("%s: %s would be %.6g, beyond what the platform stores (less than 1e10 in "
                                  "magnitude): check the scale of the predictions" % (label, key, values[key]))
    warnings = [_undefined_warning(key, (gold, pred)) for key in undefined]
    if "r2" in keys and len(set(gold)) < 2:
        warnings.append("r2 is undefined (%s): scored %s, as sklearn's r2_score with force_finite"
                        % ("there is only one item" if len(gold) < 2 else "the gold values are all equal",
                           "1 (every prediction exact)" if values["r2"] == 1.0 else "0"))
    partly_within = 1 if label_range else (max(gold) - min(gold)) / 10.0

    def render(scores, gold_public):
        return _page(scores, gold, pred, gold_public)
    return make_result(config, values, render, ["scored %d ids" % len(ids)], warnings,
                       items=lambda key: build_items(key, ids, gold, pred, low, partly_within))


def _page(scores, gold, pred, gold_public):
    n = float(len(pred))
    mean = math.fsum(pred) / n
    totals = [("ids scored", len(pred)), ("predictions: mean", mean), ("predictions: lowest", min(pred)),
              ("predictions: highest", max(pred))]
    overview = scores_section(scores, totals)
    if not gold_public:
        return [overview]
    errors = sorted(abs(p - g) for g, p in zip(gold, pred))
    half = len(errors) // 2
    middle = errors[half] if len(errors) % 2 else (errors[half - 1] + errors[half]) / 2.0
    return [overview, section(
        "Errors", table(["figure", "value"], [
            ("gold: mean", math.fsum(gold) / n), ("gold: lowest", min(gold)), ("gold: highest", max(gold)),
            ("exact predictions", sum(1 for e in errors if e == 0)), ("median absolute error", middle),
            ("largest absolute error", errors[-1])]),
        paragraph("Lower is better for mae and rmse; higher for the others.", "note"))]
