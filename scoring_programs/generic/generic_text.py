"""Kind ``text``: one or more reference texts per id, one predicted text per id.

Keys (generic_text_metrics has the formulas): exact_match and f1 (SQuAD's normalization and no-answer rule, the
best over the references, mean over ids; fractions 0-1), bleu and chrf (sacreBLEU's corpus BLEU and chrF with its
defaults, 0-100 as sacreBLEU prints them), rouge1, rouge2 and rouge_l (rouge-score's F-measures, best over the
references, mean over ids; 0-1).

Gold: JSON {id: text or [texts]}, a SQuAD dataset JSON (data/paragraphs/qas/answers), or CSV/TSV with id_column and
reference_column (several rows of one id: several references). Submission: JSON {id: text} (SQuAD's prediction
file) or CSV/TSV with id_column and prediction_column.
Per-item statistics: "items" and the id's value of a mean key, or its additive BLEU or chrF counts.
"""
import math

from report_html import paragraph, section, table
from scoring_runtime import VERSION, Items, ReferenceDataError, SubmissionError, load_json, quote, read_text

from generic_result import make_result, scores_section
from generic_table import (RepeatedKey, check_complete, checked_records, csv_records, describe, id_key,
                           json_members, json_object, locate)
import generic_text_metrics as metrics

MEAN_KEYS = ("exact_match", "f1") + metrics.ROUGE_KEYS
_BLEU_NAMES = (["hyp_len", "ref_len"] + ["correct_%d" % n for n in range(1, metrics.BLEU_ORDER + 1)] +
               ["total_%d" % n for n in range(1, metrics.BLEU_ORDER + 1)])
_CHRF_NAMES = [name % n for n in range(1, metrics.CHRF_ORDER + 1) for name in ("hyp_%d", "ref_%d", "match_%d")]
_SHOWN_ITEMS = 20
# Characters of a prediction kept for the page (the lowest items) and the item details; the rest is only scored.
_KEPT = 1000


def table_format(name):
    """"json", "csv" or "tsv", from a file name (generic_config checks the extension)."""
    lower = name.lower()
    return "tsv" if lower.endswith(".tsv") else "csv" if lower.endswith(".csv") else "json"


def normalizer(config):
    options = dict(config.get("normalize") or {})
    return metrics.Normalizer(lowercase=options.get("lowercase", True), punctuation=options.get("punctuation", True),
                              articles=options.get("articles", True), whitespace=options.get("whitespace", True))


# ---------------------------------------------------------------------------------------------------------------
# Reading


