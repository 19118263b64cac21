"""Rescoring past submissions through a bundle's scoring program, as the Codabench worker would run it.

Codabench does not carry a CodaLab leaderboard over: the organizer re-submits. ``rescore`` gives that leaderboard
beforehand (or in place of it), from a folder of past submissions: each one replayed (replay.replay, Codabench
worker) in a pool of J threads (each replay runs its program in a child process), then written as CSV and as HTML,
sorted by the column that ranks the leaderboard, in its direction. Computed columns (avg, sum, min, max of other
columns) are filled in as Codabench's site fills them (platforms/codabench_leaderboard.py: from the stored values the
submission has), and average-rank columns (``--avg-rank``, which the pinned Codabench cannot compute) from the rows'
ranks. A phase of several tasks (tracks) scores each submission on each of them, or on the ones ``--tracks`` names,
as the site does when a participant chooses them.

With intervals (``--ci``, for programs made by codalab-bundles 0.4.0 or later), each scored row gets the bootstrap
interval of the ranking score, and the approximate-randomization p-value of its difference from the next row
(paired on the phase's gold items, score_files.py and resampling.py); a row whose p-value is at least 1 - level is
marked as not significantly different from the next.
"""
import csv
import html
import io
import json
import os
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

from .. import replay
from . import two_files
from ..platforms import codabench_leaderboard
from ..zips import pack

COMPUTATIONS = codabench_leaderboard.COMPUTATIONS  # what Codabench's site computes
AVG_RANK = "avg_rank"  # computed here from the rows' ranks (Codabench c7dbc756 cannot)


class RescoreError(Exception):
    pass


class Column(object):
    def __init__(self, key, title, sorting, precision, computation=None, fields=()):
        self.key, self.title, self.sorting, self.precision = key, title, sorting, precision
        self.computation, self.fields = computation, list(fields)


def leaderboard(bundle):
    """([Column] in display order, the ranking Column) of the leaderboard Codabench attaches to the phases."""
    spec = bundle.spec
    if bundle.version == "2":
        board = (spec.get("leaderboards") or [{}])[0] or {}
        raw = sorted((c for c in board.get("columns") or [] if isinstance(c, dict)), key=lambda c: c.get("index", 0))
        by_index = dict((c.get("index"), str(c.get("key"))) for c in raw)
        columns = [Column(str(c.get("key")), str(c.get("title") or c.get("key")), c.get("sorting") or "desc",
                          _int(c.get("precision"), 2), c.get("computation"),
                          [by_index[i] for i in _indexes(c.get("computation_indexes")) if i in by_index])
                   for c in raw]
        primary = board.get("primary_index", 0)
        ranking = [col for col, c in zip(columns, raw) if c.get("index") == primary]
    else:  # Codabench's v1 import: columns by rank, the first one ranks; computed columns stay empty
        raw = (spec.get("leaderboard") or {}).get("columns") or {}
        items = sorted(((str(k), c) for k, c in raw.items() if isinstance(c, dict)),
                       key=lambda kc: kc[1].get("rank", 1) if isinstance(kc[1].get("rank", 1), int) else 1)
        columns = [Column(k, str(c.get("label") or k), c.get("sort") or "desc", _int(c.get("numeric_format"), 2))
                   for k, c in items]
        ranking = columns[:1]
    if not columns:
        raise RescoreError("%s has no leaderboard columns" % bundle.path)
    return columns, (ranking[0] if ranking else columns[0])


def _int(value, default):
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _indexes(value):
    if isinstance(value, str):  # Codabench stores them as "1,2"
        return [_int(v, None) for v in value.split(",") if v.strip()]
    return list(value or [])


def collect(paths, workdir, skipped=None):
    """[(name, zip path)] for the arguments: zip files; folders of zips; or a folder that is one submission (no zip
    inside), zipped into ``workdir``. What a folder of zips holds besides its zips is listed in ``skipped``."""
    found = []
    for path in paths:
        path = str(path)
        if os.path.isfile(path):
            found.append((os.path.basename(path), path))
        elif os.path.isdir(path):
            zips = sorted(n for n in os.listdir(path) if n.lower().endswith(".zip")
                          and os.path.isfile(os.path.join(path, n)))
            if zips:
                found.extend((n, os.path.join(path, n)) for n in zips)
                if skipped is not None:
                    skipped.extend(os.path.join(path, n) + ("/" if os.path.isdir(os.path.join(path, n)) else "")
                                   for n in sorted(os.listdir(path)) if n not in zips)
            else:
                name = os.path.basename(os.path.normpath(path))
                target = os.path.join(workdir, "%d-%s.zip" % (len(found), name))
                with open(target, "wb") as handle:
                    handle.write(pack.zip_directory(path))
                found.append((name + "/", target))
        else:
            raise RescoreError("%s: no such file or folder" % path)
    if not found:
        raise RescoreError("no submissions given")
    return found


