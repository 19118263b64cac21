"""Which column ranked an old CodaLab leaderboard (issue 29): Python 2.7's dict order reproduced exactly, CodaLab's
tree order and selection rule, and what migrate's report says is known and what it chooses."""
import json
import os
import random
import shutil
import subprocess
import sys
import zipfile

import pytest
import yaml

from codalab_bundles.platforms import codalab_leaderboard as codalab
from codalab_bundles.platforms.python27_order import python27_hash, python27_key_order
from conftest import ROOT
from test_migrate_real_cases import bundle, phase


def python27():
    """A real Python 2.7 (pyenv's on these machines), or None. It runs with -E: PYTHONHASHSEED would randomise its
    string hashes."""
    for candidate in (shutil.which("python2.7"), os.path.expanduser("~/.pyenv/versions/2.7.18/bin/python")):
        if candidate and os.path.exists(candidate):
            probe = subprocess.run([candidate, "-c", "import sys; print(sys.version_info[:2] == (2, 7))"],
                                   capture_output=True, text=True)
            if probe.stdout.strip() == "True":
                return candidate
    return None


# 1. Python 2.7's order, by hand and against a real python2.7

def test_python27_hash_and_order_by_hand():
    # hash('a') in Python 2.7: x = 97 << 7 = 12416; x = 1000003 * x ^ 97 = 12416037345; x ^= len 1 -> 12416037344
    assert [python27_hash(k) for k in "abc"] == [12416037344, 12544037731, 12672038114]
    # slots in a table of 8: a -> 0, b -> 3, c -> 2, so a dict iterates a, c, b
    assert python27_key_order(["a", "b", "c"]) == ["a", "c", "b"]
    assert python27_hash("") == 0 and python27_hash(-1) == -2 and python27_hash(True) == 1
    assert python27_key_order(["x", None]) is None  # no reproducible hash: no order claimed


def key_sets():
    rng = random.Random(29)
    ascii_text = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789-"
    other = u"\u00e9\u00fc\u00f1\u00df\u03bb\u0436\u4e2d\u6587\U0001f642"
    sets = []
    for size in range(1, 61):
        for alphabet in (ascii_text, ascii_text + other):
            keys = []
            while len(keys) < size:
                key = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
                if key not in keys:
                    keys.append(key)
            sets.append(keys)
    sets.append(list(range(-3, 40)))           # ints hash to themselves (-1 to -2)
    sets.append(["f1", 1, "acc", 2, "-1", -1])  # mixed
    return sets


PYTHON27_DICTS = r'''
import json, sys
out = []
for keys in json.load(sys.stdin):
    mapping = {}
    for key in keys:           # PyYAML's construct_mapping
        mapping[key] = None
    data = {}
    data.update(mapping)       # construct_yaml_map
    out.append(list(data))
json.dump(out, sys.stdout)
'''


@pytest.mark.skipif(python27() is None, reason="no python2.7 on this machine (pyenv install 2.7.18 gives one)")
def test_python27_order_equals_a_real_python27():
    sets = key_sets()
    proc = subprocess.run([python27(), "-E", "-c", PYTHON27_DICTS], input=json.dumps(sets), capture_output=True,
                          text=True, check=True)
    real = json.loads(proc.stdout)
    assert [python27_key_order(keys) for keys in sets] == real
    # the test has teeth: most sets iterate in another order than the file's, across every table size up to 128
    assert sum(keys != order for keys, order in zip(sets, real)) > 100


PYTHON27_YAML = r'''
import json, sys, yaml
out = []
for text in json.load(sys.stdin):
    out.append([k if not isinstance(k, str) else k.decode("ascii") for k in yaml.load(text)["columns"]])
json.dump(out, sys.stdout)
'''


