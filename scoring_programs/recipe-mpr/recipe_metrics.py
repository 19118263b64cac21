"""accuracy (hit@1), mean reciprocal rank and per-type accuracy, plus the aggregates of the detailed results."""
from recipe_gold import QUERY_TYPES
from scoring_runtime import mean


def answer_rank(ranking, answer):
    """1-based rank of the answer in a ranked list of option ids; None when it is not in the list."""
    return ranking.index(answer) + 1 if answer in ranking else None


def reciprocal_rank(rank):
    return 1.0 / rank if rank else 0.0


def type_key(query_type):
    return "acc_" + query_type.lower()


class Group(object):
    """Scores over a subset of the queries (all of them, one type, one number of flags)."""

    def __init__(self, label, ranks):
        self.label = label
        self.count = len(ranks)
        self.correct = sum(1 for rank in ranks if rank == 1)
        self.accuracy = mean(1.0 if rank == 1 else 0.0 for rank in ranks)
        self.mrr = mean(reciprocal_rank(rank) for rank in ranks)


class Evaluation(object):
    def __init__(self, gold, rankings):
        ranks = [answer_rank(rankings[q.id], q.answer) for q in gold]
        self.overall = Group("all queries", ranks)
        self.by_type = [Group(t, [r for q, r in zip(gold, ranks) if t in q.types]) for t in QUERY_TYPES]
        flag_counts = sorted(set(len(q.types) for q in gold))
        self.by_flag_count = [Group(n, [r for q, r in zip(gold, ranks) if len(q.types) == n]) for n in flag_counts]
        # How often the answer came at each rank; the last slot counts answers missing from the ranking.
        self.max_options = max(len(q.options) for q in gold)
        self.rank_counts = [sum(1 for r in ranks if r == k) for k in range(1, self.max_options + 1)]
        self.rank_counts.append(sum(1 for r in ranks if r is None))

    def scores(self):
        pairs = [("accuracy", self.overall.accuracy), ("mrr", self.overall.mrr)]
        pairs.extend((type_key(g.label), g.accuracy) for g in self.by_type if g.count)
        return pairs

    def omitted_notes(self):
        return ["%s omitted: the reference has no %s query" % (type_key(g.label), g.label)
                for g in self.by_type if not g.count]