def first_error(result):
    """What the participant would read first: the first stderr line; for a Python traceback, its last line."""
    lines = [line.strip() for line in result["stderr"].splitlines() if line.strip()]
    if lines and lines[0].startswith("Traceback"):
        return lines[-1]
    if lines:
        return lines[0]
    return result["reason"] or ""


class Progress(object):
    """A one-line progress bar on a stream (stderr)."""

    def __init__(self, total, stream, width=30):
        self.total, self.stream, self.width, self.done = total, stream, width, 0
        self.lock = threading.Lock()

    def step(self, name):
        with self.lock:
            self.done += 1
            filled = self.width * self.done // self.total
            self.stream.write("\r[%s%s] %d/%d %s" % ("#" * filled, "-" * (self.width - filled), self.done,
                                                      self.total, name[:40].ljust(40)))
            if self.done == self.total:
                self.stream.write("\n")
            self.stream.flush()


def score_submission(bundle_path, phase, path, computed, tracks=None):
    """(status, error, scores) of one submission replayed under the Codabench worker (on the tasks ``tracks`` names
    in a phase of several, or on all), with the computed columns filled in as the site fills them. Module level, so
    that a process pool can run it."""
    try:
        result = replay.replay(bundle_path, path, phase, platform="codabench", tracks=tracks)
    except (replay.ReplayError, OSError) as exc:
        return "Failed", str(exc), {}
    status, scores = result["status"], dict(result["scores"])
    error = "" if status == "Finished" else first_error(result)
    if status == "Finished" and not scores:
        error = "; ".join(result["score_warnings"]) or "no score stored"
    return status, error, codabench_leaderboard.fill_computed(scores, computed)


def _score_one(bundle_path, phase, name, path, computed, progress, tracks=None):
    status, error, scores = score_submission(bundle_path, phase, path, computed, tracks)
    if progress:
        progress.step(name)
    return {"submission": name, "status": status, "error": error, "scores": scores, "path": path}


def avg_rank_columns(texts, columns):
    """Columns for ``--avg-rank KEY=COL,COL`` (each the mean of a row's ranks on the columns named), checked against
    the leaderboard's ``columns``; RescoreError saying what is wrong."""
    found = []
    by_key = dict((c.key, c) for c in columns)
    for text in texts or []:
        key, _, fields = text.partition("=")
        fields = [f.strip() for f in fields.split(",") if f.strip()]
        if not key.strip() or not fields:
            raise RescoreError("--avg-rank %s: write KEY=COLUMN,COLUMN (the new column's key, the columns ranked)"
                               % text)
        unknown = [f for f in fields if f not in by_key]
        if unknown or key.strip() in by_key:
            raise RescoreError("--avg-rank %s: %s (the leaderboard's columns: %s)" % (
                text, "no column %s" % ", ".join(unknown) if unknown else "%s is a column already" % key.strip(),
                ", ".join(by_key)))
        found.append(Column(key.strip(), "average rank of %s" % ", ".join(fields), "asc", 2, AVG_RANK, fields))
    return found


def fill_average_ranks(score_maps, columns, all_columns):
    """Set each average-rank column of ``columns`` in the score dicts ``score_maps`` (one per row ranked), from the
    rows' ranks on its fields (codabench_leaderboard.average_ranks)."""
    sorting = dict((c.key, c.sorting) for c in all_columns)
    for column in columns:
        if column.computation != AVG_RANK:
            continue
        for scores, value in zip(score_maps, codabench_leaderboard.average_ranks(
                score_maps, column.fields, [sorting[f] for f in column.fields])):
            if value is None:
                scores.pop(column.key, None)
            else:
                scores[column.key] = value


