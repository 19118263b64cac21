"""eHealth-KD 2019 per-sentence statistics (scoring_runtime.Items) of the ranking score, main_score (scenario 1):
hand-computed items, the score they give back on sample and real data, and bootstrap intervals and paired tests
against independent oracles (the program's main_score on resampled files; numpy on per-sentence counts)."""
import io
import math
import sys
import zipfile

import numpy as np
import pytest

import resampling
from conftest import ROOT, load_program, shared_path
from test_ehealth_kd_bundle import module
from test_ehealth_kd_metric import GOLD_A, GOLD_B, SENTENCE, SUB_A, SUB_B

TASK = "ehealth-kd"
REFERENCE = ROOT / "reference_data" / TASK
FOLDER = "scenario1-main/"

sys.path.insert(0, str(ROOT / "scoring_programs" / TASK))
from ehealth_kd_format import load_scenario  # noqa: E402
from ehealth_kd_layout import find_scenarios  # noqa: E402
from ehealth_kd_matching import match_sentence  # noqa: E402
from ehealth_kd_metric import keyphrase_counts, relation_counts  # noqa: E402


@pytest.fixture(scope="module")
def program():
    return load_program(TASK)


def write(folder, files):
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return str(folder)


def score(program, tmp_path, ref, res):
    """score(ref, res) in-process, each side written to a fresh folder."""
    run = tmp_path / ("run%d" % len(list(tmp_path.glob("run*"))))
    return program.score(write(run / "ref", ref), write(run / "res", res))


def keyphrase_line(kid, offset, text, phrase, label, occurrence=0):
    """A key phrase line for ``phrase`` (one span) in the sentence ``text`` starting at ``offset`` in the file."""
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(phrase, start + 1)
    return "%d\t%d %d\t%s\t%s\n" % (kid, offset + start, offset + start + len(phrase), label, phrase)


# ---------------------------------------------------------------------------------------------------------------
# Hand-made: four annotated sentences and one that is not (line 2), each outcome computed by hand


LINES = [SENTENCE,                                         # 1: the metric card's worked example
         "Texto sin anotar para el ejemplo.",              # 2: not annotated, not an item
         "El asma afecta los pulmones.",                   # 3: all right
         "La diabetes causa sed excesiva y cansancio.",    # 4: nothing submitted
         "El ejercicio reduce la presión."]                # 5: a wrong label, a spurious phrase, nothing correct
OFFSETS = [sum(len(line) + 1 for line in LINES[:i]) for i in range(len(LINES))]


def _shift(a_text, by, first_id):
    lines = []
    for line in a_text.splitlines():
        kid, spans, rest = line.split("\t", 2)
        spans = ";".join("%d %d" % (int(s) + by, int(e) + by) for s, e in (p.split() for p in spans.split(";")))
        lines.append("%d\t%s\t%s\n" % (int(kid) + first_id - 1, spans, rest))
    return "".join(lines)


def _relations(text, first_id):
    return "".join("%s\t%d\t%d\n" % (label, int(a) + first_id - 1, int(b) + first_id - 1)
                   for label, a, b in (line.split("\t") for line in text.splitlines()))


def hand_gold():
    o3, o4, o5 = OFFSETS[2:]
    a = (_shift(GOLD_A, 0, 1)
         + keyphrase_line(7, o3, LINES[2], "asma", "Concept") + keyphrase_line(8, o3, LINES[2], "afecta", "Action")
         + keyphrase_line(9, o3, LINES[2], "pulmones", "Concept")
         + keyphrase_line(10, o4, LINES[3], "diabetes", "Concept") + keyphrase_line(11, o4, LINES[3], "causa", "Action")
         + keyphrase_line(12, o4, LINES[3], "sed excesiva", "Concept")
         + keyphrase_line(13, o4, LINES[3], "cansancio", "Concept")
         + keyphrase_line(14, o5, LINES[4], "ejercicio", "Concept") + keyphrase_line(15, o5, LINES[4], "reduce", "Action")
         + keyphrase_line(16, o5, LINES[4], "presión", "Concept"))
    b = (_relations(GOLD_B, 1) + "subject\t8\t7\ntarget\t8\t9\n"
         + "subject\t11\t10\ntarget\t11\t12\ntarget\t11\t13\n" + "subject\t15\t14\n")
    return {FOLDER + "input_scenario1.txt": "".join(line + "\n" for line in LINES),
            FOLDER + "output_a_scenario1.txt": a, FOLDER + "output_b_scenario1.txt": b}


