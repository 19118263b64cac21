"""Kind ``ranking`` (multiple choice): one correct option per query; the submission gives the chosen option or the
options ranked best first. accuracy = share of queries whose first option is correct; mrr = mean of 1/rank of the
correct option (0 when it is not listed); hits_at_k = share of queries with the correct option in the first k.

Files: JSON ``{query id: option}`` (gold) and ``{query id: option or [options, best first]}`` (submission), or CSV
with an id column and an answer (gold) or ranking column (submission: options joined by the separator). Option
ids are strings or integers, compared as ids are (integers as numbers).
Per-item statistics: "queries" and "rank:<r>" (the correct option's rank, when listed), from which FORMULAS give
any key.
"""
import json
import math
from collections import Counter

from report_html import histogram, paragraph, section, table
from scoring_runtime import Items, ReferenceDataError, SubmissionError, load_json, quote, read_text

from generic_config import file_format
from generic_items import ordinal
from generic_result import make_result, scores_section
from generic_table import check_complete, collect, csv_records, describe, id_key, locate

HITS = (3, 5, 10)
_SHOWN_RANKS = 10


class _Duplicates(dict):
    """A JSON object that remembers the first key given twice (json.loads keeps the last one silently)."""
    repeated = None


def _pairs(pairs):
    obj = _Duplicates(pairs)
    if len(obj) < len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                obj.repeated = key
                break
            seen.add(key)
    return obj