def rank(rows, ranking):
    """Rows sorted by the ranking column in its direction (no score last, then by name), with 1-based ranks;
    equal scores (as Codabench stores them, to 10 decimals) share a rank."""
    def value_of(row):
        value = row["scores"].get(ranking.key)
        return None if value is None else round(value, codabench_leaderboard.DECIMAL_PLACES)

    def key(row):
        value = value_of(row)
        if value is None:
            return (1, 0.0, row["submission"])
        return (0, value if ranking.sorting == "asc" else -value, row["submission"])
    ordered = sorted(rows, key=key)
    previous, position = None, 0
    for number, row in enumerate(ordered, 1):
        value = value_of(row)
        if value is None:
            row["rank"] = None
            continue
        if value != previous:
            position, previous = number, value
        row["rank"] = position
    return ordered


def rescore(bundle_path, submissions, phase=None, jobs=1, progress_stream=None, skipped=None, intervals=None,
            tracks=None, avg_ranks=()):
    """Score every submission; returns ([Column], ranking Column, [row]) with rows ranked. What folders of zips hold
    besides zips is added to ``skipped``. ``intervals`` (IntervalSettings) adds add_intervals' figures. ``tracks``:
    the tasks of a phase of several to score on (default all); ``avg_ranks``: ``KEY=COL,COL`` texts, average-rank
    columns over the rows scored."""
    bundle = replay.Bundle(bundle_path)
    number = bundle.phase(phase).number
    bundle.phase(phase).chosen_tasks(tracks)  # a track the phase does not have is said before any scoring
    columns, ranking = leaderboard(bundle)
    columns = columns + avg_rank_columns(avg_ranks, columns)
    computed = [c for c in columns if c.computation in COMPUTATIONS and c.fields]
    with tempfile.TemporaryDirectory(prefix="rescore-") as workdir:
        program = two_file_program(bundle, number, workdir) if intervals is not None else None  # said first
        found = collect(submissions, workdir, skipped)
        progress = Progress(len(found), progress_stream) if progress_stream else None
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            rows = list(pool.map(lambda item: _score_one(bundle_path, number, item[0], item[1], computed, progress,
                                                         tracks), found))
        fill_average_ranks([row["scores"] for row in rows if row["status"] == "Finished"], columns, columns)
        ranked = rank(rows, ranking)
        if intervals is not None:
            add_intervals(bundle, number, program, ranking, ranked, intervals, workdir, jobs)
    return columns, ranking, ranked


class IntervalSettings(object):
    def __init__(self, samples=1000, seed=12345, level=0.95):
        self.samples, self.seed, self.level = samples, seed, level

    def options(self):
        return ["--samples", str(self.samples), "--seed", str(self.seed), "--level", repr(self.level), "--json"]