def hand_submission():
    o2, o3, o5 = OFFSETS[1], OFFSETS[2], OFFSETS[4]
    a = (_shift(SUB_A, 0, 101)
         + keyphrase_line(1, o2, LINES[1], "Texto", "Concept")    # in an unannotated sentence: costs nothing
         + keyphrase_line(2, o3, LINES[2], "asma", "Concept") + keyphrase_line(3, o3, LINES[2], "afecta", "Action")
         + keyphrase_line(4, o3, LINES[2], "pulmones", "Concept")
         + keyphrase_line(5, o5, LINES[4], "ejercicio", "Action") + keyphrase_line(6, o5, LINES[4], "la", "Concept"))
    b = _relations(SUB_B, 101) + "subject\t3\t2\ntarget\t3\t4\n" + "target\t5\t6\n"
    return {FOLDER + "output_scenario1.txt": "".join(line + "\n" for line in LINES),
            FOLDER + "output_a_scenario1.txt": a, FOLDER + "output_b_scenario1.txt": b}


def stats(c, i, p, m, s):
    return {"correct": c, "incorrect": i, "partial": p, "missing": m, "spurious": s}


def test_hand_made_items(program, tmp_path):
    result = score(program, tmp_path, hand_gold(), hand_submission())
    items = result.items
    assert (items.unit, items.key) == ("sentence", "main_score")
    assert list(zip(items.ids, items.stats, items.verdicts, items.details)) == [
        ("1", stats(5, 1, 1, 4, 3), "partly",
         "1 key phrase with the wrong label, 1 partial, 1 missing ('fiebre'), 1 spurious; "
         "3 relations missing, 2 spurious"),
        ("3", stats(5, 0, 0, 0, 0), "right", ""),
        ("4", stats(0, 0, 0, 7, 0), "wrong",
         "4 key phrases missing ('diabetes', 'causa', 'sed excesiva', ...); 3 relations missing"),
        ("5", stats(0, 1, 0, 3, 2), "wrong",
         "1 key phrase with the wrong label, 2 missing ('reduce', 'presión'), 1 spurious; "
         "1 relation missing, 1 spurious"),
    ]
    # C=10 I=2 P=1 M=14 S=5: precision 10.5/18, recall 10.5/27, F1 = 21/45.
    assert items.totals() == stats(10.0, 2.0, 1.0, 14.0, 5.0)
    main_score = dict(result.scores)["main_score"]
    assert main_score == pytest.approx(21 / 45.0, abs=1e-15)
    assert items.score() == main_score


def test_a_partial_match_alone_is_partly_right(program, tmp_path):
    # Half a point and nothing else: partly, not wrong (the verdict follows the credit, not only C).
    gold = {FOLDER + "input_scenario1.txt": LINES[3] + "\n",
            FOLDER + "output_a_scenario1.txt": keyphrase_line(1, 0, LINES[3], "sed excesiva", "Concept"),
            FOLDER + "output_b_scenario1.txt": ""}
    res = {FOLDER + "output_scenario1.txt": LINES[3] + "\n",
           FOLDER + "output_a_scenario1.txt": keyphrase_line(1, 0, LINES[3], "sed", "Action"),
           FOLDER + "output_b_scenario1.txt": ""}
    result = score(program, tmp_path, gold, res)
    assert (result.items.stats, result.items.verdicts, result.items.details) == (
        [stats(0, 0, 1, 0, 0)], ["partly"], ["1 key phrase partial"])
    assert result.items.score() == dict(result.scores)["main_score"] == 0.5