@pytest.mark.skipif(python27() is None, reason="no python2.7 on this machine")
def test_python27_order_of_yaml_read_by_pyyaml_on_python27():
    probe = subprocess.run([python27(), "-E", "-c", "import yaml"], capture_output=True)
    if probe.returncode:
        pytest.skip("python2.7 has no PyYAML (python2.7 -m pip install PyYAML==3.10, CodaLab's pinned version)")
    texts = []
    for keys in key_sets()[:-2]:
        # double-quoted YAML; PyYAML 3.10 reads characters beyond the BMP only as escapes
        lines = ["columns:"] + ["  %s: {label: x}" % "".join(c if ord(c) <= 0xFFFF else "\\U%08x" % ord(c)
                                                             for c in json.dumps(k, ensure_ascii=False))
                                for k in keys]
        texts.append("\n".join(lines) + "\n")
    proc = subprocess.run([python27(), "-E", "-c", PYTHON27_YAML], input=json.dumps(texts), capture_output=True,
                          text=True, check=True)
    ours = [python27_key_order(list(yaml.safe_load(text)["columns"])) for text in texts]
    assert ours == json.loads(proc.stdout)


ORDERED_LOADER = r'''
import collections, json, sys, yaml
# CodaLab's unpacker from commit 3c3cc0f0a on: every YAML mapping built as an OrderedDict of its pairs
yaml.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
                     lambda loader, node: collections.OrderedDict(loader.construct_pairs(node)))
json.dump([list(yaml.load(text)["columns"]) for text in json.load(sys.stdin)], sys.stdout)
'''


@pytest.mark.skipif(python27() is None, reason="no python2.7 on this machine")
def test_codalab_from_october_2014_read_the_files_order_on_python27():
    probe = subprocess.run([python27(), "-E", "-c", "import yaml"], capture_output=True)
    if probe.returncode:
        pytest.skip("python2.7 has no PyYAML (python2.7 -m pip install PyYAML==3.10)")
    sets = [keys for keys in key_sets()[:-2] if all(ord(c) <= 0x7f for k in keys for c in k)]
    texts = ["columns:\n" + "".join("  %s: {label: x}\n" % json.dumps(k) for k in keys) for keys in sets]
    proc = subprocess.run([python27(), "-E", "-c", ORDERED_LOADER], input=json.dumps(texts), capture_output=True,
                          text=True, check=True)
    assert json.loads(proc.stdout) == sets


# 2. CodaLab's tree order and selection rule

def test_first_group_comes_before_every_column_outside_groups():
    columns = [("macro", {}), ("en_f1", {"column_group": {"label": "English"}}),
               ("es_f1", {"column_group": {"label": "Spanish"}}), ("avg", {"computed": {"operation": "Avg"},
                                                                          "column_group": {"label": "English"}})]
    groups = [("es", {"label": "Spanish"}), ("en", {"label": "English"})]
    # groups were created first (es, then en), each column under its group, computed columns last
    assert codalab.tree_order(columns, groups) == ["es_f1", "en_f1", "avg", "macro"]
    assert codalab.ranked_by(columns, groups) == "es_f1"
    # the highest selection_default wins; among equals, the first in tree order
    columns[0] = ("macro", {"selection_default": 2})
    columns[1] = ("en_f1", {"column_group": {"label": "English"}, "selection_default": 2})
    assert codalab.ranked_by(columns, groups) == "en_f1"


def test_eras_by_date():
    import datetime
    assert codalab.era_of(datetime.datetime(2014, 9, 30, 23, 59)) == codalab.PYTHON27
    assert codalab.era_of(datetime.datetime(2014, 10, 1)) is None     # both ran in October 2014
    assert codalab.era_of(datetime.datetime(2014, 11, 1)) == codalab.FILE
    assert codalab.era_of(None) is None


# 3. What migrate says, as the organizer runs it

# f1 then acc in the file; Python 2.7 iterates acc first (hash('acc') & 7 = 0 < hash('f1') & 7 = 1)
TWO = """\
leaderboard:
  leaderboards:
    RESULTS: &RESULTS
      label: Results
      rank: 1
  columns:
    f1:
      leaderboard: *RESULTS
      label: F1
%s    acc:
      leaderboard: *RESULTS
      label: Accuracy
%s"""


def migrate_cli(*args):
    return subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "migrate"] + [str(a) for a in args] +
                          ["--no-check"], capture_output=True, text=True)


