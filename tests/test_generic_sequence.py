"""Generic kind sequence: hand-computed chunk readings (conlleval's and the strict schemes), conlleval.pl and seqeval
as oracles (random tags and the CoNLL-2003 test set with a published system's output), per-sentence items, bad
submissions and gold."""
import json
import os
import random
import re
import subprocess
import sys
import warnings

import pytest

from conftest import ROOT, load_program
from generic_support import GENERIC, InProcess, Runner

sys.path.insert(0, str(GENERIC))
import generic_sequence  # noqa: E402
from generic_config import check_config  # noqa: E402

PROGRAM = load_program("generic")
MANIFEST = json.loads((ROOT / "tests" / "data_manifests" / "sequence.json").read_text(encoding="utf-8"))
KEYS = ["f1", "precision", "recall", "accuracy"]


@pytest.fixture
def run(tmp_path):
    return Runner(tmp_path)


@pytest.fixture
def score(tmp_path, monkeypatch):
    """score(config, ref, res) -> the generic program's Result, in-process ({name: text} folders)."""
    return InProcess(tmp_path, monkeypatch, PROGRAM, {"kind": "sequence", "keys": KEYS})


def conll(*sentences, tokens=None):
    """CoNLL text of sentences given as tag strings ("B-PER I-PER O"); tokens t1, t2, ... unless given."""
    blocks = []
    for tags in sentences:
        tags = tags.split()
        words = tokens or ["t%d" % (i + 1) for i in range(len(tags))]
        blocks.append("".join("%s %s\n" % pair for pair in zip(words, tags)))
    return "\n".join(blocks)


def scores_of(score, gold, predicted, **config):
    result = score(config, {"gold.conll": conll(*gold)}, {"predictions.conll": conll(*predicted)})
    return dict(result.scores)


def counts_of(scheme, gold, predicted):
    """(gold chunks, predicted chunks, correct chunks) of the sentences given as tag strings."""
    chunker = generic_sequence.Chunker(scheme)
    totals = [0, 0, 0]
    for g, p in zip(gold, predicted):
        for tag in g.split() + p.split():
            chunker.parse(tag, ("test", ValueError))
        found, guessed, correct, _ = chunker.compare(g.split(), p.split())
        for i, part in enumerate((found, guessed, correct)):
            totals[i] += len(part)
    return tuple(totals)


# ---------------------------------------------------------------------------------------------------------------
# Hand-computed readings


@pytest.mark.parametrize("scheme, gold, predicted, expected", [
    # an I- tag after O starts a chunk (conlleval); strict IOB2 has no chunk there
    ("conlleval", ["I-PER I-PER O"], ["B-PER I-PER O"], (1, 1, 1)),
    ("iob2", ["B-PER I-PER O"], ["I-PER I-PER O"], (1, 0, 0)),
    # IOB1: B- starts a chunk only between two chunks of one type
    ("conlleval", ["I-LOC B-LOC O"], ["I-LOC I-LOC O"], (2, 1, 0)),
    ("conlleval", ["I-LOC B-LOC I-LOC"], ["I-LOC B-LOC I-LOC"], (2, 2, 2)),
    # IOBES: conlleval.pl knows no S- and continues E-X into B-X; the iobes scheme ends chunks at S- and E-
    ("conlleval", ["S-PER S-PER O"], ["S-PER S-PER O"], (1, 1, 1)),
    ("iobes", ["S-PER S-PER O"], ["S-PER S-PER O"], (2, 2, 2)),
    ("conlleval", ["B-PER E-PER B-PER E-PER"], ["B-PER E-PER S-PER S-PER"], (1, 1, 1)),  # one chunk of 4 in both
    ("iobes", ["B-PER E-PER B-PER E-PER"], ["B-PER E-PER S-PER S-PER"], (2, 3, 1)),
    ("iobes", ["B-PER I-PER O"], ["B-PER I-PER E-PER"], (0, 1, 0)),  # no E-: no chunk
    # a type change inside a chunk: two chunks (conlleval); strict IOB2 drops the I- of the other type
    ("conlleval", ["B-PER I-LOC O"], ["B-PER I-PER O"], (2, 1, 0)),
    ("iob2", ["B-PER I-LOC O"], ["B-PER O O"], (1, 1, 1)),
    # a chunk must match exactly: start, end and type
    ("conlleval", ["B-ORG I-ORG I-ORG"], ["B-ORG I-ORG O"], (1, 1, 0)),
    ("conlleval", ["B-ORG I-ORG"], ["B-LOC I-LOC"], (1, 1, 0)),
    # brackets: a chunk of one token each
    ("conlleval", ["[-NP ]-NP O"], ["[-NP ]-NP O"], (2, 2, 2)),
    # all O: no chunk
    ("conlleval", ["O O O"], ["O O O"], (0, 0, 0)),
])
def test_chunk_readings(scheme, gold, predicted, expected):
    assert counts_of(scheme, gold, predicted) == expected


def test_hand_computed_scores(score):
    """Gold: PER 'Nadim Ladki', LOC 'Paris' (I- after O), ORG 'Acme Corp'; predicted: PER, LOC (B-), ORG 'Acme',
    ORG 'Corp'. Correct 2 of 3 gold and 4 predicted chunks; 5 of 7 tags right; the -DOCSTART- line is no token."""
    gold = "-DOCSTART- O\n\nNadim B-PER\nLadki I-PER\nin O\nParis I-LOC\n\nAcme B-ORG\nCorp I-ORG\nsays O\n"
    pred = "Nadim B-PER\nLadki I-PER\nin O\nParis B-LOC\n\nAcme B-ORG\nCorp B-ORG\nsays O\n"
    keys = KEYS + ["f1_per", "precision_org", "recall_org", "f1_loc"]
    result = score({"keys": keys}, {"gold.conll": gold}, {"predictions.conll": pred})
    assert [k for k, _ in result.scores] == keys
    assert dict(result.scores) == pytest.approx({
        "f1": 4 / 7, "precision": 0.5, "recall": 2 / 3, "accuracy": 5 / 7, "f1_per": 1.0, "precision_org": 0.0,
        "recall_org": 0.0, "f1_loc": 1.0}, abs=1e-15)
    assert result.warnings == []