def scenario2(files):
    return dict((name.replace("scenario1-main", "scenario2-taskA").replace("scenario1", "scenario2"), text)
                for name, text in files.items())


def test_no_items_without_scenario_1(program, tmp_path):
    gold, submission = hand_gold(), hand_submission()
    # Scenario 1 not submitted (scenario 2 is): main_score is 0 and there is nothing per sentence.
    result = score(program, tmp_path, dict(gold, **scenario2(gold)), scenario2(submission))
    assert dict(result.scores)["main_score"] == 0.0 and dict(result.scores)["a_f1"] > 0
    assert result.items is None
    # Scenario 1 not in the phase.
    result = score(program, tmp_path, scenario2(gold), dict(submission, **scenario2(submission)))
    assert result.items is None
    # Both: items of scenario 1 only.
    result = score(program, tmp_path, dict(gold, **scenario2(gold)), dict(submission, **scenario2(submission)))
    assert result.items.ids == ["1", "3", "4", "5"] and result.items.score() == dict(result.scores)["main_score"]


# ---------------------------------------------------------------------------------------------------------------
# The ranking score back from the items: sample data with the starting kit's baseline, and real runs


@pytest.fixture(scope="module")
def baseline():
    return module(ROOT / "bundles" / TASK / "kit" / "baseline.py", "ehealth_kd_baseline_for_items")


def baseline_run(baseline, split, out_dir, trained_on=()):
    lexicon = baseline.built_in_lexicon()
    lexicon.update(baseline.train_lexicon([str(REFERENCE / s / FOLDER) for s in trained_on]))
    baseline.run(str(REFERENCE / split), str(out_dir), lexicon)
    return out_dir


def counts_note(stdout):
    line = [line for line in stdout.splitlines() if line.startswith("Scenario 1: ")][0]
    return dict((kind, float(line.split(" %s=" % letter)[1].split()[0].rstrip(";")))
                for kind, letter in zip(("correct", "incorrect", "partial", "missing", "spurious"), "CIPMS"))


@pytest.mark.parametrize("split", ["trial", "development", "test"])
def test_items_give_the_platform_score_on_sample_data(program, tmp_path, score_submission, baseline, split):
    submission = baseline_run(baseline, split, tmp_path / "baseline")
    run = score_submission(TASK, REFERENCE / split, submission)
    assert run.returncode == 0, run.stderr
    items = program.score(str(REFERENCE / split), str(submission)).items
    assert 0 < run.scores["main_score"] < 1
    assert items.score() == run.scores["main_score"]
    assert items.totals() == counts_note(run.stdout)
    assert items.ids == [str(index + 1) for index in parsed(REFERENCE / split).annotated()]
    assert set(items.verdicts) <= {"right", "partly", "wrong"} and "partly" in items.verdicts
    # The gold against itself: every sentence right.
    perfect = program.score(str(REFERENCE / split), str(REFERENCE / split)).items
    assert set(perfect.verdicts) == {"right"} and set(perfect.details) == {""} and perfect.score() == 1.0


def extracted(tmp_path, *parts):
    folder = tmp_path / parts[-1]
    with zipfile.ZipFile(str(shared_path("ehealth-kd-2019", "published-submissions", *parts))) as archive:
        archive.extractall(str(folder))
    return folder


RUNS = [("baseline_test.zip",), ("participant-runs", "lsi2_uned_574805.zip"), ("participant-runs", "talp_576639.zip"),
        ("participant-runs", "abravo_576683.zip"), ("participant-runs", "vsp_576661.zip")]


@pytest.mark.parametrize("parts", RUNS)
def test_items_give_the_platform_score_on_real_runs(program, tmp_path, score_submission, parts):
    testing = shared_path("ehealth-kd-2019", "testing")
    folder = extracted(tmp_path, *parts)
    run = score_submission(TASK, testing, folder)
    assert run.returncode == 0, run.stderr
    items = program.score(str(testing), str(folder)).items
    assert len(items) == 100
    assert items.score() == run.scores["main_score"]
    assert items.totals() == counts_note(run.stdout)
    if parts == ("baseline_test.zip",):
        # The published baseline: C=425 I=32 P=42 M=714 S=358, main_score 0.4309.
        assert items.totals() == stats(425.0, 32.0, 42.0, 714.0, 358.0)
        assert round(items.score(), 4) == 0.4309


