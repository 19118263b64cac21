"""Kind ``ranking``: a multiple-choice gold (one correct option per query) or a TREC qrels gold (graded relevance,
several relevant documents per query); the submission ranks options or documents, best first.

Gold: JSON ``{query id: option}`` or CSV (id and answer columns): multiple choice, the answer relevant with grade 1;
any other file name: TREC qrels lines (generic_ranking_trec). Submission: JSON ``{query id: option or [options,
best first]}`` (with a qrels gold also ``{query id: {document: score}}``), CSV (id and ranking columns, the options
joined by the separator), or a TREC or MS MARCO run (generic_ranking_trec).

Measures (trec_eval's, relevance = grade >= relevance_threshold; a query's first relevant rank r1):
  accuracy = share of queries with r1 = 1; mrr = mean of 1/r1 (0 without); mrr_at_k the same counting only r1 <= k;
  hits_at_k = share with r1 <= k; p_at_k = relevant in the first k / k; recall_at_k = relevant in the first k /
  relevant;
  map = sum of the precision at each relevant rank / relevant; ndcg(_at_k) = sum of grade / log2(rank + 1) (first k)
  over the same sum for the judged grades in decreasing order (first k).
Queries missing from the run: ``missing_queries`` "refuse", "zero" (score 0, counted) or "skip" (not counted).
Per-item statistics: "queries" and, for keys from r1, "rank:<r1>"; for the others the query's value under the key's
own name; the formulas below give any key from their sums.
"""
import bisect
import json
import math
import re
from collections import Counter

from report_html import histogram, paragraph, section, table
from scoring_runtime import Items, ReferenceDataError, SubmissionError, quote

from generic_config import file_format
from generic_items import ordinal
from generic_ranking_trec import RUN_LINES, read_qrels, read_run, summarize
from generic_result import make_result, scores_section
from generic_table import (RepeatedKey, check_complete, collect, csv_records, describe, id_key, json_members,
                           locate)

HITS = (3, 5, 10)
_SHOWN_RANKS = 10


def _option(value):
    """An option id as a key, or None when ``value`` is not a string or an integer."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    key = id_key("%d" % value if isinstance(value, int) else value)
    return key or None


def _json_table(path, label, error, gold, unknown=None):
    """{query key: (quoted id, value)} of a JSON object file, read member by member: the first bad query ends the
    reading there."""
    other, members = json_members(path, label, error)
    if members is None:
        raise error("%s must hold a JSON object {query id: option id%s}"
                    % (label, "" if gold is None else " or [option ids, best first]"))
    table = {}
    try:
        for raw_id, value in members:
            key = id_key(raw_id)
            if gold is not None and key not in gold:
                if unknown is not None:  # a lenient missing_queries: ignored, with a warning
                    unknown.append(raw_id)
                    continue
                raise error("%s: %s is not a query id of this phase" % (label, quote(raw_id)))
            if key in table:
                raise error("%s: query %s is given more than once" % (label, quote(raw_id)))
            table[key] = (quote(raw_id), value)
    except RepeatedKey as exc:
        raise error("%s: query %s is given more than once" % (label, quote(exc.args[0])))
    if not table and not unknown:
        raise error("%s holds no queries" % label)
    return table


def is_qrels(config):
    """Whether the gold is TREC qrels lines (any name but .json and .csv)."""
    return file_format(config["reference"]) == "lines"


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


def _ranking(options, where, noun="option"):
    """The ranked option keys of one query; SubmissionError when an item is not an option id or comes twice. For
    documents (a qrels gold) an empty ranking is allowed: the query retrieves nothing."""
    if not isinstance(options, list):
        options = [options]
    if not options and noun == "option":
        raise SubmissionError("%s: the list of options is empty; rank at least one option" % where)
    ranking, seen = [], set()
    for position, value in enumerate(options, 1):
        key = _option(value)
        if key is None:
            raise SubmissionError("%s: item %d must be %s id (a string or an integer), found %s"
                                  % (where, position, "an option" if noun == "option" else "a document", _kind(value)))
        if key in seen:
            raise SubmissionError("%s: the %s %s is ranked twice" % (where, noun, quote(key)))
        seen.add(key)
        ranking.append(key)
    return ranking


def _scored(value, where):
    """The documents of ``{document: score}`` ordered as a TREC run's: score descending, ties by id descending."""
    if value.repeated is not None:
        raise SubmissionError("%s: document %s is given more than once" % (where, quote(value.repeated)))
    scored, seen = [], set()
    for raw, number in value.items():
        if isinstance(number, bool) or not isinstance(number, (int, float)) or number - number != 0:
            raise SubmissionError("%s: the score of document %s must be a finite number, found %s"
                                  % (where, quote(raw), _kind(number)))
        key = id_key(raw)
        if not key or key in seen:
            raise SubmissionError("%s: document %s %s" % (where, quote(raw), "is an empty id" if not key else
                                                           "is given more than once"))
        seen.add(key)
        scored.append((float(number), key))
    scored.sort(reverse=True)
    return [key for _, key in scored]


