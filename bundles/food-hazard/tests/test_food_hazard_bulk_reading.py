"""The gold and the submission read whole columns at a time give what the row-by-row reading gives: the same
tables, the same order, the same errors with the same messages (the row-by-row reading is what names the lines)."""
import pandas as pd
import pytest

from codalab_bundles.loading import scoring_module
from conftest import ROOT

fmt = scoring_module("food-hazard", "food_hazard_format")

GOLD_FILE = ROOT / "reference_data" / "food-hazard" / "test" / "incidents_test_sample.csv"
LABELS = ["hazard-category", "product-category", "hazard", "product"]


@pytest.fixture(scope="module")
def gold_frame():
    return pd.read_csv(GOLD_FILE, index_col=0, keep_default_na=False)


def _outcome(read, *args):
    """What ``read`` returns (tables as plain values) or raises (class name and message)."""
    try:
        found = read(*args)
    except Exception as exc:  # the messages are compared, whatever the class
        return type(exc).__name__, str(exc)
    if isinstance(found, fmt.LabelTable):
        return found.ids, found.columns, len(found)
    return found


def _row_by_row(monkeypatch):
    monkeypatch.setattr(fmt, "_bulk_read", lambda path, choose, limit=None: None)


def _bulk_only(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("read row by row")
    monkeypatch.setattr(fmt, "read_csv", refuse)


def _both(monkeypatch, read, *args):
    """(outcome read in bulk if possible, outcome read row by row)."""
    fast = _outcome(read, *args)
    with monkeypatch.context() as patch:
        _row_by_row(patch)
        slow = _outcome(read, *args)
    return fast, slow


GOLDS = {
    "as published": lambda g: g.to_csv(),
    "crlf and bom": lambda g: "\ufeff" + g.to_csv(lineterminator="\r\n"),
    "named index": lambda g: g.to_csv(index_label="id"),
    "no index": lambda g: g.to_csv(index=False),
    "padded ids": lambda g: g.set_axis(["%03d" % i for i in g.index]).to_csv(),
    "duplicate ids": lambda g: g.rename(index={5: 3}).to_csv(),
    "empty label": lambda g: g.assign(hazard=g["hazard"].where(g.index != 12, " ")).to_csv(),
    "no rows": lambda g: g.iloc[:0].to_csv(),
    "no product column": lambda g: g.drop(columns=["product"]).to_csv(),
    "blank line": lambda g: g.to_csv().replace("\n4,", "\n\n4,", 1),
    "ragged row": lambda g: g.to_csv().replace("\n4,", "\n4,x,", 1),
}


@pytest.mark.parametrize("case", sorted(GOLDS))
def test_gold_read_in_bulk_is_the_gold_read_row_by_row(tmp_path, monkeypatch, gold_frame, case):
    path = tmp_path / "incidents_test.csv"
    path.write_text(GOLDS[case](gold_frame), encoding="utf-8", newline="")
    fast, slow = _both(monkeypatch, fmt.read_gold, str(path))
    assert fast == slow
    if case in ("as published", "crlf and bom", "named index"):
        _bulk_only(monkeypatch)
        assert _outcome(fmt.read_gold, str(path)) == slow and len(slow[0]) == 100


SUBMISSIONS = {
    "shuffled": lambda g: g.sample(frac=1.0, random_state=3).to_csv(),
    "named id": lambda g: g.sample(frac=1.0, random_state=4).to_csv(index_label="id"),
    "by position": lambda g: g.to_csv(index=False),
    "crlf and bom": lambda g: "\ufeff" + g.to_csv(lineterminator="\r\n"),
    "st2 only, reordered": lambda g: g[["product", "hazard"]].sample(frac=1.0, random_state=5).to_csv(),
    "quoted labels": lambda g: g.to_csv(quoting=1),
    "padded ids": lambda g: g.set_axis(["%03d" % i for i in g.index]).to_csv(),
    "unknown id": lambda g: g.rename(index={99: 100}).to_csv(),
    "duplicate id": lambda g: g.rename(index={5: 3}).to_csv(),
    "missing ids": lambda g: g.drop(index=[7, 40]).to_csv(),
    "row missing by position": lambda g: g.iloc[:-1].to_csv(index=False),
    "empty label": lambda g: g.assign(hazard=g["hazard"].where(g.index != 12, "")).to_csv(),
    "blank label by position": lambda g: g.assign(product=g["product"].where(g.index != 0, "  ")).to_csv(index=False),
    "empty id": lambda g: g.to_csv().replace("\n4,", "\n,", 1),
    "ragged row": lambda g: g.to_csv().replace("\n9,", "\n9,x,", 1),
    "blank line": lambda g: g.to_csv().replace("\n9,", "\n\n9,", 1),
    "header only": lambda g: g.iloc[:0].to_csv(),
    "unknown column": lambda g: g.rename(columns={"hazard": "Hazard"}).to_csv(),
}


@pytest.mark.parametrize("case", sorted(SUBMISSIONS))
def test_submission_read_in_bulk_is_the_submission_read_row_by_row(tmp_path, monkeypatch, gold_frame, case):
    gold = fmt.read_gold(str(GOLD_FILE))
    path = tmp_path / "submission.csv"
    path.write_text(SUBMISSIONS[case](gold_frame[LABELS]), encoding="utf-8", newline="")
    fast, slow = _both(monkeypatch, fmt.read_submission, str(path), gold)
    assert fast == slow
    if case in ("shuffled", "named id", "by position", "crlf and bom", "st2 only, reordered", "quoted labels"):
        _bulk_only(monkeypatch)
        assert _outcome(fmt.read_submission, str(path), gold) == slow
        assert [len(labels) for labels in slow.values()] == [100] * len(slow)


def test_an_empty_label_found_in_bulk_is_not_kept_for_later_files(tmp_path, monkeypatch, gold_frame):
    gold = fmt.read_gold(str(GOLD_FILE))
    path = tmp_path / "submission.csv"
    frame = gold_frame[LABELS]
    path.write_text(frame.assign(hazard=frame["hazard"].where(frame.index != 3, " ")).to_csv(), encoding="utf-8")
    with pytest.raises(fmt.SubmissionError, match=r"line 5 \(id 3\): the 'hazard' cell is empty"):
        fmt.read_submission(str(path), gold)
    assert " " not in fmt._LABELS
    path.write_text(frame.to_csv(), encoding="utf-8")
    _bulk_only(monkeypatch)
    assert fmt.read_submission(str(path), gold) == gold.columns


def test_labels_are_shared_by_gold_and_submission(tmp_path, gold_frame):
    gold = fmt.read_gold(str(GOLD_FILE))
    path = tmp_path / "submission.csv"
    path.write_text(gold_frame[LABELS].sample(frac=1.0, random_state=1).to_csv(), encoding="utf-8")
    predicted = fmt.read_submission(str(path), gold)
    assert all(a is b for column in LABELS for a, b in zip(gold.columns[column], predicted[column]))