# ---------------------------------------------------------------------------------------------------------------
# Intervals and paired tests against oracles that do not go through Items or finish


def draws(seed, rounds, n):
    """resampling.py's documented draws, with numpy."""
    return np.random.RandomState([seed]).random_sample((rounds, n))


def parsed(folder):
    files = find_scenarios(str(folder), ValueError, "folder")[1]
    handles = [io.open(files.paths[kind], encoding="utf-8") for kind in ("sentences", "a", "b")]
    try:
        return load_scenario(handles[0], handles[1], handles[2], "a", "b")
    finally:
        for handle in handles:
            handle.close()


def scenario1_files(sentences, sentence_file):
    """The three files of scenario 1 holding these sentences, one per line, with their key phrases (spans as
    written, joined by ';') and relations in their order."""
    texts, a_lines, b_lines = [], [], []
    offset, next_id = 0, 1
    for sentence in sentences:
        ids = {}
        for keyphrase in sentence.keyphrases:
            assert keyphrase.spans, "an empty key phrase cannot be written back"
            ids[id(keyphrase)] = next_id
            spans = ";".join("%d %d" % (offset + start, offset + end) for start, end in keyphrase.spans)
            a_lines.append("%d\t%s\t%s\n" % (next_id, spans, keyphrase.label))
            next_id += 1
        for relation in sentence.relations:
            b_lines.append("%s\t%d\t%d\n" % (relation.label, ids[id(relation.source)], ids[id(relation.target)]))
        texts.append(sentence.text + "\n")
        offset += len(sentence.text) + 1
    return {FOLDER + sentence_file: "".join(texts), FOLDER + "output_a_scenario1.txt": "".join(a_lines),
            FOLDER + "output_b_scenario1.txt": "".join(b_lines)}


class ResampledScorer(object):
    """main_score of the program on files that hold the drawn sentences of the gold and of each run, in the drawn
    order (a sentence drawn twice is written twice): the official metric on the resampled data."""

    def __init__(self, program, folder, gold, runs):
        self.program, self.folder = program, folder
        self.indices = gold.annotated()
        self.gold = [gold.sentence(i) for i in self.indices]
        self.runs = [[run.sentence(i) for i in self.indices] for run in runs]
        self.cache = {}

    def __call__(self, positions, chosen_runs):
        """``positions``: the items drawn; ``chosen_runs``: for each, the run whose sentence is submitted."""
        key = (tuple(positions), tuple(chosen_runs))
        if key not in self.cache:
            ref = scenario1_files([self.gold[p] for p in positions], "input_scenario1.txt")
            res = scenario1_files([self.runs[r][p] for p, r in zip(positions, chosen_runs)], "output_scenario1.txt")
            result = self.program.score(write(self.folder / "ref", ref), write(self.folder / "res", res))
            self.cache[key] = dict(result.scores)["main_score"]
        return self.cache[key]