def _option(value):
    """An option id as a key, or None when ``value`` is not a string or an integer."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    key = id_key("%d" % value if isinstance(value, int) else value)
    return key or None


def _json_table(path, label, error, gold):
    data = load_json(read_text(path, label, error), label, error, object_pairs_hook=_pairs)
    if not isinstance(data, dict):
        raise error("%s must hold a JSON object {query id: option id%s}"
                    % (label, "" if gold is None else " or [option ids, best first]"))
    if data.repeated is not None:
        raise error("%s: query %s is given more than once" % (label, quote(data.repeated)))
    table = {}
    for raw_id, value in data.items():
        key = id_key(raw_id)
        if gold is not None and key not in gold:
            raise error("%s: %s is not a query id of this phase" % (label, quote(raw_id)))
        if key in table:
            raise error("%s: query %s is given more than once" % (label, quote(raw_id)))
        table[key] = (quote(raw_id), value)
    if not table:
        raise error("%s holds no queries" % label)
    return table


def read_answers(ref_dir, config):
    """{query id: the correct option id}."""
    error = ReferenceDataError
    path = locate(ref_dir, config["reference"], error)
    label = describe(path, error)
    answers = {}
    if file_format(config["reference"]) == "json":
        for key, (where, value) in _json_table(path, label, error, None).items():
            answers[key] = _option(value)
            if answers[key] is None:
                raise error("%s: the answer of query %s must be an option id (a string or an integer)"
                            % (label, where))
        return answers
    table = collect(csv_records(path, label, config["id_column"], [config["answer_column"]], error), label, error)
    for key, (line, cells) in table.items():
        answers[key] = id_key(cells[0])
        if not answers[key]:
            raise error("%s, line %d: the answer is empty" % (label, line))
    return answers


def _kind(value):
    if isinstance(value, (list, dict)):
        return "a list" if isinstance(value, list) else "an object"
    return "null" if value is None else quote(json.dumps(value))


def _ranking(options, where):
    """The ranked option keys of one query; SubmissionError when an item is not an option id or comes twice."""
    if not isinstance(options, list):
        options = [options]
    if not options:
        raise SubmissionError("%s: the list of options is empty; rank at least one option" % where)
    ranking, seen = [], set()
    for position, value in enumerate(options, 1):
        key = _option(value)
        if key is None:
            raise SubmissionError("%s: item %d must be an option id (a string or an integer), found %s"
                                  % (where, position, _kind(value)))
        if key in seen:
            raise SubmissionError("%s: the option %s is ranked twice" % (where, quote(key)))
        seen.add(key)
        ranking.append(key)
    return ranking


def read_rankings(res_dir, config, answers):
    """{query id: [option ids, best first]} for exactly the gold queries."""
    name = config["submission"]
    expected = ("the zip must hold %s at its root: %s" % (
        name, "a JSON object {query id: option id or [option ids, best first]}" if file_format(name) == "json"
        else "a CSV file with columns %s,%s" % (config["id_column"], config["ranking_column"])))
    path = locate(res_dir, name, SubmissionError, expected)
    label = describe(path, SubmissionError)
    rankings = {}
    if file_format(name) == "json":
        for key, (where, value) in _json_table(path, label, SubmissionError, answers).items():
            rankings[key] = _ranking(value, "%s, query %s" % (label, where))
    else:
        separator = config["separator"]
        table = collect(csv_records(path, label, config["id_column"], [config["ranking_column"]], SubmissionError),
                        label, SubmissionError, answers)
        for key, (line, cells) in table.items():
            items = [item for item in (part.strip() for part in cells[0].split(separator)) if item]
            rankings[key] = _ranking(items, "%s, line %d" % (label, line))
    check_complete(rankings, answers, label)
    return rankings


def _hits(k):
    return lambda ranks, queries: sum(count for rank, count in ranks.items() if rank and rank <= k) / queries


# Each metric from {rank or None: queries} and the number of queries (a float): the same formulas score the whole
# set (metrics) and any resample of queries (build_items' finish), so both give identical floats.
FORMULAS = dict([
    ("accuracy", lambda ranks, queries: ranks.get(1, 0) / queries),
    # count * (1/rank) per distinct rank (one float per rank, not per query); an fsum of one 1/rank per query
    # differs from it in the last bit now and then, so the items' statistics are the rank counts
    ("mrr", lambda ranks, queries: math.fsum(count * (1.0 / rank) for rank, count in ranks.items() if rank) / queries),
] + [("hits_at_%d" % k, _hits(k)) for k in HITS])


def _rank(answer, ranking):
    """The 1-based rank of ``answer`` in ``ranking``; None when it is not listed."""
    return ranking.index(answer) + 1 if answer in ranking else None


def metrics(answers, rankings):
    """(every ranking metric by key, {rank or None: queries}) over the queries of ``answers``."""
    ranks = Counter(_rank(answer, rankings[key]) for key, answer in answers.items())
    queries = float(len(answers))
    return dict((key, formula(ranks, queries)) for key, formula in FORMULAS.items()), ranks


def build_items(key, answers, rankings):
    """Items of the score ``key``, one per query: right (the answer ranked first), partly (listed lower), wrong
    (not listed)."""
    formula = FORMULAS[key]

    def finish(totals):
        ranks = dict((int(name[5:]), count) for name, count in totals.items() if name.startswith("rank:"))
        return formula(ranks, totals["queries"]) if totals.get("queries") else 0.0
    items = Items("query", key, finish)
    for query, answer in answers.items():
        ranking = rankings[query]
        rank = _rank(answer, ranking)
        if rank is None:
            items.add(query, {"queries": 1}, "wrong",
                      "predicted %s, gold %s" % (quote(ranking[0]), quote(answer)) if len(ranking) == 1 else
                      "answer %s not among the %d ranked" % (quote(answer), len(ranking)))
        else:
            items.add(query, {"queries": 1, "rank:%d" % rank: 1}, "right" if rank == 1 else "partly",
                      "" if rank == 1 else "answer ranked %s of %d" % (ordinal(rank), len(ranking)))
    return items


def read_gold(ref_dir, config):
    """{query id: answer}; ReferenceDataError naming the file and problem (``new`` checks with it)."""
    return read_answers(ref_dir, config)


def score(ref_dir, res_dir, config):
    answers = read_gold(ref_dir, config)
    rankings = read_rankings(res_dir, config, answers)
    values, ranks = metrics(answers, rankings)

    def render(scores, gold_public):
        return _page(scores, ranks, len(answers))
    return make_result(config, values, render, ["scored %d queries" % len(answers)],
                       items=lambda key: build_items(key, answers, rankings))


def _page(scores, ranks, queries):
    """Aggregates only, whether the gold is public or not: the rank of the correct option, never per query."""
    top = max([rank for rank in ranks if rank] or [1])
    shown = list(range(1, min(top, _SHOWN_RANKS) + 1))
    labels = ["rank %d" % k for k in shown]
    counts = [ranks.get(k, 0) for k in shown]
    beyond = sum(count for rank, count in ranks.items() if rank and rank > _SHOWN_RANKS)
    if beyond:
        labels.append("rank > %d" % _SHOWN_RANKS)
        counts.append(beyond)
    labels.append("not ranked")
    counts.append(ranks.get(None, 0))
    return [scores_section(scores, [("queries scored", queries)]), section(
        "Rank of the correct option",
        paragraph("How many queries had the correct option at each rank of the submitted ranking; a single choice "
                  "ranks one option, so a wrong choice counts as not ranked.", "note"),
        histogram(counts, labels), table(["rank", "queries"], list(zip(labels, counts))))]