def test_docstart_as_token(score):
    """"docstart": "token" counts each -DOCSTART- line as a right token in accuracy, as conlleval.pl does, whatever
    the submission has there; chunks are unchanged. Gold: 2 -DOCSTART- lines and 6 tokens, 4 tags right: 6/8. The
    items sum to it: each -DOCSTART- line goes with the sentence after it (a last one with the last sentence)."""
    gold = "-DOCSTART- -X- O\n\nA B-PER\nb O\n\n-DOCSTART- -X- O\n\nC B-LOC\nd O\n\nE O\nf I-ORG\n"
    pred = "A B-PER\nb O\n\nC B-ORG\nd O\n\nE O\nf O\n"
    skip = score({}, {"gold.conll": gold}, {"predictions.conll": pred})
    token = score({"docstart": "token"}, {"gold.conll": gold}, {"predictions.conll": pred})
    assert dict(skip.scores) == pytest.approx({"f1": 2 / 5, "precision": 1 / 2, "recall": 1 / 3, "accuracy": 4 / 6},
                                              abs=1e-15)
    assert dict(token.scores) == dict(skip.scores, accuracy=pytest.approx(6 / 8, abs=1e-15))
    assert "scored 3 sentences, 8 tokens (2 of them -DOCSTART- lines" in token.notes[0]
    assert [st.get("tokens") for st in token.items.stats] == [3, 3, 2]
    assert [st.get("correct_tokens") for st in token.items.stats] == [3, 2, 1]
    trailing = score({"docstart": "token"}, {"gold.conll": "A O\n\n-DOCSTART- O\n"}, {"predictions.conll": "A B-X\n"})
    assert dict(trailing.scores)["accuracy"] == 0.5  # the last -DOCSTART- counts with the last sentence
    jsonl = '{"id": "s", "tokens": ["-DOCSTART-"], "tags": ["O"]}\n'  # JSON lines have no -DOCSTART- lines
    result = score({"docstart": "token", "reference": "g.jsonl", "submission": "p.jsonl"}, {"g.jsonl": jsonl},
                   {"p.jsonl": '{"id": "s", "tags": ["B-X"]}\n'})
    assert dict(result.scores)["accuracy"] == 0.0


def test_tokens_ignore_pairs_tags_by_position(score, run):
    """"tokens": "ignore" scores a submission whose tokens differ from the gold's (as conlleval.pl and wnuteval.py,
    which read the tags only), with a warning that counts them; sentence lengths must still agree."""
    gold = conll("B-PER I-PER O", "O B-LOC")
    pred = "Nadim B-PER\nLadki I-PER\nt3 O\n\nt1 O\nin B-LOC\n"
    result = score({"tokens": "ignore"}, {"gold.conll": gold}, {"predictions.conll": pred})
    assert dict(result.scores) == {"f1": 1.0, "precision": 1.0, "recall": 1.0, "accuracy": 1.0}
    assert result.warnings == ["3 tokens of the submission differ from the gold's (the first: predictions.conll, "
                               "line 1, 'Nadim' where the gold has 't1'); tags are paired with the gold's by position "
                               "(\"tokens\": \"ignore\")"]
    same = score({"tokens": "ignore"}, {"gold.conll": gold}, {"predictions.conll": conll("B-PER O O", "O B-LOC")})
    assert same.warnings == [] and dict(same.scores)["recall"] == 0.5
    run({"kind": "sequence"}, {"gold.conll": gold}, {"predictions.conll": pred}).assert_rejected(
        "predictions.conll, line 1", "token 'Nadim' where the gold's sentence 1 has 't1' as its 1st token")
    config = {"kind": "sequence", "tokens": "ignore"}
    run(config, {"gold.conll": gold}, {"predictions.conll": "x O\ny O\n\nt1 O\nt2 O\n"}).assert_rejected(
        "predictions.conll, line 2", "the gold's sentence 1 has 3 tokens, this one ends after 2")
    run(config, {"gold.conll": gold}, {"predictions.conll": "x O\ny O\nz O\n\nt1 O\nq O\nr O\n"}).assert_rejected(
        "predictions.conll, line 7", "the gold's sentence 2 has 2 tokens, this one has more")
    jsonl = '{"id": 1, "tokens": ["a", "t2", "t3"], "tags": ["B-PER", "I-PER", "O"]}\n{"id": 2, "tags": ["O", "O"]}\n'
    result = score({"tokens": "ignore", "submission": "p.jsonl"}, {"gold.conll": gold}, {"p.jsonl": jsonl})
    assert dict(result.scores)["recall"] == 0.5
    assert result.warnings == ["1 token of the submission differs from the gold's (the first: p.jsonl, line 1, the "
                               "1st token, 'a' where the gold has 't1'); tags are paired with the gold's by position "
                               "(\"tokens\": \"ignore\")"]