def program_report(program, ref_dir, options):
    proc = subprocess.run([sys.executable, os.path.join(program, "evaluate.py"), "--gold", ref_dir] + options,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if proc.returncode != 0:
        raise RescoreError("the interval could not be computed: %s" % (proc.stderr.strip().splitlines() or
                                                                       ["exit status %d" % proc.returncode])[-1])
    return json.loads(proc.stdout)


def two_file_program(bundle, number, workdir):
    target = os.path.join(workdir, "two-file")
    os.makedirs(target)
    try:
        return two_files.program_dir(bundle.path, target, phase_number=number)
    except two_files.ScoreError as exc:
        raise RescoreError("%s; rescore without --ci" % str(exc).split("; replay")[0])


def reference_dir(bundle, number, workdir):
    """Phase ``number``'s reference data unpacked into ``workdir``/ref (bounded, as the replay unpacks it)."""
    phase = bundle.phase(number)
    ref_dir = os.path.join(workdir, "ref")
    replay.get_bundle(bundle.read(phase.reference_data, "phase %d's reference data" % number), ref_dir,
                      "%s:%s" % (bundle.path, phase.reference_data), workdir)
    return ref_dir


def add_intervals(bundle, number, program, ranking, rows, settings, workdir, jobs=1):
    """Give each scored row (ranked) its "interval" and, but for the last, "p_next" and "tied_with_next", from the
    phase's ``program`` (two_files.program_dir)."""
    ref_dir = reference_dir(bundle, number, workdir)
    scored = [row for row in rows if row["rank"] is not None]
    options = settings.options()

    def interval(row):
        report = program_report(program, ref_dir, ["--pred", row["path"], "--ci"] + options)
        if report["interval"]["key"] != ranking.key:
            raise RescoreError("the program's intervals are of %s, but the leaderboard ranks by %s"
                               % (report["interval"]["key"], ranking.key))
        return report["interval"]

    def versus(pair):
        report = program_report(program, ref_dir, ["--pred", pair[0]["path"], "--compare", pair[1]["path"]] + options)
        return report["comparison"]["p_approximate_randomization"]

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for row, found in zip(scored, pool.map(interval, scored)):
            row["interval"] = found
        for row, p_value in zip(scored, pool.map(versus, list(zip(scored, scored[1:])))):
            row["p_next"] = p_value
            row["tied_with_next"] = p_value >= 1 - settings.level


def _with_intervals(rows):
    return any("interval" in row for row in rows)


def csv_text(columns, rows):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    extra = ["interval_low", "interval_high", "p_next", "tied_with_next"] if _with_intervals(rows) else []
    writer.writerow(["rank", "submission", "status"] + [c.key for c in columns] + extra + ["error"])
    for row in rows:
        figures = []
        if extra:
            interval = row.get("interval") or {}
            figures = [repr(interval[k]) if k in interval else "" for k in ("low", "high")]
            figures += [repr(row["p_next"]) if "p_next" in row else "",
                        ("yes" if row["tied_with_next"] else "no") if "tied_with_next" in row else ""]
        writer.writerow([row["rank"] or ""] + [row["submission"], row["status"]]
                        + [repr(row["scores"][c.key]) if c.key in row["scores"] else "" for c in columns]
                        + figures + [row["error"]])
    return out.getvalue()


def html_text(title, columns, ranking, rows):
    intervals = _with_intervals(rows)
    head = "".join("<th>%s%s</th>" % (html.escape(c.title), " &#9660;" if c is ranking and c.sorting == "desc"
                                      else " &#9650;" if c is ranking else "") for c in columns)
    if intervals:
        head += "<th>interval of %s</th><th>vs. next: p</th>" % html.escape(ranking.title)
    body = []
    for row in rows:
        cells = "".join("<td>%s</td>" % ("%.*f" % (c.precision, row["scores"][c.key]) if c.key in row["scores"]
                                         else "-") for c in columns)
        if intervals:
            interval = row.get("interval")
            cells += "<td>%s</td>" % ("[%.*f, %.*f]" % (ranking.precision, interval["low"], ranking.precision,
                                                         interval["high"]) if interval else "-")
            cells += "<td>%s</td>" % ("%.4f%s" % (row["p_next"], " (not significant)" if row["tied_with_next"]
                                                  else "") if "p_next" in row else "-")
        body.append("<tr><td>%s</td><td>%s</td><td>%s</td>%s<td>%s</td></tr>" % (
            row["rank"] or "-", html.escape(row["submission"]), row["status"], cells, html.escape(row["error"])))
    note = ""
    if intervals:
        level = next(row["interval"]["level"] for row in rows if row.get("interval"))
        note = ("<p>Intervals: %g%% bootstrap intervals of %s. p: approximate randomization against the next row, "
                "paired on the gold's items; \"not significant\" when p &ge; %g.</p>\n"
                % (100 * level, html.escape(ranking.title), round(1 - level, 6)))
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title></head><body>\n<h1>%s</h1>\n"
            "<p>Ranked by %s (%s is better).</p>\n%s<table border=\"1\">\n<tr><th>#</th><th>submission</th>"
            "<th>status</th>%s<th>error</th></tr>\n%s\n</table>\n</body></html>\n" % (
                html.escape(title), html.escape(title), html.escape(ranking.title),
                "lower" if ranking.sorting == "asc" else "higher", note, head, "\n".join(body)))


def write(path, title, columns, ranking, rows):
    """Write the CSV at ``path`` and the HTML beside it; returns the HTML path."""
    page = os.path.splitext(str(path))[0] + ".html"
    with open(str(path), "w", encoding="utf-8", newline="") as handle:
        handle.write(csv_text(columns, rows))
    with open(page, "w", encoding="utf-8") as handle:
        handle.write(html_text(title, columns, ranking, rows))
    return page
