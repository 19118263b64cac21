"""results: a folder of runs of a small generic classification task, with hand-computed standings (the rules, ties,
teams left out), intervals and p-values against an independent numpy/scikit-learn oracle, clusters that never hold
a significantly different pair, and team names that cannot break the CSV, Markdown, LaTeX or HTML."""
import csv
import io
import json
import subprocess
import sys

import numpy as np
import pytest
from sklearn.metrics import f1_score

from codalab_bundles.results import significance, standings, tables
from codalab_bundles.results.runs import Run, RunsError, from_folder
from codalab_bundles.zips import pack
from conftest import ROOT
from items_oracle import bootstrap_indices, draws

GOLD = ["pos", "pos", "pos", "pos", "neg", "neg", "neg", "neg"]
RIGHT = list(GOLD)
ONE_WRONG = GOLD[:7] + ["pos"]          # the last neg called pos
ALL_POS = ["pos"] * 8
EVIL = '=cmd_&$%#{x}|<b>~^\\'              # a team name (a folder name) with every format's special characters
SAMPLES = 300


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "codalab_bundles"] + [str(a) for a in args], capture_output=True,
                          text=True, cwd=str(cwd or ROOT), timeout=900)


def macro_f1(gold, predicted):
    return f1_score(gold, predicted, average="macro", zero_division=0)


def submission(path, labels):
    text = "id,label\n" + "".join("%d,%s\n" % (i + 1, label) for i, label in enumerate(labels))
    path.write_bytes(pack.zip_entries([("predictions.csv", text.encode())]))


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    folder = tmp_path_factory.mktemp("results-task")
    made = cli("new", "senti", "--kind", "classification", "--dir", folder / "comp")
    assert made.returncode == 0, made.stderr
    gold = "id,text,label\n" + "".join("%d,text %d,%s\n" % (i + 1, i, label) for i, label in enumerate(GOLD))
    (folder / "comp" / "reference_data" / "senti" / "test" / "gold.csv").write_text(gold)
    built = cli("build", folder / "comp")
    assert built.returncode == 0, built.stdout + built.stderr
    return folder / "comp" / "dist" / "senti.zip"


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory):
    runs = tmp_path_factory.mktemp("runs")
    for team, labels in (("alpha", [RIGHT, ALL_POS]), ("beta", [ONE_WRONG]), ("gamma", [ONE_WRONG]),
                         (EVIL, [ALL_POS])):
        (runs / team).mkdir()
        for number, run in enumerate(labels, 1):
            submission(runs / team / ("run%d.zip" % number), run)
    (runs / "delta").mkdir()
    (runs / "delta" / "run1.zip").write_bytes(pack.zip_entries([("notes.txt", b"no predictions\n")]))
    return runs


