"""``validate`` gives Codabench's own verdict on each hand-written bundle of codabench_cases.py, and prints the
phase dates Codabench's import stored for it."""
import re

import pytest

from codabench_cases import CASES, bundle_bytes
from codalab_bundles import validate

# Accepted bundles that still need a change: the warning the organizer gets.
WARNINGS = {
    "unquoted timestamps": "keeps only its day",
    "v1 unquoted timestamp": "keeps only its day",
    "typos in keys": "did you mean",
}
# Accepted by the import, but nobody can ever submit to a phase: an error all the same.
UNUSABLE = {"end before start": "nobody can ever submit", "v1 phases less than a day apart": "nobody can ever submit"}
NOTES = {"month-first dates": "month first", "v1 empty page": "is empty"}


def _stored(findings):
    """{phase index: (start, end)} from the validator's 'Codabench stores phase N' notes."""
    found = {}
    for f in findings:
        match = re.match(r"Codabench stores phase (\d+) \(.*\): (\S+ \S+) UTC to (no end|\S+ \S+ UTC)", f.message)
        if match:
            end = None if match.group(3) == "no end" else match.group(3)[:-4]
            found[int(match.group(1)) - 1] = (match.group(2), end)
    return found


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_validate_gives_codabenchs_verdict(tmp_path, case):
    name, version, _, _, refusal, dates = case
    path = tmp_path / "bundle.zip"
    path.write_bytes(bundle_bytes(case))
    got_version, findings = validate.validate(str(path), replay=False)
    assert got_version == version
    errors = [f for f in findings if f.severity == "error"]
    if refusal is None:
        assert [f for f in errors if UNUSABLE.get(name, "-") not in f.message] == [], errors
        assert bool(errors) == (name in UNUSABLE), errors
        stored = _stored(findings)
        for index, expected in dates.items():
            assert stored[index] == expected, (index, stored)
    else:
        assert any(refusal in f.message for f in errors), errors
    warnings = [f for f in findings if f.severity == "warning"]
    if name in WARNINGS:
        assert any(WARNINGS[name] in f.message + (f.fix or "") for f in warnings), warnings
    else:
        assert warnings == [] or refusal is not None, warnings
    if name in NOTES:
        assert any(NOTES[name] in f.message for f in findings if f.severity == "note"), findings


def test_typos_name_the_key_that_was_meant(tmp_path):
    case = [c for c in CASES if c[0] == "typos in keys"][0]
    path = tmp_path / "bundle.zip"
    path.write_bytes(bundle_bytes(case))
    _, findings = validate.validate(str(path), replay=False)
    hints = sorted((f.where, f.fix) for f in findings if f.rule == "unknown-key")
    assert hints == [("(top level)", "did you mean registration_auto_approve?"),
                     ("phases.0", "did you mean max_submissions_per_day?")]


def test_codalab_still_reads_the_first_yaml_entry(tmp_path):
    case = [c for c in CASES if c[0] == "metadata.yaml entry first"][0]
    path = tmp_path / "bundle.zip"
    path.write_bytes(bundle_bytes(case))
    _, findings = validate.validate(str(path), platforms=("codalab", "codabench"), replay=False)
    assert [f.platform for f in findings if f.rule == "zip"] == ["codalab"]