def read_rankings(res_dir, config, answers, strict=True, unknown=None, qrels=False):
    """{query id: [option or document ids, best first]} from a JSON or CSV submission: exactly the gold queries
    with ``strict``, else those of the gold it has (the others' ids appended to ``unknown``)."""
    name = config["submission"]
    noun = "document" if qrels else "option"
    expected = ("the zip must hold %s at its root: %s" % (
        name, "a JSON object {query id: %s}" % ("[document ids, best first] or {document id: score}" if qrels else
                                                "option id or [option ids, best first]")
        if file_format(name) == "json" else "a CSV file with columns %s,%s" % (config["id_column"],
                                                                               config["ranking_column"])))
    path = locate(res_dir, name, SubmissionError, expected)
    label = describe(path, SubmissionError)
    rankings = {}
    if file_format(name) == "json":
        for key, (where, value) in _json_table(path, label, SubmissionError, answers,
                                               None if strict else unknown).items():
            where = "%s, query %s" % (label, where)
            rankings[key] = _scored(value, where) if qrels and isinstance(value, dict) else \
                _ranking(value, where, noun)
    else:
        separator = config["separator"]
        records = csv_records(path, label, config["id_column"], [config["ranking_column"]], SubmissionError)
        table = collect(records, label, SubmissionError, answers if strict else None)
        for key, (line, cells) in table.items():
            if key not in answers:
                unknown.append(key)
                continue
            items = [item for item in (part.strip() for part in cells[0].split(separator)) if item]
            rankings[key] = _ranking(items, "%s, line %d" % (label, line), noun)
    if strict:
        check_complete(rankings, answers, label)
    return rankings, label


def _hits(k):
    return lambda ranks, queries: sum(count for rank, count in ranks.items() if rank and rank <= k) / queries


def _mrr_at(k):
    return lambda ranks, queries: math.fsum(count * (1.0 / rank) for rank, count in ranks.items()
                                            if rank and rank <= k) / queries


# Each metric from {rank or None: queries} and the number of queries (a float): the same formulas score the whole
# set (metrics) and any resample of queries (build_items' finish), so both give identical floats.
FORMULAS = dict([
    ("accuracy", lambda ranks, queries: ranks.get(1, 0) / queries),
    # count * (1/rank) per distinct rank (one float per rank, not per query); an fsum of one 1/rank per query
    # differs from it in the last bit now and then, so the items' statistics are the rank counts
    ("mrr", lambda ranks, queries: math.fsum(count * (1.0 / rank) for rank, count in ranks.items() if rank) / queries),
] + [("hits_at_%d" % k, _hits(k)) for k in HITS])

_CUTOFF = re.compile(r"(p|recall|mrr|ndcg|hits)_at_([1-9][0-9]*)\Z")


def rank_formula(key):
    """The formula of a key that depends only on the first relevant rank (FORMULAS' form), or None."""
    if key in FORMULAS:
        return FORMULAS[key]
    match = _CUTOFF.match(key)
    if match and match.group(1) in ("hits", "mrr"):
        return (_hits if match.group(1) == "hits" else _mrr_at)(int(match.group(2)))
    return None


