"""Kind ``spans``: character offsets per post, scored as SemEval-2021 Task 5 (scoring_programs/toxic-spans).

Per post, with P the predicted and G the gold offsets (sets): F1 = 2|P&G| / (|P|+|G|), precision |P&G|/|P|,
recall |P&G|/|G|; when G or P is empty all three are 1 if both are empty and 0 otherwise. The scores are the means
over the gold posts. Files are ``<id><TAB>[offsets]`` lines, or CSV with a spans column (and an id column, or the
0-based row number as id, as in the released tsd_*.csv).
Per-item statistics: "posts" and the post's value of the ranking key ("f1", "precision" or "recall").
"""
from char_offsets import POST_GROUPS as GROUPS, describe_list_problem, parse_offsets, post_scores
from report_html import paragraph, section, table
from scoring_runtime import Items, ReferenceDataError, SubmissionError, iter_lines, mean, read_text

from generic_config import file_format
from generic_result import make_result, scores_section
from generic_table import check_complete, collect, csv_records, describe, locate

_HINT = " (write [] for a post without spans)"


def line_records(path, label, error):
    """(line, id, [list text]) of each ``<id><TAB>[offsets]`` line; blank lines and trailing tabs are ignored."""
    for number, line in iter_lines(read_text(path, label, error)):
        if not line.strip():
            continue
        parts = line.split("\t")
        while len(parts) > 2 and not parts[-1].strip():
            parts.pop()
        if len(parts) != 2:
            raise error("%s, line %d: expected <id><TAB><list of offsets>, found %s"
                        % (label, number, "no tab" if len(parts) == 1 else "%d tabs" % (len(parts) - 1)))
        yield number, parts[0], [parts[1]]


def read_spans(directory, config, error, gold=None):
    """{id: offsets}; a submission (``gold`` given) must cover exactly the gold ids."""
    name = config["reference" if gold is None else "submission"]
    expected = "the zip must hold %s at its root, one line <id><TAB><list of offsets> per post" % name
    path = locate(directory, name, error, expected)
    label = describe(path, error)
    if file_format(name) == "csv":
        records = csv_records(path, label, config["id_column"], [config["spans_column"]], error)
    else:
        records = line_records(path, label, error)
    table = collect(records, label, error, gold)
    if gold is not None:
        check_complete(table, gold, label, _HINT)
    spans = {}
    for key, (line, cells) in table.items():
        offsets = parse_offsets(cells[0])
        if offsets is None:
            if error is ReferenceDataError:  # never quote the gold: participants see this message too
                raise error("%s, line %d: the spans are not a list of non-negative integers such as [4, 5, 6]"
                            % (label, line))
            raise error("%s, line %d: %s" % (label, line, describe_list_problem(cells[0])))
        spans[key] = offsets
    return spans


def read_gold(ref_dir, config):
    """{post id: gold offsets}; ReferenceDataError naming the file, line and problem (``new`` checks with it)."""
    return read_spans(ref_dir, config, ReferenceDataError)


def score(ref_dir, res_dir, config):
    gold = read_gold(ref_dir, config)
    predicted = read_spans(res_dir, config, SubmissionError, gold)
    groups = dict(((g, p), []) for _, g, p in GROUPS)
    per_post = []
    for key, gold_offsets in gold.items():
        scores = post_scores(predicted[key], gold_offsets)
        per_post.append(scores)
        groups[(not gold_offsets, not predicted[key])].append(scores)
    f1, precision, recall = _means(per_post)
    values = {"spans_f1": f1, "spans_precision": precision, "spans_recall": recall}

    def render(scores, gold_public):
        return _page(scores, groups, len(per_post), gold_public)
    return make_result(config, values, render, ["scored %d posts" % len(per_post)],
                       items=lambda key: build_items(key, gold, predicted, per_post))


# Each key's per-post value: its statistic's name and its place in post_scores' (F1, precision, recall).
_PER_POST = {"spans_f1": ("f1", 0), "spans_precision": ("precision", 1), "spans_recall": ("recall", 2)}


def build_items(key, gold, predicted, per_post):
    """Items of the score ``key``, one per gold post (per_post: its scores, in gold order): right (the exact
    offsets), wrong (scores 0 for ``key``) or partly, with how many gold offsets were found and how many extra."""
    name, place = _PER_POST[key]

    def finish(totals):
        return totals.get(name, 0.0) / totals["posts"] if totals.get("posts") else 0.0
    items = Items("post", key, finish)
    for (post, gold_offsets), scores in zip(gold.items(), per_post):
        value, guess = scores[place], set(predicted[post])
        stats = {"posts": 1, name: value}
        if guess == set(gold_offsets):
            items.add(post, stats)
            continue
        found = len(guess.intersection(gold_offsets))
        extra = len(guess) - found
        if gold_offsets:
            detail = "%d of %d gold offsets found%s" % (found, len(gold_offsets), ", %d extra" % extra if extra else "")
        else:
            detail = "the gold has no offset, %d predicted" % extra
        items.add(post, stats, "partly" if value else "wrong", detail)
    return items


def _means(rows):
    return tuple(mean(column) for column in zip(*rows)) if rows else (0.0, 0.0, 0.0)


def _page(scores, groups, posts, gold_public):
    overview = scores_section(scores, [("posts scored", posts)])
    note = paragraph("Each score is the mean over all posts of a per-post value. A post without gold spans scores 1 "
                     "only if nothing is predicted for it; a post with gold spans scores 0 when nothing is predicted.",
                     "note")
    if not gold_public:  # the groups split the posts by a gold property (with or without spans)
        return [overview, note]
    rows = [(name,) + (len(groups[(g, p)]),) + _means(groups[(g, p)]) for name, g, p in GROUPS]
    return [overview, note, section("Posts by kind", table(
        ["posts", "count", "mean F1", "mean precision", "mean recall"], rows))]
