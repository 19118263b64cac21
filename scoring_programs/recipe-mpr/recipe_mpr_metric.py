"""accuracy (hit@1), mean reciprocal rank and per-type accuracy, plus the aggregates of the detailed results."""
import math
from collections import Counter
from itertools import chain, repeat

from recipe_mpr_gold import QUERY_TYPES
from scoring_runtime import Items


def reciprocal_rank(rank):
    return 1.0 / rank if rank else 0.0


def accuracy_of_totals(totals):
    """accuracy from hits and queries summed over queries, as Items.finish receives them."""
    queries = totals.get("queries", 0)
    return totals.get("hits", 0) / queries if queries else 0.0


def ordinal(number):
    suffix = "th" if 11 <= number % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return "%d%s" % (number, suffix)


def _query_detail(rank, options, ranked):
    if rank:
        return "answer ranked %s of %d options" % (ordinal(rank), options)
    if ranked == 0:
        return "no option chosen (the pred text is none of the options)"
    if ranked == 1:
        return "another of the %d options chosen" % options
    return "answer not in the ranking (%d of %d options ranked)" % (ranked, options)


def query_items(rows, key="accuracy"):
    """Items of the ranking score (accuracy) from (query id, rank of the answer or None, options, options ranked)
    in gold order: a hit and the reciprocal rank per query (rr, for MRR; not what ranks)."""
    items = Items("query", key, accuracy_of_totals)
    for qid, rank, options, ranked in rows:
        stats = {"queries": 1, "hits": 1 if rank == 1 else 0, "rr": reciprocal_rank(rank)}
        verdict = "right" if rank == 1 else "partly" if rank else "wrong"
        items.add(qid, stats, verdict, "" if rank == 1 else _query_detail(rank, options, ranked))
    return items


def type_key(query_type):
    return "acc_" + query_type.lower()


def _sum_of_reciprocals(rank_counts):
    # The exact sum of every query's 1/rank (fsum), without a list of one float per query.
    return math.fsum(chain.from_iterable(repeat(1.0 / rank, count) for rank, count in rank_counts.items() if rank))


class Group(object):
    """Scores over a subset of the queries (all of them, one type, one number of flags).

    ranks: the 1-based rank of the answer in each query's ranking (None when absent), or {rank: queries}.
    """

    def __init__(self, label, ranks):
        counts = ranks if isinstance(ranks, dict) else Counter(ranks)
        self.label = label
        self.count = sum(counts.values())
        self.correct = counts.get(1, 0)
        # correct / count is the exact mean of the 0/1 hits; the MRR is an exact sum too, so no order matters.
        self.accuracy = float(self.correct) / self.count if self.count else 0.0
        self.mrr = _sum_of_reciprocals(counts) / self.count if self.count else 0.0


def gold_columns(gold, rankings):
    """(ids, ranks of the answer, flagged types, options, options ranked) per query in gold order, from the gold
    (GoldQuery list) and rankings (query id -> option ids): the columns the gold index gives, plus the ranks.
    Plain lists of ids and numbers, so keeping them for the per-query figures keeps no parsed query alive."""
    ids = [query.id for query in gold]
    chosen = list(map(rankings.__getitem__, ids))
    ranks = [ranking.index(answer) + 1 if answer in ranking else None
             for ranking, answer in zip(chosen, [query.answer for query in gold])]
    return (ids, ranks, [query.types for query in gold], [len(query.options) for query in gold],
            list(map(len, chosen)))


def combinations(gold, rankings):
    """Queries counted by (rank of the answer, flagged types, number of options); a rank of None: the answer is not
    in the ranking. Every score is a sum over these few combinations."""
    return column_combinations(*gold_columns(gold, rankings)[1:4])


def column_combinations(ranks, types, option_counts):
    """``combinations`` from parallel columns over the queries: rank of the answer, flagged types, options."""
    return Counter(zip(ranks, types, option_counts))


class Evaluation(object):
    def __init__(self, gold=None, rankings=None, counts=None):
        """From the gold (GoldQuery list) and rankings (query id -> option ids), or from ``counts``, as
        ``combinations`` makes them."""
        if counts is None:
            counts = combinations(gold, rankings)
        overall, by_type, by_flags = Counter(), dict((t, Counter()) for t in QUERY_TYPES), {}
        for (rank, types, _), count in counts.items():
            overall[rank] += count
            for query_type in types:
                by_type[query_type][rank] += count
            by_flags.setdefault(len(types), Counter())[rank] += count
        self.max_options = max(options for _, _, options in counts)
        self.overall = Group("all queries", overall)
        self.by_type = [Group(t, by_type[t]) for t in QUERY_TYPES]
        self.by_flag_count = [Group(n, by_flags[n]) for n in sorted(by_flags)]
        # How often the answer came at each rank; the last slot counts answers missing from the ranking.
        self.rank_counts = [overall.get(k, 0) for k in range(1, self.max_options + 1)] + [overall.get(None, 0)]

    def scores(self):
        pairs = [("accuracy", self.overall.accuracy), ("mrr", self.overall.mrr)]
        pairs.extend((type_key(g.label), g.accuracy) for g in self.by_type if g.count)
        return pairs

    def omitted_notes(self):
        return ["%s omitted: the reference has no %s query" % (type_key(g.label), g.label)
                for g in self.by_type if not g.count]