def test_all_o_and_empty_sentences(score):
    """No chunk anywhere: f1, precision and recall are 0 (0/0, as conlleval.pl); accuracy counts the O tags. An
    empty JSON sentence adds nothing."""
    assert scores_of(score, ["O O", "O"], ["O O", "O"]) == {"f1": 0.0, "precision": 0.0, "recall": 0.0,
                                                              "accuracy": 1.0}
    gold = '{"id": "a", "tokens": [], "tags": []}\n{"id": "b", "tokens": ["x", "Y"], "tags": ["O", "B-P"]}\n'
    pred = '{"id": "b", "tags": ["O", "B-P"]}\n{"id": "a", "tags": []}\n'
    result = score({"reference": "gold.jsonl", "submission": "pred.jsonl"}, {"gold.jsonl": gold}, {"pred.jsonl": pred})
    assert dict(result.scores) == {"f1": 1.0, "precision": 1.0, "recall": 1.0, "accuracy": 1.0}
    assert result.items.ids == ["a", "b"] and result.items.stats[0] == {"sentences": 1}


def test_type_keys_name_types_in_lower_case_and_warn_when_absent(score):
    gold, pred = ["B-PER O B-ORG-X I-ORG-X"], ["B-PER O B-ORG-X O"]
    result = score({"keys": ["f1_org_x", "recall_per", "f1_misc"]}, {"gold.conll": conll(*gold)},
                   {"predictions.conll": conll(*pred)})
    assert dict(result.scores) == {"f1_org_x": 0.0, "recall_per": 1.0, "f1_misc": 0.0}
    assert result.warnings == ["score key f1_misc: no chunk of type misc in the gold or the submission; it scores 0"]


@pytest.mark.parametrize("config, problem", [
    ({"scheme": "iob1"}, "scheme must be one of conlleval, iob2, iobes"),
    ({"keys": ["f1", "F1_PER"]}, "score key \"F1_PER\" is not available"),
    ({"keys": ["f1_"]}, "score key \"f1_\" is not available"),
    ({"keys": ["macro_f1"]}, "f1_<type>"),
    ({"docstart": "count"}, 'docstart must be "skip" or "token", found "count"'),
    ({"tokens": False}, 'tokens must be "check" or "ignore", found false'),
])
def test_config_checks(config, problem):
    problems = check_config(dict({"kind": "sequence"}, **config))
    assert any(problem in p for p in problems), problems
    assert check_config({"kind": "sequence", "keys": ["f1_per", "precision_b_np", "accuracy"], "scheme": "iobes"}) == []
    assert check_config({"kind": "sequence", "docstart": "token", "tokens": "ignore"}) == []


def test_hidden_gold_page_shows_only_predicted_types(run):
    gold, pred = conll("B-SECRET O B-PER"), conll("O O B-PER")
    hidden = run({"kind": "sequence"}, {"gold.conll": gold}, {"predictions.conll": pred}, gold_public=False)
    assert hidden.returncode == 0 and "SECRET" not in hidden.html and "Chunk types predicted" in hidden.html
    public = run({"kind": "sequence"}, {"gold.conll": gold}, {"predictions.conll": pred})
    assert "SECRET" in public.html and "Per chunk type" in public.html


# ---------------------------------------------------------------------------------------------------------------
# Bad submissions and gold: one line, the file, the line, the problem; never a gold tag

GOLD = conll("B-SECRET I-SECRET O", "O B-HIDDEN", tokens=None)


@pytest.mark.parametrize("files, fragments", [
    ({}, ["no predictions.conll in the submission"]),
    ({"predictions.conll": "t1 O\nt9 O\nt3 O\n\nt1 O\nt2 O\n"},
     ["predictions.conll, line 2", "token 't9' where the gold's sentence 1 has 't2' as its 2nd token"]),
    ({"predictions.conll": "t1 O\nt2 O\nt3 O\nt4 O\n\nt1 O\nt2 O\n"},
     ["predictions.conll, line 4", "the gold's sentence 1 has 3 tokens, this one has more"]),
    ({"predictions.conll": "t1 O\nt2 O\n\nt1 O\nt2 O\n"},
     ["predictions.conll, line 2", "the gold's sentence 1 has 3 tokens, this one ends after 2"]),
    ({"predictions.conll": "t1 O\nt2 O\nt3 O\n\nt1 O\nt2 O\n\nt1 O\n"},
     ["predictions.conll, line 8", "a 3rd sentence, but the gold has 2"]),
    ({"predictions.conll": "t1 O\nt2 O\nt3 O\n"}, ["ends after 1 sentences, but the gold has 2", "starts with 't1'"]),
    ({"predictions.conll": "t1 O\nt2\nt3 O\n\nt1 O\nt2 O\n"},
     ["predictions.conll, line 2", "expected a token and its tag", "found one column ('t2')"]),
])
def test_bad_submissions(run, files, fragments):
    message = run({"kind": "sequence"}, {"gold.conll": GOLD}, files).assert_rejected("Submission error", *fragments)
    assert "SECRET" not in message and "HIDDEN" not in message