def _json_kind(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    return {dict: "an object", list: "a list", str: "a string"}.get(type(value), "a number")


def _records(path, label, config, column, error):
    # TSV: one record per line, cells split at tabs, no quoting (scoring_base.read_csv with tabs), as every kind reads it.
    return csv_records(path, label, config["id_column"], [column], error)


def _squad_gold(data, label):
    """{id: [answer texts]} of a SQuAD dataset (v1.1 or v2.0): every qa of every paragraph of every article; an
    empty answer list (v2.0's unanswerable questions) is the no-answer reference ""."""
    error = ReferenceDataError
    gold = {}
    for a, article in enumerate(data["data"]):
        paragraphs = article.get("paragraphs") if isinstance(article, dict) else None
        if not isinstance(paragraphs, list):
            raise error("%s: data[%d] has no \"paragraphs\" list" % (label, a))
        for p, paragraph_ in enumerate(paragraphs):
            qas = paragraph_.get("qas") if isinstance(paragraph_, dict) else None
            if not isinstance(qas, list):
                raise error("%s: data[%d].paragraphs[%d] has no \"qas\" list" % (label, a, p))
            for q, qa in enumerate(qas):
                # (where the qa is: formatted only for a message, as a large dataset has many)
                where = lambda: "%s: data[%d].paragraphs[%d].qas[%d]" % (label, a, p, q)  # noqa: E731
                raw = qa.get("id") if isinstance(qa, dict) else None
                key = id_key(raw if type(raw) is str else u"%s" % raw) if isinstance(raw, (str, int)) else None
                if isinstance(raw, bool) or not key:
                    raise error("%s has no \"id\" (a string)" % where())
                if key in gold:
                    raise error("%s: id %s is given twice" % (where(), quote(u"%s" % raw)))
                answers = qa.get("answers")
                try:
                    texts = [answer["text"] for answer in answers]
                except (TypeError, KeyError):
                    texts = None
                if not isinstance(answers, list) or texts is None or not all(type(t) is str for t in texts):
                    raise error("%s (id %s): \"answers\" must be a list of objects with a \"text\" string"
                                % (where(), quote(u"%s" % raw)))
                gold[key] = texts or [""]
    if not gold:
        raise error("%s holds no questions" % label)
    return gold


def is_squad(data):
    return isinstance(data, dict) and isinstance(data.get("data"), list)


def read_gold(ref_dir, config):
    """{id: [reference texts]} in the gold's order; ReferenceDataError naming the file, the line or id and the
    problem, never a gold text (``new`` checks with it)."""
    error = ReferenceDataError
    path = locate(ref_dir, config["reference"], error)
    label = describe(path, error)
    if table_format(config["reference"]) != "json":
        gold = {}
        for line, raw_id, cells in _records(path, label, config, config["reference_column"], error):
            key = id_key(raw_id)
            if not key:
                raise error("%s, line %d: the id is empty" % (label, line))
            gold.setdefault(key, []).append(cells[0])
        if not gold:
            raise error("%s holds no rows" % label)
        return gold
    data = load_json(read_text(path, label, error), label, error, object_pairs_hook=json_object)
    if is_squad(data):
        return _squad_gold(data, label)
    if not isinstance(data, dict):
        raise error("%s must hold a JSON object {id: reference text or [reference texts]} or a SQuAD dataset "
                    "{\"data\": [...]}, found %s" % (label, _json_kind(data)))
    if data.repeated is not None:
        raise error("%s: id %s is given more than once" % (label, quote(data.repeated)))
    gold = {}
    for raw_id, value in data.items():
        key = id_key(raw_id)
        if not key:
            raise error("%s: an id is empty" % label)
        if key in gold:
            raise error("%s: id %s is given more than once" % (label, quote(raw_id)))
        if isinstance(value, str):
            gold[key] = [value]
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            gold[key] = list(value) or [""]
        else:
            raise error("%s, id %s: the reference must be a string or a list of strings, found %s"
                        % (label, quote(raw_id), _json_kind(value)))
    if not gold:
        raise error("%s holds no ids" % label)
    return gold


def read_predictions(res_dir, config, gold):
    """(id, predicted text) for exactly the gold ids, one at a time as the file is read (the caller scores each
    and keeps only its statistics); the first bad id or value, or missing ids at the end, a SubmissionError."""
    name = config["submission"]
    hint = " (give \"\" for an id you leave unanswered)"
    if table_format(name) == "json":
        expected = "the zip must hold %s at its root: a JSON object {id: predicted text}" % name
    else:
        expected = ("the zip must hold %s at its root, a %s file with columns %s,%s"
                    % (name, table_format(name).upper(), config["id_column"], config["prediction_column"]))
    path = locate(res_dir, name, SubmissionError, expected)
    label = describe(path, SubmissionError)
    predicted = {}
    if table_format(name) != "json":
        for key, line, cells in checked_records(_records(path, label, config, config["prediction_column"],
                                                         SubmissionError), label, SubmissionError, gold, predicted):
            predicted[key] = (line,)
            yield key, cells[0]
        check_complete(predicted, gold, label, hint)
        return
    # Read member by member: the first bad id ends the reading there.
    other, members = json_members(path, label, SubmissionError)
    if members is None:
        raise SubmissionError("%s must hold a JSON object {id: predicted text}, found %s" % (label, _json_kind(other)))
    try:
        for raw_id, value in members:
            key = id_key(raw_id)
            if key not in gold:
                raise SubmissionError("%s: id %s is not an id of this phase" % (label, quote(raw_id)))
            if key in predicted:
                raise SubmissionError("%s: id %s is given more than once" % (label, quote(raw_id)))
            if not isinstance(value, str):
                raise SubmissionError("%s, id %s: the prediction must be a string (\"\" for no answer), found %s"
                                      % (label, quote(raw_id), _json_kind(value)))
            predicted[key] = True
            yield key, value
            value = None  # (not held while the next member is read)
    except RepeatedKey as exc:
        raise SubmissionError("%s: id %s is given more than once" % (label, quote(exc.args[0])))
    check_complete(predicted, gold, label, hint)


# ---------------------------------------------------------------------------------------------------------------
# Scoring


def signatures(references, keys):
    """sacreBLEU's signature strings of the bleu and chrf keys configured: {key: signature}."""
    counts = set(len(refs) for refs in references)
    nrefs = "%d" % counts.pop() if len(counts) == 1 else "var"
    version = "generic-text-%s" % VERSION
    out = {}
    if "bleu" in keys:
        out["bleu"] = "nrefs:%s|case:mixed|eff:no|tok:13a|smooth:exp|version:%s" % (nrefs, version)
    if "chrf" in keys:
        out["chrf"] = "nrefs:%s|case:mixed|eff:yes|nc:6|nw:0|space:no|version:%s" % (nrefs, version)
    return out


def measure(per_item, keys, count):
    """{key: score} for the keys asked for, from the per-item values and statistics of ``count`` items."""
    values = {}
    for key in keys:
        if key in MEAN_KEYS:
            values[key] = math.fsum(per_item[key]) / count
        else:
            totals = [sum(column) for column in zip(*per_item[key])]
            values[key] = (metrics.bleu_of if key == "bleu" else metrics.chrf_of)(totals)
    return values


def shown(text):
    """A prediction as the page and the item details show it: whole up to _KEPT characters, else its start and
    its length (quote() shows fewer characters, so its messages are those of the whole text)."""
    if len(text) <= _KEPT:
        return text
    return "%s [... %d characters in all]" % (text[:_KEPT], len(text))


def _finish(key):
    if key in MEAN_KEYS:
        return lambda totals: totals.get(key, 0.0) / totals["items"] if totals.get("items") else 0.0
    names, formula = (_BLEU_NAMES, metrics.bleu_of) if key == "bleu" else (_CHRF_NAMES, metrics.chrf_of)
    return lambda totals: formula([totals.get(name, 0.0) for name in names])


def _verdict(key, value, per_item, index):
    """right, partly or wrong for one item's ``value`` of ``key``."""
    if key in MEAN_KEYS:
        if value == 1.0:
            return "right"
        if key == "exact_match":
            return "partly" if per_item["f1"][index] > 0 else "wrong"
        return "partly" if value > 0 else "wrong"
    if key == "bleu":
        length, closest, correct, total = value[0], value[1], value[2:6], value[6:]
        if length == closest and correct == total:
            return "right"
        return "partly" if correct[0] else "wrong"
    if all(value[i] == value[i + 1] == value[i + 2] for i in range(0, len(value), 3)):
        return "right"
    return "partly" if value[2] else "wrong"


def build_items(key, ids, references, predictions, per_item):
    items = Items("item", key, _finish(key))
    names = _BLEU_NAMES if key == "bleu" else _CHRF_NAMES if key == "chrf" else None
    for index, (item_id, refs, pred) in enumerate(zip(ids, references, predictions)):
        value = per_item[key][index]
        stats = {"items": 1}
        if names:
            stats.update((name, count) for name, count in zip(names, value) if count)
        else:
            stats[key] = value
        verdict = _verdict(key, value, per_item, index)
        if verdict == "right":
            items.add(item_id, stats)
            continue
        wanted = ("no answer (an empty text)" if not any(r.strip() for r in refs) else
                  "reference %s%s" % (quote(refs[0]), " and %d more" % (len(refs) - 1) if len(refs) > 1 else ""))
        items.add(item_id, stats, verdict, "predicted %s; %s" % (quote(pred), wanted))
    return items


def score(ref_dir, res_dir, config):
    gold = read_gold(ref_dir, config)
    ids = list(gold)
    position = dict((key, index) for index, key in enumerate(ids))
    keys = list(config["keys"])
    normalize = normalizer(config)
    needed = set(keys) | ({"f1"} if "exact_match" in keys else set())
    # Per item, in the gold's order: each key's value or statistics, the prediction as shown, whether it is
    # empty, whether the item is a no-answer item. Each prediction is scored as it is read and not kept.
    per_item = dict((key, [None] * len(ids)) for key in needed)
    predictions, empty, no_answer = [None] * len(ids), [False] * len(ids), [False] * len(ids)
    for key, text in read_predictions(res_dir, config, gold):
        index, references = position[key], gold[key]
        normal = metrics.squad_gold(references, normalize)
        no_answer[index] = not any(normal)
        found = metrics.item_scores(references, text, needed, normalize, normal)
        for name in needed:
            per_item[name][index] = found[name]
        predictions[index], empty[index] = shown(text), not text or text.isspace()
        del text
    references = [gold[key] for key in ids]
    values = measure(per_item, needed, len(ids))
    signed = signatures(references, keys)
    notes = ["scored %d ids (%d of them no-answer items)" % (len(ids), sum(no_answer))]
    notes.extend("%s signature (sacreBLEU-compatible): %s" % (key, text) for key, text in sorted(signed.items()))
    totals = [("ids scored", len(ids)), ("ids with several references", sum(1 for r in references if len(r) > 1)),
              ("no-answer ids (every reference empty after normalization)", sum(no_answer)),
              ("empty predictions", sum(empty))]

    def render(scores, gold_public):
        return _page(scores, totals, signed, normalize, ids, references, predictions, per_item, keys, gold_public)
    return make_result(config, values, render, notes,
                       items=lambda key: build_items(key, ids, references, predictions, per_item))


def _page(scores, totals, signed, normalize, ids, references, predictions, per_item, keys, gold_public):
    articles = ", ".join(normalize.articles) or "none"
    steps = [name for name, on in (("lowercase", normalize.lowercase),
                                   ("Unicode punctuation removed" if normalize.punctuation == "unicode" else
                                    "punctuation removed", normalize.punctuation),
                                   ("whitespace collapsed", normalize.whitespace)) if on]
    conventions = [paragraph("exact_match and f1: SQuAD 2.0's rules (normalization: %s; articles removed: %s), "
                             "the best over an id's references; an id whose references are all empty is a no-answer "
                             "id, right only when the prediction is empty too." % (", ".join(steps) or "none",
                                                                                  articles))]
    for key, text in sorted(signed.items()):
        conventions.append(paragraph("%s: sacreBLEU-compatible, signature %s (0-100, as sacreBLEU prints it)."
                                     % (key, text)))
    parts = [scores_section(scores, totals), section("Conventions", *conventions)]
    mean_keys = [key for key in keys if key in MEAN_KEYS]
    if gold_public and mean_keys:
        key = mean_keys[0]
        order = sorted(range(len(ids)), key=lambda i: (per_item[key][i], i))[:_SHOWN_ITEMS]
        rows = [(ids[i], predictions[i], " | ".join(references[i]), per_item[key][i]) for i in order
                if per_item[key][i] < 1.0]
        if rows:
            parts.append(section("Lowest %s" % key, table(["id", "prediction", "references", key], rows)))
    return parts
