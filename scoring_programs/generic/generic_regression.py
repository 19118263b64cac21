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
import math
import re
from collections import Counter

from report_html import paragraph, section, table
from scoring_runtime import Items, ReferenceDataError, SubmissionError, quote

from generic_result import make_result, scores_section
from generic_table import read_gold_csv, read_submission_csv

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


def read_gold(ref_dir, config):
    """{id: gold value}; ReferenceDataError naming the file, line and problem (``new`` checks with it)."""
    table, label = read_gold_csv(ref_dir, config, [config["value_column"]])
    return _values(table, label, config["value_column"], ReferenceDataError, config.get("label_range"))


# ---------------------------------------------------------------------------------------------------------------
# Metrics on a multiset of (gold, prediction) pairs: [(gold, prediction, count)], each pair once


def _weighted_pearson(xs, ys, ws):
    """Pearson's r of the points (x, y) each counted w times, two-pass as scipy; None when x or y is constant."""
    if len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    total = float(math.fsum(ws))
    mx = math.fsum(w * x for x, w in zip(xs, ws)) / total
    my = math.fsum(w * y for y, w in zip(ys, ws)) / total
    dx = [x - mx for x in xs]
    dy = [y - my for y in ys]
    sxy = math.fsum(w * a * b for a, b, w in zip(dx, dy, ws))
    sxx = math.fsum(w * a * a for a, w in zip(dx, ws))
    syy = math.fsum(w * b * b for b, w in zip(dy, ws))
    if sxx <= 0 or syy <= 0:  # a spread lost to rounding
        return None
    return max(-1.0, min(1.0, sxy / (math.sqrt(sxx) * math.sqrt(syy))))


def _average_ranks(values, ws):
    """{value: its average rank (1-based)} over the values counted ws times (scipy.stats.rankdata 'average')."""
    weight = Counter()
    for value, w in zip(values, ws):
        weight[value] += w
    ranks, before = {}, 0
    for value in sorted(weight):
        w = weight[value]
        ranks[value] = before + (w + 1) / 2.0
        before += w
    return ranks


def pearson(pairs):
    return _weighted_pearson([g for g, _, _ in pairs], [p for _, p, _ in pairs], [w for _, _, w in pairs])


def spearman(pairs):
    gold, pred, ws = [g for g, _, _ in pairs], [p for _, p, _ in pairs], [w for _, _, w in pairs]
    gold_ranks, pred_ranks = _average_ranks(gold, ws), _average_ranks(pred, ws)
    return _weighted_pearson([gold_ranks[g] for g in gold], [pred_ranks[p] for p in pred], ws)


def _tie_pairs(weights):
    return sum(w * (w - 1) // 2 for w in weights)


def kendall_tau(pairs):
    """Kendall's tau-b (scipy.stats.kendalltau's default): (concordant - discordant) / sqrt((n0 - ties in the gold)
    (n0 - ties in the predictions)), n0 = n(n-1)/2; exact integer counts, discordant pairs counted in n log n."""
    pairs = [(g, p, int(w)) for g, p, w in pairs]
    gold_weight, pred_weight = Counter(), Counter()
    for g, p, w in pairs:
        gold_weight[g] += w
        pred_weight[p] += w
    if len(gold_weight) < 2 or len(pred_weight) < 2:
        return None
    n = sum(w for _, _, w in pairs)
    total = n * (n - 1) // 2
    gold_ties, pred_ties = _tie_pairs(gold_weight.values()), _tie_pairs(pred_weight.values())
    both_ties = _tie_pairs(w for _, _, w in pairs)
    # Sort by the column with more distinct values; a Fenwick tree over the ranks of the other one.
    if len(gold_weight) >= len(pred_weight):
        ordered, tree_values = sorted((g, p, w) for g, p, w in pairs), sorted(pred_weight)
    else:
        ordered, tree_values = sorted((p, g, w) for g, p, w in pairs), sorted(gold_weight)
    rank = dict((value, i + 1) for i, value in enumerate(tree_values))
    size = len(tree_values)
    tree = [0] * (size + 1)
    inserted = discordant = 0
    for _, second, w in ordered:
        r = rank[second]
        below, i = 0, r
        while i:  # weight inserted so far with a rank <= r
            below += tree[i]
            i &= i - 1
        discordant += w * (inserted - below)
        inserted += w
        i = r
        while i <= size:
            tree[i] += w
            i += i & -i
    concordant = total - gold_ties - pred_ties + both_ties - discordant
    return max(-1.0, min(1.0, (concordant - discordant) / math.sqrt(total - gold_ties) / math.sqrt(total - pred_ties)))


def r2(pairs):
    """sklearn.metrics.r2_score; a constant gold (or one item): 1.0 when every prediction is exact, else 0.0."""
    ws = [w for _, _, w in pairs]
    total = float(math.fsum(ws))
    sse = math.fsum(w * (g - p) * (g - p) for g, p, w in pairs)
    if len(set(g for g, _, _ in pairs)) < 2:
        return 1.0 if sse == 0 else 0.0
    mean = math.fsum(w * g for g, _, w in pairs) / total
    sst = math.fsum(w * (g - mean) * (g - mean) for g, _, w in pairs)
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


def _pair_name(gold, pred):
    name = "%s%r,%r" % (_PAIR, gold, pred)
    _PAIRS[name] = (gold, pred)
    return name


# name -> (gold, prediction), so that a resample's names are not parsed again
_PAIRS = {}


def pairs_of_totals(totals):
    """[(gold, prediction, count)] from summed pair statistics, in sorted order (the result does not depend on the
    order of the items)."""
    found = []
    for name, count in totals.items():
        if count and name.startswith(_PAIR):
            pair = _PAIRS.get(name)
            if pair is None:
                gold, pred = name[len(_PAIR):].split(",")
                pair = (float(gold), float(pred))
            found.append((pair[0], pair[1], count))
    found.sort()
    return found


def finish_of(key, low=None):
    """The Items' finish of ``key``: its value from summed statistics (0.0 where undefined)."""
    if key in _PAIR_METRICS:
        metric = _PAIR_METRICS[key]

        def finish(totals):
            pairs = pairs_of_totals(totals)
            value = metric(pairs) if pairs else None
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
                counts = Counter(zip(gold, pred))
                pairs = sorted((g, p, float(w)) for (g, p), w in counts.items())
            value = _PAIR_METRICS[key](pairs)
            if value is None:
                undefined.append(key)
                value = 0.0
        else:
            totals = {}
            for g, p in zip(gold, pred):
                for name, number in item_stats(key, g, p, low).items():
                    totals.setdefault(name, []).append(number)
            value = _finish_additive(key, dict((name, math.fsum(v)) for name, v in totals.items()))
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
    column, label_range = config["value_column"], config.get("label_range")
    gold_values = read_gold(ref_dir, config)
    table, label = read_submission_csv(res_dir, config, [column], gold_values)
    predicted = _values(table, label, column, SubmissionError, label_range)
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
