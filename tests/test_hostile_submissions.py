"""Hostile submissions against every scoring program: huge numbers, deep JSON, long fields, other scripts' digits,
and (property-based) mutations of each task's sample submission. Never an internal error or a traceback, never a
scores file for an input that is refused; a refusal is one short line naming the file and line."""
import io
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import ROOT, public_gold, run_scoring_program

TASKS = ("food-hazard", "toxic-spans", "cheers", "ehealth-kd", "recipe-mpr")
HUGE = "9" * 5000


def _unzip(data):
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return dict((n, archive.read(n)) for n in archive.namelist() if not n.endswith("/"))


@pytest.fixture(scope="module")
def samples(built_bundles):
    """{task: (reference files, sample submission files)} of each task's first phase, from the built bundles."""
    found = {}
    for task in TASKS:
        import yaml
        with zipfile.ZipFile(str(built_bundles[task].codalab)) as bundle:
            spec = yaml.safe_load(bundle.read("competition.yaml"))
            phase = spec["phases"][1]
            ref = _unzip(bundle.read(phase["reference_data"]))
            kit = _unzip(bundle.read(phase["starting_kit"]))
        found[task] = (ref, _unzip(kit["sample_submission.zip"]))
    return found


def assert_clean_refusal(run, *fragments):
    message = run.assert_rejected(*fragments)
    assert "internal error" not in message and "Exceeds the limit" not in message
    assert len(message) < 400, message
    return message


def edited(files, name, transform):
    out = dict(files)
    out[name] = transform(files[name].decode("utf-8")).encode("utf-8")
    return out


# ---------------------------------------------------------------------------------------------------------------
# The defects of the mutation run, one by one


def test_food_hazard_huge_index_id(samples, tmp_path):
    ref, sub = samples["food-hazard"]
    lines = sub["submission.csv"].decode().splitlines(True)
    lines[1] = HUGE + lines[1][lines[1].index(","):]
    run = run_scoring_program("food-hazard", ref, {"submission.csv": "".join(lines)}, tmp_path)
    assert_clean_refusal(run, "submission.csv, line 2: id 9999999999999999999999999999999999999... is not an id")


def test_cheers_huge_doc_id_and_sector_id(samples, tmp_path):
    ref, sub = samples["cheers"]
    (name,) = sub
    lines = sub[name].decode().splitlines(True)
    cells = lines[1].rstrip("\n").split(",")
    doc = ",".join([HUGE] + cells[1:]) + "\n"
    run = run_scoring_program("cheers", ref, {name: "".join(lines[:1] + [doc] + lines[2:])}, tmp_path / "doc")
    assert_clean_refusal(run, "line 2 (doc_id 9999999999999999999999999999999999999..., sentence_id",
                         "no such sentence")
    sector = ",".join(cells[:2] + ["1", HUGE]) + "\n"
    run = run_scoring_program("cheers", ref, {name: "".join(lines[:1] + [sector] + lines[2:])}, tmp_path / "sector")
    assert_clean_refusal(run, "line 2", "sector_id '9999999999999999999999999999999999999...' has 5000 digits, "
                         "more than the 30 allowed")


def test_toxic_spans_huge_offset_and_id(samples, tmp_path):
    ref, sub = samples["toxic-spans"]
    (name,) = sub
    text = sub[name].decode()
    first = text.splitlines()[0]
    post_id, _ = first.split("\t")
    run = run_scoring_program("toxic-spans", ref, {name: text.replace(first, "%s\t[1, %s]" % (post_id, HUGE), 1)},
                              tmp_path / "offset")
    assert_clean_refusal(run, "line 1", "offset '9999999999999999999999999999999999999...' has 5000 digits, more "
                         "than the 30 allowed")
    run = run_scoring_program("toxic-spans", ref, {name: text.replace(first, "%s\t[]" % HUGE, 1)}, tmp_path / "id")
    assert_clean_refusal(run, "line 1", "the id '9999999999999999999999999999999999999...' has 5000 digits")


def test_recipe_mpr_deep_json(samples, tmp_path):
    ref, _ = samples["recipe-mpr"]
    run = run_scoring_program("recipe-mpr", ref, {"predictions.json": "[" * 100000}, tmp_path)
    assert_clean_refusal(run, "predictions.json, line 1: the JSON is nested more than 100 levels deep")
    run = run_scoring_program("recipe-mpr", ref, {"predictions.json": '{"q000": %s}' % HUGE}, tmp_path / "n")
    assert_clean_refusal(run, "predictions.json: the number '9999999999999999999999999999999999999...' has 5000 "
                         "digits, more than the 30 allowed")