def migrated(path):
    with zipfile.ZipFile(str(path)) as archive:
        return yaml.safe_load(archive.read("competition.yaml"))["leaderboards"][0]


def report_lines(stdout, start):
    return [line[4:] for line in stdout.splitlines() if line.startswith("  - " + start)]


def test_python27_order_in_orders_before_2014(tmp_path):
    assert python27_key_order(["f1", "acc"]) == ["acc", "f1"]
    old = bundle(tmp_path, [phase(1, "Dev", "2013-05-01 00:00:00")], TWO % ("", ""))
    proc = migrate_cli(old, "-o", tmp_path / "new.zip")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    board = migrated(tmp_path / "new.zip")
    # no rank: each column's ordering was its place in Python 2.7's iteration, so acc was shown first and ranked
    assert [c["key"] for c in board["columns"]] == ["acc", "f1"] and "primary_index" not in board
    line, = report_lines(proc.stdout, "leaderboard: CodaLab ranked by")
    assert "f1 in the file's order" in line and "acc in Python 2.7's dict order" in line
    assert "the phases start on 2013-05-01, so the bundle was most likely read in Python 2.7's order, and ranked " \
           "by acc; the migrated leaderboard ranks by acc too" in line
    assert "Leaderboard 'Results': acc, f1; ranked by acc (desc)" in proc.stdout


def test_file_order_from_november_2014(tmp_path):
    old = bundle(tmp_path, [phase(1, "Dev", "2024-01-01 00:00:00")], TWO % ("", ""))
    proc = migrate_cli(old, "-o", tmp_path / "new.zip")
    board = migrated(tmp_path / "new.zip")
    assert [c["key"] for c in board["columns"]] == ["f1", "acc"] and "primary_index" not in board
    line, = report_lines(proc.stdout, "leaderboard: CodaLab ranked by")
    assert "most likely read in the file's order, and ranked by f1; the migrated leaderboard ranks by f1 too" in line


def test_dates_that_cannot_tell_are_said_and_the_choice_is_a_note(tmp_path):
    old = bundle(tmp_path, [phase(1, "Dev", "2014-10-15 00:00:00")], TWO % ("      rank: 2\n", "      rank: 1\n"))
    proc = migrate_cli(old, "-o", tmp_path / "new.zip")
    assert proc.returncode == 0
    notes = proc.stdout.split("Notes (worth a look")[1]
    line, = report_lines(notes, "leaderboard: CodaLab ranked by")
    assert "its dates (earliest start 2014-10-15, while both ran) do not tell which. The migrated leaderboard ranks " \
           "by f1, the first in the file's order, in which CodaLab read bundles from October 2014 to its end: a " \
           "choice, check it against the old leaderboard; to rank by another column: migrate --rank-by KEY" in line
    board = migrated(tmp_path / "new.zip")
    assert [c["key"] for c in board["columns"]] == ["acc", "f1"] and board["primary_index"] == 1
    assert "f1 ranks (chosen: see the note on the ranking column), though it is not the first column shown: " \
           "written primary_index: 1" in proc.stdout
    assert len(report_lines(proc.stdout, "leaderboard: CodaLab's editor could change the ranking column")) == 1


def test_rank_by_chooses_and_refuses_what_is_not_a_column(tmp_path):
    old = bundle(tmp_path, [phase(1, "Dev", "2014-10-15 00:00:00")], TWO % ("", ""))
    proc = migrate_cli(old, "-o", tmp_path / "new.zip", "--rank-by", "acc")
    assert proc.returncode == 0
    assert "The migrated leaderboard ranks by acc, as asked (--rank-by)" in proc.stdout
    assert migrated(tmp_path / "new.zip")["primary_index"] == 1
    proc = migrate_cli(old, "-o", tmp_path / "other.zip", "--rank-by", "recall")
    assert proc.returncode == 2 and not (tmp_path / "other.zip").exists()
    assert proc.stderr.strip() == "migrate: --rank-by recall: the main leaderboard has no such column (its columns: " \
                                  "f1, acc)"
    proc = migrate_cli(old, old, "--out", tmp_path / "many", "--rank-by", "acc")
    assert proc.returncode == 2 and "--rank-by names a column of one bundle" in proc.stderr


