"""The SemEval-2021 Task 5 metric: per-post F1 over character offsets, averaged over all gold posts.

Per post, with P the predicted and G the gold offsets (as sets):
  G empty          -> 1 if P is empty, else 0
  P empty (G not)  -> 0
  otherwise        -> 2|P & G| / (|P| + |G|)
Precision |P & G| / |P| and recall |P & G| / |G| follow the same rule whenever P or G is empty, so that the
three numbers agree on the posts where they are not defined.

Per post (``post_items``): the statistics posts (1), f1, precision and recall; spans_F1 = f1 / posts.
"""
from char_offsets import POST_GROUPS, post_scores
from scoring_runtime import Items, mean

# Per-post F1 histogram: exact 0 and exact 1 get bars of their own, as they are the most frequent values.
F1_BIN_LABELS = ("0", "0\u20130.2", "0.2\u20130.4", "0.4\u20130.6", "0.6\u20130.8", "0.8\u20131", "1")


def f1_bin(value):
    """Index into F1_BIN_LABELS of an F1 (0 to 1): 0 for 0, else 1 + int(5 * value), so exactly 1 is the last
    bin, "1", and any value below 1 falls below it (5 times the largest double under 1 is 4.999999999999999)."""
    return 1 + int(value * 5) if value > 0.0 else 0


class GroupScores(object):
    """Mean scores of a group of posts."""

    def __init__(self):
        self.f1, self.precision, self.recall = [], [], []

    def add(self, f1, precision, recall):
        self.f1.append(f1)
        self.precision.append(precision)
        self.recall.append(recall)

    @property
    def count(self):
        return len(self.f1)

    def means(self):
        return mean(self.f1), mean(self.precision), mean(self.recall)


class Summary(object):
    """Everything reported about one submission: the means and aggregate counts (nothing per post)."""

    GROUPS = POST_GROUPS

    def __init__(self):
        self.all = GroupScores()
        self.groups = dict(((gold_empty, pred_empty), GroupScores()) for _, gold_empty, pred_empty in self.GROUPS)
        self.f1_histogram = [0] * len(F1_BIN_LABELS)
        self.offsets_predicted = 0

    @property
    def posts(self):
        return self.all.count

    def means(self):
        """(mean F1, mean precision, mean recall) over all posts: the leaderboard scores."""
        return self.all.means()


def summarize(gold, predicted):
    """A Summary of ``predicted`` against ``gold`` ({id: offsets} each; predicted covers every gold id)."""
    summary = Summary()
    # Per post: its scores to all posts and to its group, its F1 to the histogram; the lookups done once.
    every, groups, histogram = summary.all, summary.groups, summary.f1_histogram
    f1s, precisions, recalls = every.f1.append, every.precision.append, every.recall.append
    offsets_predicted = 0
    both = groups[(False, False)]
    both_f1s, both_precisions, both_recalls = both.f1.append, both.precision.append, both.recall.append
    for post_id, gold_offsets in gold.items():
        offsets = predicted[post_id]
        predicted_count = len(offsets)
        offsets_predicted += predicted_count
        if predicted_count and gold_offsets:  # post_scores, inlined for the common case
            common = len(set(offsets).intersection(gold_offsets))
            f1 = 2 * common / float(predicted_count + len(gold_offsets))
            precision, recall = common / float(predicted_count), common / float(len(gold_offsets))
            f1s(f1)
            precisions(precision)
            recalls(recall)
            both_f1s(f1)
            both_precisions(precision)
            both_recalls(recall)
            histogram[f1_bin(f1)] += 1
            continue
        scores = post_scores(offsets, gold_offsets)
        f1s(scores[0])
        precisions(scores[1])
        recalls(scores[2])
        groups[(not gold_offsets, not offsets)].add(*scores)
        histogram[f1_bin(scores[0])] += 1
    summary.offsets_predicted += offsets_predicted
    return summary


def _mean_f1(totals):
    """spans_F1 from summed per-post statistics: fsum of the posts' F1 over their number, as Summary.means."""
    posts = totals.get("posts", 0)
    return totals.get("f1", 0.0) / posts if posts else 0.0


def _count(number, noun):
    return "%d %s%s" % (number, noun, "" if number == 1 else "s")


def post_detail(predicted, gold):
    """What a post with F1 < 1 got wrong, in offsets (e.g. "2 of 3 gold offsets found, 1 offset not toxic")."""
    if not gold:
        return "%s predicted, the gold has none" % _count(len(predicted), "offset")
    if not predicted:
        return "nothing predicted, %s" % _count(len(gold), "gold offset")
    found = len(set(predicted).intersection(gold))
    extra = len(predicted) - found
    return "%d of %s found" % (found, _count(len(gold), "gold offset")) + (
        ", %s not toxic" % _count(extra, "offset") if extra else "")


def post_items(gold, predicted):
    """The Items of spans_F1, one per gold post in the gold's order: what summarize averages, post by post."""
    items = Items("post", "spans_F1", _mean_f1)
    for post_id, gold_offsets in gold.items():
        offsets = predicted[post_id]
        f1, precision, recall = post_scores(offsets, gold_offsets)
        stats = {"posts": 1}
        for name, value in (("f1", f1), ("precision", precision), ("recall", recall)):
            if value:
                stats[name] = value
        if f1 == 1.0:
            items.add("%d" % post_id, stats)
        else:
            items.add("%d" % post_id, stats, "wrong" if f1 == 0.0 else "partly", post_detail(offsets, gold_offsets))
    return items