@pytest.mark.parametrize("files, fragments", [
    ({"p.jsonl": '{"id": 1, "tags": ["O", "O", "O"]}\n{"id": 1, "tags": ["O", "O"]}\n'},
     ["p.jsonl, line 2", "id '1' is given twice"]),
    ({"p.jsonl": '{"id": 1, "tags": ["O", "O", "O"]}\n{"id": 3, "tags": ["O", "O"]}\n'},
     ["p.jsonl, line 2", "id '3' is not a sentence of this phase"]),
    ({"p.jsonl": '{"id": 1, "tags": ["O", "O", "O"]}\n'}, ["no prediction for 1 of the 2 ids ('2')"]),
    ({"p.jsonl": '{"id": 1, "tags": ["O", "O"]}\n'}, ["p.jsonl, line 1", "2 tags, but the gold's sentence 1 has 3"]),
    ({"p.jsonl": '{"id": 1, "tags": ["O", "B X", "O"]}\n'}, ["line 1", "the 2nd tag is not a non-empty string without"
                                                             " spaces, found \"B X\""]),
    ({"p.jsonl": '{"id": 1, "tokens": ["t1", "t2", "zz"], "tags": ["O", "O", "O"]}\n'},
     ["line 1", "token 'zz' where the gold's sentence 1 has 't3' as its 3rd token"]),
    ({"p.jsonl": '{"tags": ["O"]}\n'}, ["p.jsonl, line 1: no \"id\""]),
    ({"p.jsonl": '{"id": 1, "tags": ["O", "O", "O"]}\nnot json\n'}, ["p.jsonl, line 2: not a JSON object"]),
])
def test_bad_json_submissions(run, files, fragments):
    """A JSON-lines submission against a CoNLL gold: its ids are the sentence numbers."""
    config = {"kind": "sequence", "submission": "p.jsonl"}
    message = run(config, {"gold.conll": GOLD}, files).assert_rejected("Submission error", *fragments)
    assert "SECRET" not in message and "HIDDEN" not in message


def test_strict_scheme_refuses_tags_outside_it(run):
    config = {"kind": "sequence", "scheme": "iob2"}
    run(config, {"gold.conll": GOLD}, {"predictions.conll": conll("B-X E-X O", "O O")}).assert_rejected(
        "predictions.conll, line 2", "the tag 'E-X' is not one of the iob2 scheme (O, B-TYPE, I-TYPE)")
    message = run(config, {"gold.conll": conll("B-SECRET S-SECRET")}, {"predictions.conll": conll("O O")}) \
        .assert_rejected("reference file gold.conll, line 2", "the tag is not one of the iob2 scheme")
    assert "SECRET" not in message


@pytest.mark.parametrize("gold, fragments", [
    ("t1 B-SECRET\nt2\n", ["reference file gold.conll, line 2", "found one column"]),
    ("\n\n-DOCSTART- -X- O\n\n", ["reference file gold.conll holds no sentences"]),
])
def test_bad_gold(run, gold, fragments):
    message = run({"kind": "sequence"}, {"gold.conll": gold}, {"predictions.conll": "t1 O\n"}).assert_rejected(
        *fragments)
    assert "SECRET" not in message and "Traceback" not in message


def test_layouts_accepted(score):
    """Tabs, CRLF, several blank lines (some with spaces), middle columns, -DOCSTART- lines anywhere, a JSON array."""
    gold = "-DOCSTART- -X- -X- O\r\n\r\nA NNP B-NP B-PER\r\nb VB B-VP O\r\n \r\n\r\n\r\nC NNP B-NP B-LOC\r\n"
    pred = "A\tB-PER\nb\tO\n\n-DOCSTART- O\nC\tB-LOC\n\n\n"
    assert dict(score({}, {"gold.conll": gold}, {"predictions.conll": pred}).scores)["f1"] == 1.0
    gold = json.dumps([{"id": "x", "tokens": ["A", "b"], "tags": ["B-PER", "O"]}])
    result = score({"reference": "g.json", "submission": "p.conll"}, {"g.json": gold},
                   {"p.conll": "A B-PER\nb B-PER\n"})
    assert dict(result.scores)["precision"] == 0.5


# ---------------------------------------------------------------------------------------------------------------
# Per-sentence items: hand-computed, and the bootstrap against seqeval on the resampled sentences


def test_items(score):
    gold = conll("B-PER I-PER O", "O O", "B-LOC O B-ORG", "I-MISC")
    pred = conll("B-PER I-PER O", "B-LOC O", "B-LOC O O", "O")
    result = score({}, {"gold.conll": gold}, {"predictions.conll": pred})
    items = result.items
    assert (items.unit, items.key) == ("sentence", "f1")
    assert items.ids == ["1", "2", "3", "4"]
    assert items.stats == [
        {"sentences": 1, "tokens": 3, "correct_tokens": 3, "gold:PER": 1, "predicted:PER": 1, "correct:PER": 1},
        {"sentences": 1, "tokens": 2, "correct_tokens": 1, "predicted:LOC": 1},
        {"sentences": 1, "tokens": 3, "correct_tokens": 2, "gold:LOC": 1, "gold:ORG": 1, "predicted:LOC": 1,
         "correct:LOC": 1},
        {"sentences": 1, "tokens": 1, "gold:MISC": 1}]
    assert items.verdicts == ["right", "wrong", "partly", "wrong"]
    assert items.details[2] == "missed ORG 't3'; 1 of 3 tags wrong"
    assert items.details[1] == "extra LOC 't1'; 1 of 2 tags wrong"
    # f1 = 2 x 2 / (4 + 3)
    assert items.score() == dict(result.scores)["f1"] == pytest.approx(4 / 7, abs=1e-15)


@pytest.mark.parametrize("key, expected", [("accuracy", 6 / 9), ("recall", 0.5), ("f1_loc", 2 / 3)])
def test_items_rank_by_any_key(score, key, expected):
    gold = conll("B-PER I-PER O", "O O", "B-LOC O B-ORG", "I-MISC")
    pred = conll("B-PER I-PER O", "B-LOC O", "B-LOC O O", "O")
    result = score({"keys": [key, "f1"]}, {"gold.conll": gold}, {"predictions.conll": pred})
    assert result.items.key == key
    assert result.items.score() == dict(result.scores)[key] == pytest.approx(expected, abs=1e-15)