def test_resamples_match_the_program_on_resampled_files(program, tmp_path, baseline):
    first = baseline_run(baseline, "test", tmp_path / "a")
    second = baseline_run(baseline, "test", tmp_path / "b", trained_on=("trial", "development"))
    items_a = program.score(str(REFERENCE / "test"), str(first)).items
    items_b = program.score(str(REFERENCE / "test"), str(second)).items
    scorer = ResampledScorer(program, tmp_path / "resampled", parsed(REFERENCE / "test"),
                             [parsed(first), parsed(second)])
    n, samples, seed = len(items_a), 200, 11
    everything = list(range(n))
    # Written back as they were read, the sentences score as the original files do.
    assert scorer(everything, [0] * n) == items_a.score() and scorer(everything, [1] * n) == items_b.score()
    observed = items_a.score() - items_b.score()
    assert observed < 0  # the trained word list finds more

    idx = (draws(seed, samples, n) * n).astype(int)
    values_a = np.array([scorer(row, [0] * n) for row in idx])
    values_b = np.array([scorer(row, [1] * n) for row in idx])
    interval = resampling.bootstrap(items_a, samples=samples, seed=seed)
    low, high = np.percentile(values_a, [2.5, 97.5])
    assert interval.low == pytest.approx(low, abs=1e-12) and interval.high == pytest.approx(high, abs=1e-12)
    assert low < items_a.score() < high

    comparison = resampling.paired(items_a, items_b, samples=samples, seed=seed)
    deltas = values_a - values_b
    low, high = np.percentile(deltas, [2.5, 97.5])
    assert comparison.delta == observed
    assert comparison.low == pytest.approx(low, abs=1e-12) and comparison.high == pytest.approx(high, abs=1e-12)
    centre = math.fsum(deltas) / samples
    assert comparison.p_bootstrap == (1 + np.sum(np.abs(deltas - centre) >= abs(observed))) / (samples + 1.0)

    swaps = draws(seed, samples, n) < 0.5
    randomized = np.array([scorer(everything, [int(s) for s in swap]) - scorer(everything, [1 - int(s) for s in swap])
                           for swap in swaps])
    assert comparison.p_randomization == (1 + np.sum(np.abs(randomized) >= abs(observed))) / (samples + 1.0)


def official_f1(counts):
    """main_score from C, I, P, M, S columns summed over axis -1's rows, with the published formulas (numpy)."""
    c, i, p, m, s = np.moveaxis(counts, -1, 0).astype(float)
    hits = c + p / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(c + p + i + s > 0, hits / (c + p + i + s), 0.0)
        recall = np.where(c + p + i + m > 0, hits / (c + p + i + m), 0.0)
        return np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)


def sentence_counts(gold, run):
    """C, I, P, M, S of key phrases and relations together, per annotated sentence, from the matching alone."""
    rows = []
    for index in gold.annotated():
        match = match_sentence(gold.sentence(index), run.sentence(index))
        rows.append(np.add(keyphrase_counts(match).as_tuple(), relation_counts(match).as_tuple()))
    return np.array(rows)


def test_resamples_match_numpy_on_real_runs(program, tmp_path):
    testing = shared_path("ehealth-kd-2019", "testing")
    gold = parsed(testing)
    runs = [extracted(tmp_path, "participant-runs", name) for name in ("talp_576639.zip", "vsp_576661.zip")]
    items = [program.score(str(testing), str(folder)).items for folder in runs]
    counts = [sentence_counts(gold, parsed(folder)) for folder in runs]
    n, samples, seed = 100, 200, 31
    assert [official_f1(c.sum(axis=0)) for c in counts] == [it.score() for it in items]

    idx = (draws(seed, samples, n) * n).astype(int)
    values = [official_f1(c[idx].sum(axis=1)) for c in counts]
    interval = resampling.bootstrap(items[0], samples=samples, seed=seed)
    low, high = np.percentile(values[0], [2.5, 97.5])
    assert interval.low == pytest.approx(low, abs=1e-12) and interval.high == pytest.approx(high, abs=1e-12)

    comparison = resampling.paired(items[0], items[1], samples=samples, seed=seed)
    observed = items[0].score() - items[1].score()
    low, high = np.percentile(values[0] - values[1], [2.5, 97.5])
    assert comparison.low == pytest.approx(low, abs=1e-12) and comparison.high == pytest.approx(high, abs=1e-12)
    swap = (draws(seed, samples, n) < 0.5)[:, :, None]
    side_a = np.where(swap, counts[1], counts[0]).sum(axis=1)
    side_b = np.where(swap, counts[0], counts[1]).sum(axis=1)
    randomized = official_f1(side_a) - official_f1(side_b)
    assert comparison.p_randomization == (1 + np.sum(np.abs(randomized) >= abs(observed))) / (samples + 1.0)
