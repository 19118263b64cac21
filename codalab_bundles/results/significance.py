"""How sure the table is: a bootstrap interval of the ranking score per team, a paired test between every two
teams, and clusters of teams not significantly different.

The figures come from the competition's own scoring program (its two-file mode, codalab-bundles 0.4.0 or later:
``--ci`` and ``--compare``, resampling the gold's items as the metric's unit, scoring_programs/common/resampling.py),
so they are computed by the same formula as the leaderboard's score. The paired test is approximate randomization
(two-sided). Its p-values are corrected for the number of comparisons with Holm's step-down method over every
pair of teams: sorted p_(1) <= ... <= p_(m), adjusted p_(i) = max over j <= i of min(1, (m - j + 1) p_(j)); a pair
differs significantly when its adjusted p is below alpha = 1 - level.

Clusters, top down: the best team opens the first cluster; each next team joins the current cluster when no team
already in it differs significantly from it, and opens a new cluster otherwise. So each team is not significantly
worse than the best of its cluster, and no cluster holds two teams whose corrected test rejects equality.

With R randomization rounds the smallest p is 1 / (R + 1); Holm over m pairs can reject only p < alpha / m, so
when the rounds are not given they are raised to at least 2 m / alpha (and never fewer than 1000).
"""
from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List, Tuple

from .. import replay
from ..offline import rescore


class SignificanceError(Exception):
    pass


class Settings(object):
    def __init__(self, samples=None, seed=12345, level=0.95):
        self.samples, self.seed, self.level = samples, seed, level

    @property
    def alpha(self):
        return 1 - self.level

    def rounds_for(self, pairs: int) -> int:
        if self.samples is not None:
            return self.samples
        return max(1000, int(math.ceil(2.0 * max(pairs, 1) / self.alpha)))


def holm(p_values: List[float]) -> List[float]:
    """Holm-adjusted p-values, in the order given."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for position, index in enumerate(order):
        running = max(running, min(1.0, (m - position) * p_values[index]))
        adjusted[index] = running
    return adjusted


def clusters(count: int, rejected) -> List[int]:
    """Cluster numbers (1-based) of ``count`` teams in rank order; ``rejected(i, j)`` says whether teams i and j
    differ significantly."""
    numbers, members, current = [], [], 0
    for team in range(count):
        if members and not any(rejected(other, team) for other in members):
            members.append(team)
        else:
            current, members = current + 1, [team]
        numbers.append(current)
    return numbers


class Analysis(object):
    """Everything computed: ``intervals`` per row, ``pairs`` {(i, j): {"p", "p_holm", "rejected"}} for i < j,
    ``clusters`` per row, the ``signature`` (program, version, gold_sha256) and the settings' text."""

    def __init__(self, key, intervals, pairs, cluster_numbers, signature, signature_text, settings, rounds):
        self.key, self.intervals, self.pairs, self.clusters = key, intervals, pairs, cluster_numbers
        self.signature, self.signature_text, self.settings, self.rounds = signature, signature_text, settings, rounds


def analyse(bundle_path: str, phase: int, rows, key: str, settings: Settings, workdir: str, jobs: int = 1,
            progress=None) -> Analysis:
    """Intervals, corrected pairwise tests and clusters of ``rows`` (standings.Row, in rank order) on ``key``,
    which must be the score the program resamples."""
    bundle = replay.Bundle(bundle_path)
    program = rescore.two_file_program(bundle, phase, workdir)
    ref_dir = rescore.reference_dir(bundle, phase, workdir)
    pairs_wanted = [(i, j) for i in range(len(rows)) for j in range(i + 1, len(rows))]
    rounds = settings.rounds_for(len(pairs_wanted))
    options = ["--samples", str(rounds), "--seed", str(settings.seed), "--level", repr(settings.level), "--json"]

    def interval(row):
        report = rescore.program_report(program, ref_dir, ["--pred", row.run.path, "--ci"] + options)
        if report["interval"]["key"] != key:
            raise SignificanceError("the program's intervals are of %s, not of %s: intervals and clusters are "
                                    "only for %s" % (report["interval"]["key"], key, report["interval"]["key"]))
        return report

    def versus(pair):
        i, j = pair
        report = rescore.program_report(program, ref_dir, ["--pred", rows[i].run.path, "--compare",
                                                            rows[j].run.path] + options)
        if progress:
            progress()
        return report["comparison"]

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        reports = list(pool.map(interval, rows))
        comparisons = list(pool.map(versus, pairs_wanted))
    p_values = [c["p_approximate_randomization"] for c in comparisons]
    adjusted = holm(p_values)
    pairs: Dict[Tuple[int, int], dict] = {}
    for pair, comparison, p_holm in zip(pairs_wanted, comparisons, adjusted):
        pairs[pair] = {"p": comparison["p_approximate_randomization"], "p_holm": p_holm,
                       "rejected": p_holm < settings.alpha, "delta": comparison["delta"]}
    numbers = clusters(len(rows), lambda a, b: pairs[(min(a, b), max(a, b))]["rejected"])
    intervals = [r["interval"] for r in reports]
    first = reports[0] if reports else {"signature": {}, "signature_text": ""}
    method = "paired:approximate-randomization,two-sided,correction:holm,pairs:%d,alpha:%s" % (
        len(pairs_wanted), ("%.6f" % settings.alpha).rstrip("0").rstrip("."))
    text = "%s|%s" % (first.get("signature_text", ""), method) if reports else ""
    return Analysis(key, intervals, pairs, numbers, first.get("signature", {}), text, settings, rounds)