def seqeval_metric(key):
    from seqeval.metrics import accuracy_score, f1_score, precision_score, recall_score
    function = {"f1": f1_score, "precision": precision_score, "recall": recall_score}.get(key)

    def metric(gold, predicted):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if key == "accuracy":
                return accuracy_score(gold, predicted)
            return function(gold, predicted, zero_division=0)
    return metric


@pytest.mark.parametrize("key", ["f1", "precision", "accuracy"])
def test_bootstrap_and_paired_against_seqeval(score, key):
    pytest.importorskip("seqeval")
    from items_oracle import check_bootstrap, check_paired
    rng = random.Random(7)
    gold = [random_tags(rng, "iob2") for _ in range(40)]
    a = [perturb(rng, tags, "iob2") for tags in gold]
    b = [perturb(rng, tags, "iob2") for tags in gold]
    ref = {"gold.conll": conll(*[" ".join(g) for g in gold])}
    items_a = score({"keys": [key]}, ref, {"predictions.conll": conll(*[" ".join(p) for p in a])}).items
    items_b = score({"keys": [key]}, ref, {"predictions.conll": conll(*[" ".join(p) for p in b])}).items
    metric = seqeval_metric(key)
    assert abs(items_a.score() - metric(gold, a)) < 1e-12
    check_bootstrap(items_a, metric, gold, a)
    check_paired(items_a, items_b, metric, gold, a, b)


# ---------------------------------------------------------------------------------------------------------------
# Oracles on random tags: conlleval.pl (from the mirror) and seqeval

TYPES = ("PER", "LOC", "ORG")
ODD_TAGS = ("O", "B", "I", "[-NP", "]-NP", "X-PER", "PER", ".", "O-PER", "B-0", "I-ORG-X", "S-LOC", "E-PER")


def random_tags(rng, scheme, size=None):
    prefixes = {"iob2": "BI", "iobes": "BIES", "conlleval": "BIES"}[scheme]
    tags = []
    for _ in range(size if size is not None else rng.randint(1, 9)):
        if rng.random() < 0.4:
            tags.append("O")
        elif scheme == "conlleval" and rng.random() < 0.1:
            tags.append(rng.choice(ODD_TAGS))
        else:
            tags.append("%s-%s" % (rng.choice(prefixes), rng.choice(TYPES)))
    return tags


def perturb(rng, tags, scheme):
    changed = random_tags(rng, scheme, len(tags))
    return [t if rng.random() < 0.6 else c for t, c in zip(tags, changed)]


def mirror(spec=MANIFEST, variable="SEQUENCE_DATA_MIRROR"):
    """The git directory of the manifest's repository (or of one of its other entries), or skip."""
    flat = spec["repo"].replace("/", "+")
    candidates = [os.environ.get(variable)] + [
        str(base / ".mirror" / flat / "repo") for base in (ROOT.parent, ROOT.parent.parent)]
    for path in candidates:
        if path and os.path.isdir(path):
            return path
    pytest.skip("real data not available: fetch github:%s (tests/data_manifests/sequence.json)" % spec["repo"])


def mirror_text(name, spec=MANIFEST, variable="SEQUENCE_DATA_MIRROR"):
    path = spec["files"][name]["path"]
    proc = subprocess.run(["git", "--git-dir", mirror(spec, variable), "show", "%s:%s" % (spec["commit"], path)],
                          capture_output=True)
    if proc.returncode:
        pytest.skip("%s not in the mirror: %s" % (path, proc.stderr.decode(errors="replace").strip()))
    return proc.stdout.decode("utf-8")


@pytest.fixture(scope="module")
def conlleval(tmp_path_factory):
    """run(text, delimiter=None) -> conlleval.pl's counts and scores, its figures printed with 17 digits (the
    computation untouched)."""
    if subprocess.run(["perl", "-e", "1"], capture_output=True).returncode:
        pytest.skip("perl is not installed")
    script = tmp_path_factory.mktemp("conlleval") / "conlleval.pl"
    script.write_text(mirror_text("conlleval.pl").replace("%6.2f", "%.17g"), encoding="utf-8")

    def run(text, delimiter=None):
        args = ["perl", str(script)] + (["-d", delimiter] if delimiter else [])
        out = subprocess.run(args, input=text, capture_output=True, text=True, check=True).stdout
        counts = re.search(r"processed (\d+) tokens with (\d+) phrases; found: (\d+) phrases; correct: (\d+)", out)
        figures = dict((k, float(v) / 100) for k, v in re.findall(r"(accuracy|precision|recall):\s*([0-9.e+-]+)%",
                                                                  out.split("\n")[1]))
        figures["f1"] = float(re.search(r"FB1:\s*([0-9.e+-]+)", out.split("\n")[1]).group(1)) / 100
        per_type = {}
        rows = re.findall(r"^\s*(\S+): precision:\s*(\S+)%; recall:\s*(\S+)%; FB1:\s*(\S+)\s+(\d+)", out, re.M)
        for name, p, r, f, guessed in rows:
            per_type[name] = (float(p) / 100, float(r) / 100, float(f) / 100, int(guessed))
        return tuple(int(x) for x in counts.groups()), figures, per_type
    return run


def merged(gold, predicted):
    """conlleval.pl's input: token, gold tag, predicted tag; a blank line between sentences."""
    return "".join("".join("w%d %s %s\n" % (i, g, p) for i, (g, p) in enumerate(zip(gs, ps))) + "\n"
                   for gs, ps in zip(gold, predicted))


