"""Every run scored locally by the competition's own program, as Codabench's compute worker runs it, in a pool of
processes; and the audit: where the site's stored score differs from the local one.

Codabench stores scores as decimals with 10 places, so a stored score and a local one agree when they are equal
rounded to 10 decimals.
"""
from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from typing import List, Optional, Tuple

from ..offline import rescore
from .runs import Run

STORED_DECIMALS = 10


def _score(job: Tuple[str, int, str, list]):
    return rescore.score_submission(*job)  # in another process: a module-level function, picklable arguments


def score_runs(bundle_path: str, phase: int, runs: List[Run], columns, jobs: int = 1,
               progress_stream=None) -> None:
    """Fill each run's status, error and scores (computed leaderboard columns included, as the site fills them), each
    run scored on its ``tracks`` (a phase of several tasks: the tasks it was made to)."""
    computed = [c for c in columns if c.computation in rescore.COMPUTATIONS and c.fields]
    progress = rescore.Progress(len(runs), progress_stream) if progress_stream and runs else None
    jobs_list = [(bundle_path, phase, run.path, computed, run.tracks) for run in runs]
    pool = ProcessPoolExecutor(max_workers=jobs) if jobs > 1 else None
    try:
        for run, (status, error, scores) in zip(runs, pool.map(_score, jobs_list) if pool else map(_score, jobs_list)):
            run.status, run.error, run.scores = status, error, scores
            if progress:
                progress.step(run.id)
    finally:
        if pool:
            pool.shutdown()


def same_stored(a: float, b: float) -> bool:
    return round(a, STORED_DECIMALS) == round(b, STORED_DECIMALS)


def audit(runs: List[Run], columns, only_stored: bool = False) -> List[str]:
    """Lines naming each run whose site-stored score (or status) differs from the local one; ``only_stored``: the
    runs were scored as another phase scores them (a private figure), so a score the site never stored is no
    difference."""
    lines = []
    keys = [c.key for c in columns if c.computation != rescore.AVG_RANK]  # computed ones as the site computes them
    for run in runs:
        if run.stored is None:
            continue
        if run.site_status and run.site_status != run.status:
            lines.append("submission %s (%s): the site says %s, the local run %s%s" % (
                run.id, run.team, run.site_status, run.status, " (%s)" % run.error if run.error else ""))
            continue
        for key in keys:
            site, local = run.stored.get(key), run.scores.get(key)
            if site is None and (local is None or only_stored):
                continue
            if site is None or local is None or not same_stored(site, local):
                lines.append("submission %s (%s): %s stored by the site %s, scored here %s" % (
                    run.id, run.team, key, _shown(site), _shown(local)))
    return lines


def _shown(value: Optional[float]) -> str:
    return "nothing" if value is None else "%.10f" % value


