"""bench/huge_official.py and bench/huge_runs.py's table against the official scorers: what each official run is
reported as (scored, refused, crashed, out of memory, out of time, not found), which scorer each run gets, and a
whole repository exported at a tag (bench/official.py). No timing is asserted."""
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import huge_official  # noqa: E402
import official  # noqa: E402


def _official(tmp_path, script, memory_mb=1024, timeout=60):
    """Runs ``script`` (Python) as an official scorer that takes INPUT OUTPUT: (scored, seconds, cpu, peak, said)."""
    path = tmp_path / "scorer.py"
    path.write_text(script)
    work = tmp_path / ("work%d" % len(list(tmp_path.glob("work*"))))
    work.mkdir()

    def prepare(tools, input_dir, work_dir):
        return [sys.executable, str(path), input_dir, work_dir]
    return huge_official.run(prepare, None, str(tmp_path), str(work), memory_mb, timeout)


def test_a_scorer_that_writes_scores_is_reported_with_its_figures(tmp_path):
    scored, seconds, cpu, peak, said = _official(tmp_path, "import os, sys\n"
                                            "open(os.path.join(sys.argv[2], 'scores.txt'), 'w').write('f1:0.5\\n"
                                            "acc:0.25\\n')\n")
    assert (scored, said) == (True, "scored: f1:0.5 acc:0.25")
    assert seconds > 0 and 0 < cpu and peak > 1


def test_a_scorer_that_prints_its_figures_is_reported_with_them(tmp_path):
    assert _official(tmp_path, "print('ndcg_cut_10 all 0.3155')\n")[4] == "scored: ndcg_cut_10 all 0.3155"


def test_a_refusal_a_crash_and_a_kill_are_told_apart(tmp_path):
    assert _official(tmp_path, "import sys\nsys.exit('different number of lines')\n")[4] == \
        "cannot run: refused (exit 1): different number of lines"
    assert _official(tmp_path, "raise ValueError('bad literal')\n")[4] == \
        "cannot run: crashed (exit 1): ValueError: bad literal"


def test_the_address_space_cap_stops_a_scorer_that_needs_more(tmp_path):
    scored, seconds, cpu, peak, said = _official(tmp_path, "x = bytearray(600 * 1024 * 1024)\nprint('done')\n",
                                            memory_mb=300)
    assert not scored
    assert said.startswith("cannot run: out of memory (address space capped at 300 MB): MemoryError")
    assert peak < 300


def test_the_cpu_time_cap_stops_a_scorer_that_runs_too_long(tmp_path, monkeypatch):
    monkeypatch.setattr(huge_official, "WALL_FACTOR", 60)  # a busy machine may give it a fraction of a core
    scored, seconds, cpu, peak, said = _official(tmp_path, "while True:\n    pass\n", timeout=1)
    assert (scored, said) == (False, "cannot run: still running after 1 s of CPU time (stopped)")
    assert 0.8 <= cpu < 3  # the kernel checks the limit at its clock ticks


def test_the_wall_time_cap_stops_a_scorer_that_waits(tmp_path):
    scored, seconds, cpu, peak, said = _official(tmp_path, "import time\ntime.sleep(30)\n", timeout=1)
    assert (scored, said) == (False, "cannot run: still running after 4 s of wall time (stopped)")
    assert 4 <= seconds < 20


def test_each_run_gets_its_task_or_kinds_scorers():
    names = lambda shape: [name for name, _ in huge_official.scorers(shape)]  # noqa: E731
    assert names("toxic-spans load-mix huge (Finished)") == ["semeval2021.py"]
    assert names("text unknown ids (JSON)") == ["SQuAD evaluate-v2.0.py"]
    assert names("text valid huge") == ["SQuAD evaluate-v2.0.py", "sacreBLEU (BLEU)"]
    assert names("ranking valid huge query") == ["trec_eval 9.0.8 -c", "trec_eval 10.0 -c"]
    assert names("a run of no known task") == []