@pytest.mark.parametrize("seed", range(6))
def test_conlleval_oracle_on_random_tags(score, conlleval, seed):
    """Every tag conlleval.pl reads (IOB1, IOB2, IOE, S-, brackets, untyped and odd tags) counted as it counts them,
    sentence by sentence. conlleval.pl lets a chunk of an untyped tag after a typed one run on across a blank line;
    this program ends every chunk with its sentence, so the oracle scores each sentence alone and sums."""
    rng = random.Random(seed)
    gold = [random_tags(rng, "conlleval") for _ in range(rng.randint(1, 30))]
    predicted = [perturb(rng, tags, "conlleval") for tags in gold]
    parts = [conlleval(merged([g], [p]))[0] for g, p in zip(gold, predicted)]
    tokens, found, guessed, correct = (sum(column) for column in zip(*parts))
    result = score({}, {"gold.conll": conll(*[" ".join(g) for g in gold])},
                   {"predictions.conll": conll(*[" ".join(p) for p in predicted])})
    values = dict(result.scores)
    assert values["precision"] == pytest.approx(correct / guessed if guessed else 0.0, abs=1e-12)
    assert values["recall"] == pytest.approx(correct / found if found else 0.0, abs=1e-12)
    # the token accuracy of the whole file (no chunk involved)
    assert values["accuracy"] == pytest.approx(conlleval(merged(gold, predicted))[1]["accuracy"], abs=1e-12)


