"""codalab_bundles.authoring.gold_sniff: what a gold file looks like, the kind new would pick, clear misfits."""
import json

import pytest

from codalab_bundles.authoring.gold_sniff import MAX_NUMERIC_CLASSES, is_number, misfit, sniff, sniff_data

SQUAD = json.dumps({"version": "1.1", "data": [{"title": "T", "paragraphs": [
    {"context": "Paris is in France.", "qas": [{"id": "q1", "question": "Where?", "answers": [
        {"text": "France", "answer_start": 12}]}]}]}]})
CONLL = "-DOCSTART- -X- O O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\nGerman JJ B-NP B-MISC\n\nPeter NNP B-NP B-PER\n"


@pytest.mark.parametrize("name, data, form, kind", [
    ("gold.csv", "id,text,label\n1,good film,pos\n2,bad,neg\n3,ok,neu\n", "table", "classification"),
    ("gold.tsv", "id\ttext\tlabel\n1\t\"quoted, text\tpos\n2\tbad\tneg\n", "table", "classification"),
    ("gold.csv", "id,labels\n1,a|b\n2,c\n3,\n4,b|c\n", "table", "multilabel"),
    ("gold.csv", "id,label\n" + "".join("%d,%.2f\n" % (i, i / 7.0) for i in range(40)), "table", "regression"),
    ("gold.csv", "id,score\n1,3\n2,4\n", "table", "regression"),  # regression's column, by its name
    ("gold.csv", "id,spans,text\n1,\"[0, 1]\",ab\n2,[],cd\n", "table", "spans"),
    ("gold.txt", CONLL, "conll", "sequence"),
    ("gold.conll", "Peter B-PER\nBlackburn I-PER\n\nBRUSSELS B-LOC\n", "conll", "sequence"),
    ("qrels.txt", "q1 0 d1 1\nq1 0 d2 0\nq2 0 d7 2\n", "qrels", "ranking"),
    ("run.txt", "q1 Q0 d1 1 12.5 bm25\nq1 Q0 d2 2 11.0 bm25\n", "run", None),
    ("gold.json", SQUAD, "squad", "text"),
    ("gold.json", '{"1": "a", "2": "b"}', "json", None),
    ("gold.jsonl", '{"id": 1, "tokens": ["a"], "tags": ["O"]}\n{"id": 2, "tokens": ["b"], "tags": ["B-X"]}\n',
     "jsonl", "sequence"),
    ("spans-gold.txt", "0\t[1, 2, 3]\n1\t[]\n", "spans_lines", "spans"),
    ("empty.csv", "\n\n", "empty", None),
])
def test_forms_and_kinds(tmp_path, name, data, form, kind):
    path = tmp_path / name
    path.write_text(data, encoding="utf-8")
    look = sniff(path)
    assert (look.form, look.kind) == (form, kind), look
    assert sniff_data(name, data.encode("utf-8")) == look


def test_a_label_column_of_numbers_is_a_regression_gold_only_with_many_values_or_fractions():
    """A few whole numbers are class names; fractions or more than MAX_NUMERIC_CLASSES whole numbers are scores."""
    few = sniff_data("g.csv", "id,label\n" + "".join("%d,%d\n" % (i, i % 3) for i in range(60)))
    assert few.columns["label"] == (("numbers", 3, True)) and few.kind == "classification"
    many = sniff_data("g.csv", "id,label\n" + "".join("%d,%d\n" % (i, i) for i in range(MAX_NUMERIC_CLASSES + 1)))
    assert many.kind == "regression"
    assert sniff_data("g.csv", "id,label\n1,1.0\n2,2.0\n").kind == "classification"  # whole, few


@pytest.mark.parametrize("kind, name, data, fragment", [
    ("classification", "g.csv", "id,label\n" + "".join("%d,%.3f\n" % (i, i / 9.0) for i in range(151)),
     "the gold's label column holds numbers, not all whole: a score per item, not classes; use --kind regression"),
    ("classification", "g.csv", "id,label\n" + "".join("%d,%d\n" % (i, i) for i in range(151)),
     "holds 151 distinct whole numbers"),
    ("multilabel", "g.csv", "id,labels\n" + "".join("%d,%.1f\n" % (i, i / 3.0) for i in range(50)),
     "the gold's labels column holds numbers"),
    ("classification", "g.txt", CONLL, "looks like CoNLL columns (a token and a tag per line, blank lines between "
                                      "sentences), which --kind classification does not read (use --kind sequence)"),
    ("classification", "q.txt", "q1 0 d1 1\nq2 0 d2 0\n", "(use --kind ranking)"),
    ("ranking", "run.txt", "q1 Q0 d1 1 12.5 bm25\n", "a TREC run (qid Q0 docid rank score tag): that is a "
                                                     "submission, not a gold"),
    ("sequence", "g.csv", "id,label\n1,a\n2,b\n", "which --kind sequence does not read"),
])
def test_misfits(kind, name, data, fragment):
    problem = misfit(kind, sniff_data(name, data))
    assert problem and fragment in problem, problem


@pytest.mark.parametrize("kind, name, data, config", [
    ("classification", "g.csv", "id,label\n1,0\n2,1\n3,2\n", None),
    ("classification", "g.csv", "id,y\n" + "".join("%d,%.2f\n" % (i, i / 7.0) for i in range(40)),
     {"label_column": "label"}),  # not the configured column: the scorer names what is missing
    ("classification", "g.csv", "id,stars\n" + "".join("%d,%.2f\n" % (i, i / 7.0) for i in range(40)) + "\n",
     {"label_column": "STARS_X"}),
    ("ranking", "q.txt", "q1 0 d1 1\n", None),
    ("sequence", "g.conll", CONLL, None),
    ("text", "g.json", SQUAD, None),
    ("regression", "g.csv", "id,score\n1,0.5\n", None),
    ("spans", "g.txt", "0\t[1]\n", None),
])
def test_fits(kind, name, data, config):
    assert misfit(kind, sniff_data(name, data), config) is None


def test_a_configured_label_column_is_the_one_looked_at():
    data = "id,stars\n" + "".join("%d,%.2f\n" % (i, i / 7.0) for i in range(40))
    assert "the gold's stars column holds numbers" in misfit("classification", sniff_data("g.csv", data),
                                                             {"label_column": "Stars"})


@pytest.mark.parametrize("text, number", [("3", True), ("-0.5", True), ("1e3", True), (".5", True), ("4.", True),
                                          ("nan", False), ("inf", False), ("1,000", False), ("", False),
                                          ("0x1F", False), ("１", False)])
def test_is_number(text, number):
    assert is_number(text) is number
