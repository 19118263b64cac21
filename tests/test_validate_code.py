"""validate's checks of code-submission tasks (validate/code_rules.py), each on a hand-written bundle
(tests/code_bundles.py) that Codabench's own import accepts (tests/codabench_import.py): the competition is made, and
its submissions then fail or expose the gold, as the replay shows (test_replay_code.py) and the live site confirms
(test_replay_code_live.py)."""
import pytest

import code_bundles
from codabench_import import import_or_skip
from codalab_bundles import validate

NO_COMMAND = "description: no command\n"
HIDDEN = "command: python3 $program/ingest.py $hidden $output $submission_program\n"
MISSING_FILE = "command: python3 $program/ingestion.py $input $output $submission_program\n"
PROGRAM_IN_SCORING = "command: python3 $program/ingest.py /app/input_data /app/output /app/ingested_program\n"

# (bundle kind, its ingestion metadata or None, the finding's severity and the start of its message, or None)
CASES = [
    ("ingestion", None, None),
    ("ingestion", NO_COMMAND, ("error", "ingestion_program.zip: Program directory missing 'command' in metadata.")),
    ("ingestion", "", ("error", "ingestion_program.zip: Program directory missing 'metadata.yaml/metadata'.")),
    ("ingestion", HIDDEN, ("error", "the ingestion command uses $hidden (/app/input/ref), but the prediction")),
    ("ingestion", MISSING_FILE, ("error", "the ingestion command runs $program/ingestion.py, which is not in")),
    ("during_scoring", None, ("warning", "ingestion_only_during_scoring: the ingestion program runs the submission")),
    ("during_scoring", PROGRAM_IN_SCORING, ("error", "with ingestion_only_during_scoring, $program in the "
                                                     "ingestion command becomes /app/ingestion_program")),
    ("own_command", None, ("note", "input data without an ingestion program: only a submission with its own")),
]


def _code_findings(path):
    _, findings = validate.validate(str(path), replay=False)
    return [f for f in findings if f.rule == "code-submission"]


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    folder = tmp_path_factory.mktemp("code-bundles")
    paths = []
    for i, (kind, metadata, _) in enumerate(CASES):
        path = folder / ("case%d.zip" % i)
        path.write_bytes(code_bundles.bundle(kind, ingestion_metadata=metadata))
        paths.append(path)
    return paths


@pytest.mark.parametrize("index", range(len(CASES)))
def test_each_code_submission_rule(bundles, index):
    expected = CASES[index][2]
    found = _code_findings(bundles[index])
    if expected is None:
        assert found == []
        return
    shown = [(f.severity, f.message[:len(expected[1])]) for f in found]
    assert expected in shown and len(shown) == (2 if CASES[index][1] == PROGRAM_IN_SCORING else 1), shown
    flagged = found[shown.index(expected)]
    assert flagged.platform == "codabench" and (flagged.accepted or expected[0] == "note")


def test_codabench_s_import_accepts_every_bundle_the_rules_flag(bundles):
    results = import_or_skip(bundles)
    assert [r["ok"] for r in results] == [True] * len(CASES), [r.get("error") for r in results]