def _ehealth_a_file(sub):
    return sorted(n for n in sub if "output_a_scenario" in n)[0]


def test_ehealth_kd_long_field_is_shortened_and_full_width_digits_refused(samples, tmp_path):
    ref, sub = samples["ehealth-kd"]
    name = _ehealth_a_file(sub)
    long_id = edited(sub, name, lambda t: "x" * 5000 + t[t.index("\t"):])
    run = run_scoring_program("ehealth-kd", ref, long_id, tmp_path / "long")
    assert_clean_refusal(run, "%s, line 1: the key-phrase ID 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' is not a "
                         "whole number (digits 0-9)" % name)
    full_width = edited(sub, name, lambda t: "\uff11" + t[t.index("\t"):])
    run = run_scoring_program("ehealth-kd", ref, full_width, tmp_path / "wide")
    assert_clean_refusal(run, "%s, line 1: the key-phrase ID '\uff11' is not a whole number (digits 0-9)" % name)


def test_food_hazard_hidden_gold_page_names_no_unpredicted_class(samples, tmp_path):
    # Before: the test page listed gold rows per class and named the gold classes never predicted.
    ref, sub = samples["food-hazard"]
    import csv
    rows = list(csv.reader(io.StringIO(sub["submission.csv"].decode())))
    header = rows[0]
    gold_rows = list(csv.reader(io.StringIO([v for k, v in ref.items() if k.endswith(".csv")][0].decode())))
    column = gold_rows[0].index("hazard-category")
    gold_classes = set(r[column] for r in gold_rows[1:] if len(r) > column)
    chosen = sorted(gold_classes)[0]
    position = header.index("hazard-category")
    for row in rows[1:]:
        row[position] = chosen
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    submission = {"submission.csv": out.getvalue()}
    hidden = run_scoring_program("food-hazard", ref, submission, tmp_path / "hidden")
    public = run_scoring_program("food-hazard", public_gold(ref), submission, tmp_path / "public")
    assert hidden.scores == public.scores and hidden.returncode == 0
    others = sorted(gold_classes - {chosen})
    assert others and all(c in public.html for c in others) and "Never predicted" in public.html
    assert not any(">%s<" % c in hidden.html for c in others) and "Never predicted" not in hidden.html
    assert "gold rows" not in hidden.html and "The gold of this phase is not public" in hidden.html


@pytest.mark.parametrize("task", TASKS)
def test_hidden_gold_page_holds_no_gold_count_column(samples, tmp_path, task):
    ref, sub = samples[task]
    ref = dict((k, v) for k, v in ref.items() if not k.endswith("gold_is_public.txt"))
    run = run_scoring_program(task, ref, sub, tmp_path)
    assert run.returncode == 0, run.stderr
    for header in ("<th>gold", "gold rows", "gold sentences", "gold sector", "Never predicted", "Examples"):
        assert header not in run.html, header
    assert "The gold of this phase is not public" in run.html


# ---------------------------------------------------------------------------------------------------------------
# Property-based: mutated sample submissions

_ALPHABET = st.sampled_from(list("0123456789,;\t []{}\"'-+.:xé\uff11\u0663\u2028\r\n") + [HUGE, "[" * 200, "\\"])


@st.composite
def mutation(draw, files):
    name = draw(st.sampled_from(sorted(files)))
    data = files[name]
    kind = draw(st.sampled_from(["splice", "truncate", "bytes", "line"]))
    if kind == "bytes":
        position = draw(st.integers(0, len(data)))
        return name, data[:position] + draw(st.binary(min_size=1, max_size=8)) + data[position:]
    text = data.decode("utf-8")
    if kind == "truncate":
        return name, text[:draw(st.integers(0, max(0, len(text) - 1)))].encode("utf-8")
    insert = "".join(draw(st.lists(_ALPHABET, min_size=1, max_size=6)))
    if kind == "line":
        lines = text.splitlines(True) or [""]
        index = draw(st.integers(0, len(lines) - 1))
        lines[index] = insert + "\n"
        return name, "".join(lines).encode("utf-8")
    position = draw(st.integers(0, len(text)))
    return name, (text[:position] + insert + text[position:]).encode("utf-8")


@pytest.mark.parametrize("task", TASKS)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_submissions_never_crash(samples, tmp_path_factory, task, data):
    ref, sub = samples[task]
    name, mutated = data.draw(mutation(sub))
    run = run_scoring_program(task, ref, dict(sub, **{name: mutated}), tmp_path_factory.mktemp(task))
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    if run.returncode == 0:
        assert run.scores is not None and run.scores_txt
    else:
        assert run.returncode == 1
        assert_clean_refusal(run)