def test_a_scorer_not_found_is_not_run_and_says_where_it_was_looked_for(tmp_path):
    tools = huge_official.Tools([str(tmp_path)], str(tmp_path / "scratch"))
    prepare = dict(huge_official.scorers("toxic-spans unknown ids"))["semeval2021.py"]
    (tmp_path / "work").mkdir()
    assert huge_official.run(prepare, tools, str(tmp_path), str(tmp_path / "work"), 1024, 60) == (
        False, None, None, None, "not run: ipavlopoulos/toxic_spans (SemEval2021/evaluation/semeval2021.py) not found "
        "under %s" % tmp_path)
    conlleval = dict(huge_official.scorers("sequence bad token"))["conlleval.pl"]
    assert huge_official.run(conlleval, tools, str(tmp_path), str(tmp_path / "work"), 1024, 60)[4].startswith(
        "cannot run: conlleval.pl reads one file with each token's gold and predicted tags")


def _git(*args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org"] + list(args), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_a_mirror_is_exported_whole_at_a_tag(tmp_path):
    work = tmp_path / "src"
    work.mkdir()
    _git("init", "-q", str(work))
    (work / "tool.c").write_text("old\n")
    (work / "sub").mkdir()
    (work / "sub" / "x.h").write_text("h\n")
    _git("-C", str(work), "add", ".")
    _git("-C", str(work), "commit", "-qm", "one")
    _git("-C", str(work), "tag", "v1")
    (work / "tool.c").write_text("new\n")
    _git("-C", str(work), "commit", "-qam", "two")
    # the layout of a fetched mirror: owner+name/repo/.git, a git directory without a work tree
    mirror = tmp_path / "mirrors" / "someone+tool" / "repo"
    mirror.mkdir(parents=True)
    _git("clone", "-q", "--bare", str(work), str(mirror / ".git"))
    roots = [str(tmp_path / "mirrors")]
    old = official.export(roots, "someone/tool", str(tmp_path / "old"), "tool.c", "v1")
    assert (tmp_path / "old" / "tool.c").read_text() == "old\n" and old == str(tmp_path / "old")
    assert (tmp_path / "old" / "sub" / "x.h").read_text() == "h\n"
    official.export(roots, "someone/tool", str(tmp_path / "new"), "tool.c")
    assert (tmp_path / "new" / "tool.c").read_text() == "new\n"
    assert official.export(roots, "someone/tool", str(tmp_path / "none"), "tool.c", "v9") is None
    assert official.extract(roots, "someone/tool", ["tool.c"], str(tmp_path / "one")) == str(tmp_path / "one")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the bench reads /proc")
def test_huge_runs_puts_the_official_scorer_beside_ours(tmp_path):
    """A stand-in for the organizers' toxic-spans scorer (found where a mirror would be) that reports the number of
    lines it read: the second table has its row, on the same 1 MB file as ours."""
    checkout = tmp_path / "mirrors" / "ipavlopoulos+toxic_spans" / "SemEval2021" / "evaluation"
    checkout.mkdir(parents=True)
    (checkout / "semeval2021.py").write_text(
        "import os, sys\n"
        "lines = open(os.path.join(sys.argv[1], 'res', 'spans-pred.txt')).read().count('\\n')\n"
        "gold = open(os.path.join(sys.argv[1], 'ref', 'spans-gold.txt')).read().count('\\n')\n"
        "open(os.path.join(sys.argv[2], 'scores.txt'), 'w').write('lines:%d gold:%d\\n' % (lines, gold))\n")
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "huge_runs.py"), "--mb", "1", "--only",
                           "toxic-spans", "--official", str(tmp_path / "mirrors")],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split(" | ") for line in proc.stdout.splitlines() if line.startswith("| toxic-spans unknown ids")]
    assert len(rows) == 2
    ours, theirs = rows
    assert ours[2] == "1"  # refused
    assert theirs[1] == "1" and theirs[5] == "semeval2021.py"
    # the run: the sample's run (a line per gold post), then "1000000<TAB>[1, 2, ..., 10]" lines of 40 bytes, 10,000
    # at a time until 1 MB: 30,000 of them
    lines, gold = [int(part.split(":")[1]) for part in theirs[10].rstrip(" |").split(": ", 1)[1].split()]
    assert lines - gold == 30000 and 0 < gold < 200


def test_no_official_leaves_the_second_table_out(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "huge_runs.py"), "--mb", "1", "--only",
                           "cheers", "--no-official"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "official scorer" not in proc.stdout
    assert proc.stdout.count("| cheers one 200 MB line |") == 1