def test_selection_default_is_a_fact_in_either_order(tmp_path):
    old = bundle(tmp_path, [phase(1, "Dev", "2014-10-15 00:00:00")],
                 TWO % ("      selection_default: 1\n", ""))
    proc = migrate_cli(old, "-o", tmp_path / "new.zip")
    line, = report_lines(proc.stdout, "leaderboard: CodaLab ranked by")
    assert line == "leaderboard: CodaLab ranked by f1, the first column it created with the highest " \
                   "selection_default, whichever order it read the file in; the migrated leaderboard ranks by f1 too"


COMPUTED_FIRST = """\
leaderboard:
  leaderboards:
    RESULTS: &RESULTS
      label: Results
      rank: 1
  columns:
    ave_score:
      leaderboard: *RESULTS
      label: Average
      rank: 0
      computed:
        operation: Avg
        fields: score_a, score_b
    Duration:
      leaderboard: *RESULTS
      label: Duration
      rank: 3
      sort: asc
    score_a:
      leaderboard: *RESULTS
      label: A
      rank: 1
    score_b:
      leaderboard: *RESULTS
      label: B
      rank: 2
"""


def test_a_computed_column_shown_first_is_the_files_intent_not_codalabs_ranking(tmp_path):
    # as AutoML.org's DAC4SGD (2022): a computed average at rank 0, then Duration; CodaLab created plain columns
    # first, in the file's order, and ranked by the first: Duration
    old = bundle(tmp_path, [phase(1, "Dev", "2022-03-01 00:00:00")], COMPUTED_FIRST)
    proc = migrate_cli(old, "-o", tmp_path / "new.zip")
    line, = report_lines(proc.stdout, "leaderboard.columns.ave_score: the file shows")
    assert line == "leaderboard.columns.ave_score: the file shows the computed column ave_score first (rank 0), as " \
                   "if it ranked, but CodaLab created computed columns after the others and ranked by Duration; " \
                   "Duration is kept, as participants saw the old leaderboard sorted; to rank by ave_score " \
                   "instead: migrate --rank-by ave_score"
    board = migrated(tmp_path / "new.zip")
    assert [c["key"] for c in board["columns"]] == ["ave_score", "score_a", "score_b", "Duration"]
    assert board["columns"][board["primary_index"]]["key"] == "Duration"
    proc = migrate_cli(old, "-o", tmp_path / "intent.zip", "--rank-by", "ave_score")
    assert "primary_index" not in migrated(tmp_path / "intent.zip")
    assert "The migrated leaderboard ranks by ave_score, as asked (--rank-by)" in proc.stdout


GROUPED_SECOND = """\
leaderboard:
  leaderboards:
    RESULTS: &RESULTS
      label: Results
      rank: 1
  column_groups:
    EN: &EN
      label: English
  columns:
    macro:
      leaderboard: *RESULTS
      label: Macro F1
      rank: 1
    en_f1:
      leaderboard: *RESULTS
      column_group: *EN
      label: F1
      rank: 2
"""


def test_validate_names_the_column_codalab_ranks_by_a_grouped_one_first(tmp_path):
    from codalab_bundles import validate
    path = bundle(tmp_path, [phase(1, "Dev", "2024-01-01 00:00:00")], GROUPED_SECOND)
    _, findings = validate.validate(str(path), ("codalab",), replay=False)
    # the group's score set was created before the ungrouped column's: its column comes first in tree order
    assert [f.where for f in findings if f.message == "CodaLab ranks the leaderboard by this column"] == [
        "leaderboard.columns.en_f1"]
    proc = migrate_cli(path, "-o", tmp_path / "new.zip")
    assert "CodaLab ranked by en_f1, the first column it created (no column has selection_default), whichever " \
           "order it read the file in; the migrated leaderboard ranks by en_f1 too" in proc.stdout