class Query(object):
    """One gold query: its judgments (``num_rel`` relevant, ``ideal`` the positive grades, decreasing) and the
    run's summary (``retrieved`` documents; ``hits``: (rank, grade) of those with a grade above 0; ``relevant``:
    the ranks of the relevant ones); ``present`` is False for a query the run lacks."""
    __slots__ = ("id", "present", "retrieved", "hits", "relevant", "num_rel", "ideal", "ranking")

    def __init__(self, query, judged, threshold, summary, ranking=None):
        self.id, self.ranking = query, ranking
        grades = [grade for grade in judged.values() if grade > 0]
        self.num_rel = sum(1 for grade in grades if grade >= threshold)
        self.ideal = sorted(grades, reverse=True)
        self.present = summary is not None
        self.retrieved, self.hits = summary or (0, [])
        self.relevant = [rank for rank, grade in self.hits if grade >= threshold]

    @property
    def first(self):
        return self.relevant[0] if self.relevant else None


def _found(query, k):
    return bisect.bisect_right(query.relevant, k)


def _ndcg(query, k=None):
    """trec_eval's ndcg (k None) and ndcg_cut.k: gain = grade, discount log2(rank + 1), the ideal from the judged
    grades; 0 when no document of the query has a grade above 0."""
    ideal = query.ideal if k is None else query.ideal[:k]
    best = sum(grade / math.log2(rank + 1) for rank, grade in enumerate(ideal, 1))
    if not best > 0.0:
        return 0.0
    return sum(grade / math.log2(rank + 1) for rank, grade in query.hits if k is None or rank <= k) / best


def query_measure(key):
    """The per-query value of a key that is a mean over queries, as a function of a Query, or None."""
    if key == "map":
        return lambda q: sum(found / float(rank) for found, rank in enumerate(q.relevant, 1)) / q.num_rel \
            if q.num_rel else 0.0
    if key == "ndcg":
        return _ndcg
    match = _CUTOFF.match(key)
    if not match or match.group(1) in ("hits", "mrr"):
        return None
    name, k = match.group(1), int(match.group(2))
    if name == "p":
        return lambda q: _found(q, k) / float(k)
    if name == "recall":
        return lambda q: _found(q, k) / float(q.num_rel) if q.num_rel else 0.0
    return lambda q: _ndcg(q, k)


def metrics(queries, keys):
    """({key: value} for ``keys``, {first relevant rank or None: queries}) over the Query list ``queries`` (those
    counted: a query the run lacks scores 0 when it is listed)."""
    ranks = Counter(q.first for q in queries)
    count = float(len(queries))
    values = {}
    for key in keys:
        formula = rank_formula(key)
        if formula is not None:
            values[key] = formula(ranks, count)
        else:
            measure = query_measure(key)
            values[key] = math.fsum(measure(q) if q.present else 0.0 for q in queries) / count
    return values, ranks


def _detail(query, qrels):
    """What a query that is not right got, in a few words (may quote the gold: shown only when it is public)."""
    if not query.present:
        return "not in the run"
    if qrels:
        if not query.num_rel:
            return "the gold has no relevant document for this query"
        if query.first is None:
            return "no relevant document among the %d ranked (%d relevant)" % (query.retrieved, query.num_rel)
        return "first relevant document ranked %s of %d; %d of the %d relevant ranked" % (
            ordinal(query.first), query.retrieved, len(query.relevant), query.num_rel)
    answer = query.ranking[1]
    ranking = query.ranking[0]
    if ranking is None:  # a run file: no list kept
        return "answer not among the %d ranked" % query.retrieved if query.first is None else \
            "answer ranked %s of %d" % (ordinal(query.first), query.retrieved)
    if query.first is None:
        return ("predicted %s, gold %s" % (quote(ranking[0]), quote(answer)) if len(ranking) == 1 else
                "answer %s not among the %d ranked" % (quote(answer), len(ranking)))
    return "answer ranked %s of %d" % (ordinal(query.first), len(ranking))


def build_items(key, queries, qrels=False):
    """Items of the score ``key``, one per counted query: right (a relevant document or the answer ranked first),
    partly (ranked lower, even beyond a key's k), wrong (none ranked, or the query is not in the run)."""
    formula = rank_formula(key)
    if formula is not None:
        def finish(totals):
            ranks = dict((int(name[5:]), count) for name, count in totals.items() if name.startswith("rank:"))
            return formula(ranks, totals["queries"]) if totals.get("queries") else 0.0

        def stats(query):
            return {"queries": 1, "rank:%d" % query.first: 1} if query.first else {"queries": 1}
    else:
        measure = query_measure(key)

        def finish(totals):
            return totals.get(key, 0.0) / totals["queries"] if totals.get("queries") else 0.0

        def stats(query):
            return {"queries": 1, key: measure(query) if query.present else 0.0}
    items = Items("query", key, finish)
    for query in queries:
        first = query.first
        if first == 1:
            items.add(query.id, stats(query))
        else:
            items.add(query.id, stats(query), "wrong" if first is None else "partly", _detail(query, qrels))
    return items