@pytest.fixture(scope="module")
def made(bundle, runs_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    proc = cli("results", runs_dir, "--bundle", bundle, "--phase", 2, "--samples", SAMPLES, "--jobs", 2, "-o", out,
               "--json")
    assert proc.returncode == 0, proc.stderr
    return out, json.loads(proc.stdout)


def read_csv(path):
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


BETA = (8 / 9 + 6 / 7) / 2      # pos: tp 4, fp 1 -> 8/9; neg: tp 3, fn 1 -> 6/7
ALL_POS_F1 = (8 / 12 + 0) / 2   # pos: tp 4, fp 4 -> 2/3; neg never predicted -> 0


def test_each_teams_best_run_ranked_with_ties_and_the_team_that_could_not_be_scored(made):
    out, found = made
    assert [(r["rank"], r["team"], r["run"]) for r in found["rows"]] == [
        (1, "alpha", "alpha/run1"), (2, "beta", "beta/run1"), (2, "gamma", "gamma/run1"), (4, EVIL, EVIL + "/run1")]
    assert [r["scores"]["macro_f1"] for r in found["rows"]] == pytest.approx([1.0, BETA, BETA, ALL_POS_F1], abs=1e-12)
    assert [r["scores"]["accuracy"] for r in found["rows"]] == [1.0, 0.875, 0.875, 0.5]
    rows = read_csv(out / "results.csv")
    assert [(r["rank"], r["team"], r["runs"]) for r in rows] == [("1", "alpha", "2"), ("2", "beta", "1"),
                                                                 ("2", "gamma", "1"), ("4", "'" + EVIL, "1")]
    notes = (out / "results.md").read_text()
    assert "delta: none of its 1 run(s) could be scored" in notes
    runs = read_csv(out / "runs.csv")
    assert [(r["run"], r["counted"], r["status"]) for r in runs] == [  # by team name ("=" sorts first)
        ("'" + EVIL + "/run1", "yes", "Finished"), ("alpha/run1", "yes", "Finished"), ("alpha/run2", "no", "Finished"),
        ("beta/run1", "yes", "Finished"), ("delta/run1", "no", "Failed"), ("gamma/run1", "yes", "Finished")]


def oracle(gold, runs, samples, seed=12345, level=0.95):
    """Intervals and approximate-randomization p-values by numpy's draws and scikit-learn's metric."""
    n = len(gold)
    intervals = []
    for run in runs:
        values = [macro_f1([gold[i] for i in index], [run[i] for i in index])
                  for index in bootstrap_indices(seed, samples, n)]
        intervals.append(tuple(np.percentile(values, [50 * (1 - level), 50 * (1 + level)])))
    p_values = {}
    for i in range(len(runs)):
        for j in range(i + 1, len(runs)):
            a, b = runs[i], runs[j]
            observed = abs(macro_f1(gold, a) - macro_f1(gold, b))
            extreme = 0
            for row in draws(seed, samples, n):
                side_a = [y if s else x for x, y, s in zip(a, b, row < 0.5)]
                side_b = [x if s else y for x, y, s in zip(a, b, row < 0.5)]
                extreme += abs(macro_f1(gold, side_a) - macro_f1(gold, side_b)) >= observed
            p_values[(i, j)] = (1 + extreme) / (samples + 1.0)
    return intervals, p_values


def test_intervals_and_p_values_agree_with_numpy_and_clusters_hold_no_rejected_pair(made):
    out, found = made
    intervals, p_values = oracle(GOLD, [RIGHT, ONE_WRONG, ONE_WRONG, ALL_POS], SAMPLES)
    for row, (low, high) in zip(found["rows"], intervals):
        assert abs(row["interval"]["low"] - low) <= 1e-12 and abs(row["interval"]["high"] - high) <= 1e-12
    pairs = read_csv(out / "pairs.csv")
    teams = [r["team"] for r in found["rows"]]
    order = sorted(p_values, key=lambda pair: p_values[pair])
    holm, running = {}, 0.0
    for position, pair in enumerate(order):  # Holm, written out again
        running = max(running, min(1.0, (len(order) - position) * p_values[pair]))
        holm[pair] = running
    assert len(pairs) == 6
    for pair in pairs:
        i, j = teams.index(pair["team_a"].lstrip("'")), teams.index(pair["team_b"].lstrip("'"))
        assert float(pair["p"]) == p_values[(i, j)]
        assert float(pair["p_holm"]) == pytest.approx(holm[(i, j)], abs=1e-15)
        assert pair["significant"] == ("yes" if holm[(i, j)] < 0.05 else "no")
    clusters = [r["cluster"] for r in found["rows"]]
    for (i, j), p in holm.items():
        if clusters[i] == clusters[j]:
            assert p >= 0.05, (teams[i], teams[j], p)
    assert clusters[0] == 1 and clusters == sorted(clusters)


def test_the_method_and_signature_are_written_under_the_table(made):
    out, _ = made
    text = (out / "results.md").read_text()
    assert "Holm\\-corrected" not in text  # Markdown escapes only what would break it
    assert "Holm-corrected over all 6 pairs of teams, alpha 0.05" in text
    assert "(two-sided, %d rounds, seed 12345)" % SAMPLES in text
    assert "Signature: `generic-classification|version:0.4.0|gold_sha256:" in text  # a code span: exact
    assert "|paired:approximate-randomization,two-sided,correction:holm,pairs:6,alpha:0.05`" in text
    assert "Signature: generic-classification|version:0.4.0|" in (out / "results.html").read_text()


def test_a_team_name_cannot_break_any_format(made):
    out, _ = made
    tex = (out / "results.tex").read_text()
    assert r"=cmd\_\&\$\%\#\{x\}\textbar{}\textless{}b\textgreater{}\textasciitilde{}\textasciicircum{}" \
           r"\textbackslash{}" in tex
    md = (out / "results.md").read_text()
    assert r"=cmd\_\&$%\#\{x\}\|\<b\>\~^\\" in md
    html = (out / "results.html").read_text()
    assert "=cmd_&amp;$%#{x}|&lt;b&gt;~^\\" in html and "<b>" not in html
    assert read_csv(out / "results.csv")[3]["team"] == "'" + EVIL  # not a formula in a spreadsheet


def test_the_participants_variant_has_no_runs_or_audit(made):
    out, _ = made
    header = read_csv(out / "participants" / "results.csv")[0].keys()
    assert "run" not in header and "runs" not in header and "team" in header
    text = (out / "participants" / "results.md").read_text()
    assert "alpha/run1" not in text and "delta" not in text
    assert not (out / "participants" / "runs.csv").exists()


def test_the_same_inputs_give_the_same_bytes(bundle, runs_dir, made, tmp_path):
    out, _ = made
    again = cli("results", runs_dir, "--bundle", bundle, "--phase", 2, "--samples", SAMPLES, "-o", tmp_path)
    assert again.returncode == 0, again.stderr
    for name in ("results.csv", "results.md", "results.tex", "results.html", "results.svg", "results.png",
                 "pairs.csv", "runs.csv"):
        assert (tmp_path / name).read_bytes() == (out / name).read_bytes(), name


def test_the_last_run_rule_and_a_table_by_another_column(bundle, runs_dir, tmp_path):
    last = cli("results", runs_dir, "--bundle", bundle, "--phase", 2, "--rule", "last", "--no-significance",
               "-o", tmp_path / "last", "--json")
    assert last.returncode == 0, last.stderr
    rows = json.loads(last.stdout)["rows"]
    # alpha's last run is all "pos": it ties with the EVIL team's (listed first: "=" sorts first), below beta, gamma
    assert [(r["rank"], r["team"], r["run"]) for r in rows] == [
        (1, "beta", "beta/run1"), (1, "gamma", "gamma/run1"), (3, EVIL, EVIL + "/run1"), (3, "alpha", "alpha/run2")]
    by = cli("results", runs_dir, "--bundle", bundle, "--phase", 2, "--by", "accuracy", "--columns",
             "accuracy,macro_f1", "--no-significance", "-o", tmp_path / "by", "--json")
    assert by.returncode == 0, by.stderr
    assert [(r["rank"], r["team"]) for r in json.loads(by.stdout)["rows"]] == [(1, "alpha"), (2, "beta"),
                                                                                (2, "gamma"), (4, EVIL)]
    assert read_csv(tmp_path / "by" / "results.csv")[0].keys() >= {"accuracy", "macro_f1"}
    assert "weighted_f1" not in read_csv(tmp_path / "by" / "results.csv")[0]


def test_wrong_usage_is_one_line(bundle, runs_dir, tmp_path):
    proc = cli("results", runs_dir, "--bundle", bundle, "--by", "nope", "-o", tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("results: --by nope: the leaderboard has no such column (its keys: macro_f1, "
                                   "accuracy, weighted_f1)")
    proc = cli("results", runs_dir, "-o", tmp_path)
    assert proc.returncode == 2 and "a folder of runs needs --bundle" in proc.stderr


# --- the parts on their own --------------------------------------------------------------------------------------

def test_holm_by_hand():
    # sorted 0.01, 0.03, 0.04, 0.5 -> 4 * 0.01, 3 * 0.03, max(0.09, 2 * 0.04), max(0.09, 0.5)
    assert significance.holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert significance.holm([0.9, 0.8]) == [1.0, 1.0]  # 2 * 0.8 capped at 1, and never below it after


def test_clusters_start_anew_at_a_team_that_differs_from_any_member():
    rejected = {(0, 2), (1, 3)}
    assert significance.clusters(4, lambda a, b: (a, b) in rejected) == [1, 1, 2, 2]
    # team 2 differs from team 1 only (not from the head): it still opens a new cluster
    assert significance.clusters(3, lambda a, b: (a, b) == (1, 2)) == [1, 1, 2]
    assert significance.clusters(3, lambda a, b: False) == [1, 1, 1]


def test_rounds_are_raised_so_that_the_corrected_test_can_reject():
    assert significance.Settings().rounds_for(55) == 2200  # 2 * 55 / 0.05
    assert significance.Settings().rounds_for(3) == 1000
    assert significance.Settings(samples=500).rounds_for(55) == 500


def run(run_id, team, order, score, status="Finished", chosen=None):
    found = Run(run_id, team, order, "unused.zip", chosen=chosen)
    found.status, found.scores = status, ({"f1": score} if score is not None else {})
    return found


@pytest.mark.parametrize("rule, expected", [("best", "t/2"), ("last", "t/3"), ("chosen", "t/1")])
def test_which_run_counts(rule, expected):
    runs = [run("t/1", "t", 0, 0.5, chosen=True), run("t/2", "t", 1, 0.7), run("t/3", "t", 2, 0.6),
            run("t/4", "t", 3, None, status="Failed")]
    assert standings.counted(runs, rule, "f1", "desc").id == expected


def test_the_earlier_run_wins_a_tie_and_lower_is_better_for_asc():
    runs = [run("t/1", "t", 0, 0.30000000000000004), run("t/2", "t", 1, 0.3), run("t/3", "t", 2, 0.2)]
    assert standings.counted(runs, "best", "f1", "desc").id == "t/1"
    assert standings.counted(runs, "best", "f1", "asc").id == "t/3"


def test_ranks_share_only_scores_equal_to_ten_decimals():
    runs = [run("a/1", "a", 0, 0.5), run("b/1", "b", 0, 0.5 + 1e-12), run("c/1", "c", 0, 0.4999999999),
            run("d/1", "d", 0, 0.1)]
    assert [(r.rank, r.team) for r in standings.standings(runs, "f1", "desc", "best")] == [
        (1, "a"), (1, "b"), (3, "c"), (4, "d")]


def test_a_folder_of_runs(tmp_path):
    (tmp_path / "solo.zip").write_bytes(b"PK")
    (tmp_path / "team").mkdir()
    (tmp_path / "team" / "run10.zip").write_bytes(b"PK")
    (tmp_path / "team" / "run2").mkdir()
    (tmp_path / "team" / "run2" / "predictions.csv").write_text("id,label\n")
    found = from_folder(str(tmp_path), str(tmp_path))
    assert [(r.id, r.team, r.order) for r in found] == [("solo/solo", "solo", 0), ("team/run2", "team", 0),
                                                        ("team/run10", "team", 1)]
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunsError, match="empty: a team's folder holds its runs"):
        from_folder(str(tmp_path), str(tmp_path))


def test_escaping_by_format():
    assert tables.latex("50% of a_b & c") == r"50\% of a\_b \& c"
    assert tables.markdown("a|b*c") == r"a\|b\*c"
    assert tables.csv_cell("+1") == "'+1" and tables.csv_cell("x") == "x"
    assert tables.plain("a\nb\x00c\u2028d") == "a b c d"


def test_intervals_and_clusters_for_the_first_teams_only(bundle, runs_dir, tmp_path):
    proc = cli("results", runs_dir, "--bundle", bundle, "--phase", 2, "--samples", 50, "--significance-teams", 2,
               "-o", tmp_path, "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["rows"]
    assert [r["interval"] is not None for r in rows] == [True, True, False, False]
    assert [r["cluster"] for r in rows[2:]] == [None, None]
    assert len(read_csv(tmp_path / "pairs.csv")) == 1
    assert "Intervals and clusters for the first 2 teams only." in (tmp_path / "results.md").read_text()
    assert [r["cluster"] for r in read_csv(tmp_path / "results.csv")][2:] == ["", ""]