@pytest.mark.parametrize("scheme", ["conlleval", "iob2", "iobes"])
@pytest.mark.parametrize("seed", range(4))
def test_seqeval_oracle_on_random_tags(score, scheme, seed):
    """conlleval: seqeval's default mode, on IOB2 tags (where both read alike); iob2, iobes: its strict mode."""
    seqeval = pytest.importorskip("seqeval.metrics")
    from seqeval.scheme import IOB2, IOBES
    rng = random.Random(100 + seed)
    tag_scheme = "iob2" if scheme == "conlleval" else scheme
    gold = [random_tags(rng, tag_scheme) for _ in range(rng.randint(1, 40))]
    predicted = [perturb(rng, tags, tag_scheme) for tags in gold]
    options = {} if scheme == "conlleval" else {"mode": "strict", "scheme": {"iob2": IOB2, "iobes": IOBES}[scheme]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = dict((name, getattr(seqeval, name + "_score")(gold, predicted, zero_division=0, **options))
                        for name in ("f1", "precision", "recall"))
        expected["accuracy"] = seqeval.accuracy_score(gold, predicted)
        report = seqeval.classification_report(gold, predicted, output_dict=True, zero_division=0, **options)
    type_keys = ["%s_%s" % (m, t.lower()) for t in TYPES for m in ("f1", "precision", "recall")]
    result = score({"scheme": scheme, "keys": KEYS + type_keys},
                   {"gold.conll": conll(*[" ".join(g) for g in gold])},
                   {"predictions.conll": conll(*[" ".join(p) for p in predicted])})
    values = dict(result.scores)
    for kind in TYPES:
        row = report.get(kind, {"f1-score": 0.0, "precision": 0.0, "recall": 0.0})
        expected.update({"f1_" + kind.lower(): row["f1-score"], "precision_" + kind.lower(): row["precision"],
                         "recall_" + kind.lower(): row["recall"]})
    assert values == pytest.approx(expected, abs=1e-12)


def test_seqeval_default_differs_from_conlleval_on_iobes():
    """seqeval's default mode ends a chunk after E- and S- tags; conlleval.pl does not know S- and continues E-X
    into B-X: on IOBES tags they disagree (the card says so; use scheme iobes)."""
    pytest.importorskip("seqeval")
    from seqeval.metrics.sequence_labeling import get_entities
    tags = ["B-PER", "E-PER", "B-PER", "E-PER", "S-LOC", "S-LOC"]
    assert len(get_entities(tags)) == 4
    assert generic_sequence.Chunker("conlleval").chunks(tags) == [(0, 4, "PER"), (4, 6, "LOC")]
    assert generic_sequence.Chunker("iobes").chunks(tags) == [(0, 2, "PER"), (2, 4, "PER"), (4, 5, "LOC"),
                                                              (5, 6, "LOC")]


# ---------------------------------------------------------------------------------------------------------------
# Real data: the CoNLL-2003 English test set (eng.testb) and a published system's output on it


def split_columns(text, delimiter=None):
    """(gold CoNLL, prediction CoNLL) from conlleval.pl's input (token ... gold predicted)."""
    gold, pred = [], []
    for line in text.splitlines():
        columns = line.split(delimiter) if delimiter else line.split()
        if not line.strip():
            gold.append("")
            pred.append("")
            continue
        gold.append("%s %s" % (columns[0], columns[-2]))
        pred.append("%s %s" % (columns[0], columns[-1]))
    return "\n".join(gold) + "\n", "\n".join(pred) + "\n"


def assert_matches(values, figures, per_type):
    for key in ("f1", "precision", "recall", "accuracy"):
        assert abs(values[key] - figures[key]) < 1e-9, (key, values[key], figures[key])
    for kind, (p, r, f, _) in per_type.items():
        assert abs(values["precision_" + kind.lower()] - p) < 1e-9
        assert abs(values["recall_" + kind.lower()] - r) < 1e-9
        assert abs(values["f1_" + kind.lower()] - f) < 1e-9


CONLL_KEYS = KEYS + ["%s_%s" % (m, t) for t in ("per", "loc", "org", "misc") for m in ("f1", "precision", "recall")]


def test_published_system_output_against_conlleval_and_seqeval(score, conlleval):
    """BERT's output on the CoNLL-2003 test set as published (token, gold, predicted; tab-separated; no sentence
    breaks: one sentence of 40,610 tokens), scored by conlleval.pl -d '\\t' and by this program."""
    text = mirror_text("bert_output")
    counts, figures, per_type = conlleval(text, "\t")
    assert counts == (40610, 4671, 4557, 4104)
    gold, pred = split_columns(text, "\t")
    values = dict(score({"keys": CONLL_KEYS}, {"gold.conll": gold}, {"predictions.conll": pred}).scores)
    assert_matches(values, figures, per_type)
    seqeval = pytest.importorskip("seqeval.metrics")
    lines = text.splitlines()
    tags = [[line.split("\t")[-2] for line in lines]], [[line.split("\t")[-1] for line in lines]]
    assert abs(values["f1"] - seqeval.f1_score(*tags)) < 1e-9


def perturbed_test_set(text, seed):
    """conlleval.pl's input for the test set's gold and deterministic predictions: about 1 chunk in 8 given another
    type, shortened or dropped, 1 sentence in 20 with a spurious chunk; -DOCSTART- lines kept (tagged O O)."""
    rng = random.Random(seed)
    out = []
    for block in text.split("\n\n"):
        rows = [line.split() for line in block.split("\n") if line.strip()]
        if not rows:
            continue
        gold = [r[-1] for r in rows]
        pred = list(gold)
        for i, tag in enumerate(gold):
            if tag.startswith("B-") and rng.random() < 0.125:
                change = rng.choice(("type", "short", "drop"))
                end = i + 1
                while end < len(gold) and gold[end] == "I-" + tag[2:]:
                    end += 1
                if change == "type":
                    other = rng.choice([t for t in ("PER", "LOC", "ORG", "MISC") if t != tag[2:]])
                    pred[i:end] = ["B-" + other] + ["I-" + other] * (end - i - 1)
                elif change == "short" and end - i > 1:
                    pred[end - 1] = "O"
                else:
                    pred[i:end] = ["O"] * (end - i)
        if rows[0][0] != "-DOCSTART-" and rng.random() < 0.05:
            pred[rng.randrange(len(pred))] = "I-MISC"
        out.append("".join("%s %s %s\n" % (r[0], g, p) for r, g, p in zip(rows, gold, pred)))
    return "\n".join(out)


def test_conll2003_test_set_against_conlleval_and_seqeval(score, conlleval):
    """eng.testb without -DOCSTART- lines (3,453 sentences, 46,435 tokens, 5,648 chunks), IOB2, and deterministic
    predictions: every figure of conlleval.pl to 1e-9, and of seqeval (default mode, and strict IOB2)."""
    text = perturbed_test_set(mirror_text("testb_plain"), 1)
    counts, figures, per_type = conlleval(text)
    assert counts[:2] == (46435, 5648)
    gold, pred = split_columns(text)
    values = dict(score({"keys": CONLL_KEYS}, {"gold.conll": gold}, {"predictions.conll": pred}).scores)
    assert_matches(values, figures, per_type)
    seqeval = pytest.importorskip("seqeval.metrics")
    from seqeval.scheme import IOB2
    sentences = [[line.split() for line in block.split("\n") if line] for block in text.split("\n\n")]
    tags = [[r[1] for r in s] for s in sentences if s], [[r[2] for r in s] for s in sentences if s]
    strict = dict(score({"keys": KEYS, "scheme": "iob2"}, {"gold.conll": gold}, {"predictions.conll": pred}).scores)
    for name in ("f1", "precision", "recall"):
        assert abs(values[name] - getattr(seqeval, name + "_score")(*tags)) < 1e-9
        assert abs(strict[name] - getattr(seqeval, name + "_score")(*tags, mode="strict", scheme=IOB2)) < 1e-9
    assert abs(values["accuracy"] - seqeval.accuracy_score(*tags)) < 1e-9


def test_docstart_lines_are_no_tokens_here_but_are_for_conlleval(score, conlleval):
    """eng.testb with its 231 -DOCSTART- lines: conlleval.pl reads each as a token tagged O (its sentence boundary
    is -X-, not -DOCSTART-), so its accuracy counts 231 more right tokens; chunks are the same."""
    text = perturbed_test_set(mirror_text("testb"), 2)
    counts, figures, _ = conlleval(text)
    assert counts[0] == 46435 + 231
    gold, pred = split_columns(text)
    values = dict(score({"keys": KEYS}, {"gold.conll": gold}, {"predictions.conll": pred}).scores)
    for key in ("f1", "precision", "recall"):
        assert abs(values[key] - figures[key]) < 1e-9
    right = round(values["accuracy"] * 46435)
    assert abs(values["accuracy"] - right / 46435.0) < 1e-12
    assert abs(figures["accuracy"] - (right + 231) / (46435.0 + 231)) < 1e-9
    # "docstart": "token" gives conlleval.pl's accuracy itself, over its 46,666 tokens; chunks unchanged
    counted = score({"keys": KEYS, "docstart": "token"}, {"gold.conll": gold}, {"predictions.conll": pred})
    assert abs(dict(counted.scores)["accuracy"] - figures["accuracy"]) < 1e-9
    assert "46666 tokens (231 of them -DOCSTART- lines" in counted.notes[0]
    assert dict(counted.scores, accuracy=0) == dict(values, accuracy=0)


def test_wnut17_run_with_rewritten_tokens_against_conlleval(score, conlleval):
    """WNUT-17's test set and team MIC-CIS's published submission, whose file rewrites 1,283 of the gold's tokens
    (s as is, gt as get, ...): refused by default; "tokens": "ignore" pairs its tags with the gold's by position, as
    conlleval.pl and wnuteval.py do, and gives conlleval.pl's figures to 1e-9 (entity F1 37.06, as published)."""
    spec = MANIFEST["wnut17"]
    gold_text = mirror_text("test", spec, "SEQUENCE_WNUT17_MIRROR")
    run_text = mirror_text("mic-cis", spec, "SEQUENCE_WNUT17_MIRROR")

    def sentences(text):
        blocks = text.replace("\r\n", "\n").split("\n\n")
        return [[line.split() for line in block.split("\n") if line.strip()] for block in blocks if block.strip()]
    gold, pred = sentences(gold_text), sentences(run_text)
    assert [len(s) for s in gold] == [len(s) for s in pred]
    assert sum(g[0] != p[0] for gs, ps in zip(gold, pred) for g, p in zip(gs, ps)) == 1283
    merged_text = "".join("".join("%s %s %s\n" % (g[0], g[-1], p[-1]) for g, p in zip(gs, ps)) + "\n"
                          for gs, ps in zip(gold, pred))
    counts, figures, per_type = conlleval(merged_text)
    assert counts == (23394, 1079, 891, 365)
    files = {"gold.conll": gold_text}, {"predictions.conll": run_text}
    from scoring_base import SubmissionError
    with pytest.raises(SubmissionError) as refused:
        score({"keys": KEYS}, *files)
    assert "predictions.conll, line 2: token 'get' where the gold's sentence 1 has 'gt' as its 2nd token" in str(
        refused.value)
    keys = KEYS + ["%s_%s" % (m, type_name) for type_name in ("person", "location", "group", "creative_work",
                                                              "corporation", "product") for m in ("f1", "precision",
                                                                                                  "recall")]
    result = score({"keys": keys, "tokens": "ignore"}, *files)
    values = dict(result.scores)
    assert_matches(values, figures, dict((k.replace("-", "_"), v) for k, v in per_type.items()))
    assert round(values["f1"] * 100, 2) == 37.06
    assert result.warnings[0].startswith("1283 tokens of the submission differ from the gold's (the first: "
                                         "predictions.conll, line 2, 'get' where the gold has 'gt')")


def test_iob1_reading_of_the_test_set(score):
    """The same test set converted to IOB1 (B- only between two chunks of one type, as the original eng.testb):
    conlleval's reading finds the same chunks, so a copy of the gold scores 1 and the perturbed run the same."""
    text = perturbed_test_set(mirror_text("testb_plain"), 3)
    gold, pred = split_columns(text)

    def iob1(conll_text):
        lines, previous = [], "O"
        for line in conll_text.split("\n"):
            if not line:
                lines.append(line)
                previous = "O"
                continue
            token, tag = line.split()
            if tag.startswith("B-") and not (previous[2:] == tag[2:] and previous != "O"):
                tag = "I-" + tag[2:]
            lines.append("%s %s" % (token, tag))
            previous = tag
        return "\n".join(lines)
    base = dict(score({}, {"gold.conll": gold}, {"predictions.conll": pred}).scores)
    converted = dict(score({}, {"gold.conll": iob1(gold)}, {"predictions.conll": iob1(pred)}).scores)
    assert iob1(gold) != gold and "B-" in iob1(gold)  # some chunks follow one of their type
    for key in ("f1", "precision", "recall"):
        assert converted[key] == base[key]
    assert dict(score({}, {"gold.conll": iob1(gold)}, {"predictions.conll": iob1(gold)}).scores)["f1"] == 1.0


def test_split_gold_keeps_documents_whole_and_public_data_drops_the_tags(tmp_path):
    """A CoNLL gold with -DOCSTART- lines is split by document (each about 1 in 5 to dev, by its number), every
    line kept once; the public data is the gold without its last column."""
    from codalab_bundles.authoring import generic_kits
    text = generic_kits.sample_gold("sequence", "test", 11)["gold.conll"]
    path = tmp_path / "gold.conll"
    path.write_text(text, encoding="utf-8")
    program = {"kind": "sequence", "reference": "gold.conll", "id_column": "id"}
    parts = generic_kits.split_gold("sequence", path, program)
    documents = dict((split, [d for d in files["gold.conll"].split("-DOCSTART- O") if d.strip()])
                     for split, files in parts.items())
    assert len(documents["dev"]) + len(documents["test"]) == 60 // 5 and documents["dev"] and documents["test"]
    lines = sorted(line for files in parts.values() for line in files["gold.conll"].splitlines() if line.strip())
    assert lines == sorted(line for line in text.splitlines() if line.strip())
    out = tmp_path / "tokens.conll"
    generic_kits._public_sequence(path, out, program)
    public = out.read_text(encoding="utf-8").splitlines()
    assert [line.split()[:1] for line in public] == [line.split()[:1] for line in text.splitlines()]
    assert not any(len(line.split()) > 1 for line in public if not line.startswith("-DOCSTART-"))


@pytest.mark.parametrize("line", ["t1 O\n\n", "t1 O\n"], ids=["sentences too many", "one endless sentence"])
def test_a_conll_run_is_read_a_piece_at_a_time(run, line):
    """The first bad sentence ends the reading: 3 MB further on the file stops being UTF-8, which a reading of
    the whole file would have reported instead."""
    message = "predictions.conll, line 6: a 3rd sentence, but the gold has 2"
    gold = conll("B-PER O", "O")
    predicted = conll("B-PER O", "O") + "\n" + line * 600000
    result = run({"kind": "sequence", "keys": KEYS}, {"gold.conll": gold},
                 {"predictions.conll": predicted.encode("utf-8") + b"\xff\n"})
    result.assert_rejected()
    assert result.stderr.strip() == "Submission error: " + message