def read_gold(ref_dir, config):
    """{query id: answer} (multiple choice) or {query id: {document: grade}} (qrels); ReferenceDataError naming
    the file and problem (``new`` checks with it)."""
    if is_qrels(config):
        path = locate(ref_dir, config["reference"], ReferenceDataError)
        return read_qrels(path, describe(path, ReferenceDataError))
    return read_answers(ref_dir, config)


def _shown(ids, limit=5):
    return ", ".join(quote(i) for i in ids[:limit]) + (", ..." if len(ids) > limit else "")


def score(ref_dir, res_dir, config):
    qrels = is_qrels(config)
    gold = read_gold(ref_dir, config)
    judged = gold if qrels else dict((query, {answer: 1}) for query, answer in gold.items())
    threshold = config["relevance_threshold"] if qrels else 1
    mode = config.get("missing_queries") or ("zero" if qrels else "refuse")
    strict, unknown = mode == "refuse", []
    name = config["submission"]
    if file_format(name) == "lines":
        expected = "the zip must hold %s at its root: run lines %s" % (name, RUN_LINES)
        path = locate(res_dir, name, SubmissionError, expected)
        label = describe(path, SubmissionError)
        summaries, unknown = read_run(path, label, judged, strict)
        lists = {}
    else:
        lists, label = read_rankings(res_dir, config, gold, strict, unknown, qrels)
        summaries = dict((query, summarize(ranking, judged[query])) for query, ranking in lists.items())
    if not summaries:
        raise SubmissionError("%s ranks none of the %d queries of this phase (first of its own: %s)"
                              % (label, len(gold), _shown(unknown)))
    if strict:
        check_complete(summaries, gold, label)
    queries = [Query(query, judged[query], threshold, summaries.get(query),
                     None if qrels else (lists.get(query), gold[query]))
               for query in gold if mode != "skip" or query in summaries]
    keys = config["keys"]
    values, ranks = metrics(queries, keys)
    warnings, notes = [], ["scored %d queries" % len(queries)]
    if unknown:
        warnings.append("%s ranks %d %s that this phase does not have (%s): ignored, as trec_eval does"
                        % (label, len(unknown), "query" if len(unknown) == 1 else "queries", _shown(unknown)))
    missing = [query for query in gold if query not in summaries]
    if missing:
        warnings.append("%s has no ranking for %d of the %d queries of this phase (%s): %s"
                        % (label, len(missing), len(gold), _shown(missing),
                           "each scores 0 in every measure" if mode == "zero" else
                           "the scores average over the %d queries it ranks" % len(summaries)))
    empty = sum(1 for q in queries if not q.num_rel)
    if qrels and empty:
        notes.append("%d %s no relevant document in the gold (grade >= %d): every measure is 0 for %s"
                     % (empty, "query has" if empty == 1 else "queries have", threshold,
                        "it" if empty == 1 else "them"))

    def render(scores, gold_public):
        return _page(scores, ranks, len(queries), qrels, [("queries of the phase", len(gold)),
                                                          ("queries ranked", len(summaries)),
                                                          ("queries counted", len(queries))] if qrels else [])
    return make_result(config, values, render, notes, warnings,
                       items=lambda key: build_items(key, queries, qrels))


def _page(scores, ranks, queries, qrels=False, totals=()):
    """Aggregates only, whether the gold is public or not: the rank of the correct option (the first relevant
    document), never per query."""
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
    if qrels:
        title, text = ("Rank of the first relevant document",
                       "How many queries had their first relevant document at each rank of the submitted ranking "
                       "(not ranked: no relevant document ranked, or the query is not in the run).")
    else:
        title, text = ("Rank of the correct option",
                       "How many queries had the correct option at each rank of the submitted ranking; a single "
                       "choice ranks one option, so a wrong choice counts as not ranked.")
    return [scores_section(scores, [("queries scored", queries)] + list(totals)), section(
        title, paragraph(text, "note"), histogram(counts, labels),
        table(["rank", "queries"], list(zip(labels, counts))))]
