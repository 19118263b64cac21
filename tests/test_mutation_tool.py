"""tools/mutation.py on a tiny module in a temporary tree: its sampling, its choice of tests, its runs in copies
(the real file untouched), its report; and, when mutmut 2.4.5 is installed, the whole command, whose one survivor
is the tiny module's one equivalent mutant."""
import importlib.util
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT

TOOL = ROOT / "tools" / "mutation.py"
_spec = importlib.util.spec_from_file_location("mutation_tool", str(TOOL))
mutation = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mutation)

SIGN = textwrap.dedent('''\
    def sign(x):
        if x > 0:
            return 1
        if x < 0:
            return -1
        return x - x  # zero; "x + x" is zero here too: the equivalent mutant
    ''')
TEST_SIGN = textwrap.dedent('''\
    from sign import sign


    def test_sign():
        assert [sign(v) for v in (-5, -1, 0, 1, 5)] == [-1, -1, 0, 1, 1]
    ''')


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / "sign.py").write_text(SIGN)
    (root / "test_sign.py").write_text(TEST_SIGN)
    return root


def test_a_sample_is_drawn_by_its_seed_and_kept_in_source_order():
    mutants = [mutation.Mutant(n, "m.py", n, "", "") for n in range(1, 101)]
    first = [m.number for m in mutation.sample(mutants, 10, 3)]
    assert first == [m.number for m in mutation.sample(mutants, 10, 3)] == sorted(first) and len(set(first)) == 10
    assert first != [m.number for m in mutation.sample(mutants, 10, 4)]
    assert mutation.sample(mutants, None, 3) == mutation.sample(mutants, 100, 3) == mutation.sample(mutants, 500, 0) \
        == mutants


def test_covering_tests_name_the_module_or_a_module_importing_it(tmp_path):
    files = {
        "tests/test_direct.py": "from scoring_common import widget_metric\n",
        "tests/test_other.py": "import json\n",
        "tests/test_indirect.py": "from codalab_bundles import user_of_helper\n",
        "tests/test_mentions_user.py": "# user_of_helper is mentioned, not imported\n",
        "bundles/task-x/tests/test_program.py": "import json\n",
        "scoring_programs/task-x/widget_metric.py": "X = 1\n",
        "scoring_programs/common/shared_part.py": "X = 1\n",
        "codalab_bundles/helper.py": "X = 1\n",
        "codalab_bundles/user_of_helper.py": "from . import helper\n",
        "codalab_bundles/room/report.py": "X = 1\n",
        "codalab_bundles/room/__init__.py": "X = 1\n",
        "tests/test_room_report.py": "from codalab_bundles.room import other, report as room_report\n",
        "tests/test_room.py": "from codalab_bundles import room\nreport = room.X\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    # A task's module: the files naming it, and the task's own tests.
    assert mutation.covering_tests(str(tmp_path), "scoring_programs/task-x/widget_metric.py") == [
        "bundles/task-x/tests/test_program.py", "tests/test_direct.py"]
    # Named by no test: the tests importing a module that imports it.
    assert mutation.covering_tests(str(tmp_path), "codalab_bundles/helper.py") == ["tests/test_indirect.py"]
    assert mutation.covering_tests(str(tmp_path), "scoring_programs/common/shared_part.py") == []
    # A module of a library room: the tests importing it from its room, or the room itself (whose __init__ runs
    # its modules), not every test saying "report".
    assert mutation.covering_tests(str(tmp_path), "codalab_bundles/room/report.py") == [
        "tests/test_room.py", "tests/test_room_report.py"]
    assert mutation.covering_tests(str(tmp_path), "codalab_bundles/other_room/report.py") == []
    # a package's own module: every test importing from the package runs it
    assert mutation.covering_tests(str(tmp_path), "codalab_bundles/room/__init__.py") == [
        "tests/test_room.py", "tests/test_room_report.py"]


def test_hand_made_mutants_run_in_copies_and_the_real_file_stays(tree):
    killed = mutation.Mutant(1, "sign.py", 2, SIGN, SIGN.replace("x > 0", "x >= 0"))
    survivor = mutation.Mutant(2, "sign.py", 6, SIGN, SIGN.replace("x - x", "x + x"))
    broken = mutation.Mutant(3, "sign.py", 1, SIGN, SIGN.replace("def sign(x):", "def sign(x)"))
    seen = []
    mutation.run_mutants(str(tree), [killed, survivor, broken], ["test_sign.py"], jobs=2, log=seen.append,
                         progress=lambda mutant, count, total: seen.append((mutant.number, count, total)))
    assert (killed.status, survivor.status, broken.status) == (mutation.KILLED, mutation.SURVIVED, mutation.KILLED)
    assert (tree / "sign.py").read_text() == SIGN
    assert seen[0].startswith("baseline: the tests pass in ")
    assert sorted(n for n, _, _ in seen[1:]) == [1, 2, 3] and [(c, t) for _, c, t in seen[1:]] == [(1, 3), (2, 3),
                                                                                                  (3, 3)]
    lines = []
    mutation.report([killed, survivor, broken], out=lines.append)
    assert lines[0] == "killed 2, timed out 0, survived 1 of 3: kill rate 66.7%"
    text = "\n".join(lines)
    assert "#2 sign.py:6" in text and "-    return x - x" in text and "+    return x + x" in text
    assert "#1 sign.py" not in text


def test_a_baseline_that_fails_stops_the_run(tree):
    (tree / "test_sign.py").write_text(TEST_SIGN.replace("[-1, -1, 0, 1, 1]", "[]"))
    mutant = mutation.Mutant(1, "sign.py", 2, SIGN, SIGN.replace("x > 0", "x >= 0"))
    with pytest.raises(SystemExit, match="the tests fail without any mutation"):
        mutation.run_mutants(str(tree), [mutant], ["test_sign.py"], log=lambda line: None)
    assert mutant.status is None


def test_the_command_with_mutmut(tree):
    pytest.importorskip("mutmut", reason="the tool's mutant generator: pip install mutmut==2.4.5")
    proc = subprocess.run([sys.executable, str(TOOL), "sign.py", "--root", str(tree), "--tests", "test_sign.py",
                           "--jobs", "2"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stderr          # a mutant survived
    assert "mutation.py: sign.py: 8 mutants\n" in proc.stdout
    assert "killed 7, timed out 0, survived 1 of 8: kill rate 87.5%" in proc.stdout
    assert "#8 sign.py:6" in proc.stdout and "+    return x + x" in proc.stdout
    assert (tree / "sign.py").read_text() == SIGN
    listed = subprocess.run([sys.executable, str(TOOL), "sign.py", "--root", str(tree), "--list", "--sample", "3",
                             "--seed", "1"], capture_output=True, text=True, timeout=120)
    again = subprocess.run([sys.executable, str(TOOL), "sign.py", "--root", str(tree), "--list", "--sample", "3",
                            "--seed", "1"], capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0 and listed.stdout == again.stdout
    assert "8 mutants, a sample of 3 (seed 1)" in listed.stdout and listed.stdout.count("\n#") == 3
