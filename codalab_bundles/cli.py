"""The command line: start a competition, build its bundles, validate any bundle, replay a bundle's scoring step as
the platform's worker would, move an old CodaLab competition to Codabench, and rescore past submissions.

``codalab-bundles COMMAND ...`` (installed by ``pip install``) works on a competition folder (bundles/,
scoring_programs/, reference_data/; the current folder unless told otherwise). ``python3 build_bundle.py ...`` is
the same tool for this repository, the competition folder of the five seeded tasks; without a command it builds
them all.

  codalab-bundles new NAME [--kind KIND] [--gold-dir DIR] [--set FIELD=VALUE]... [--dir FOLDER]
      Write a complete task of your own (task.yaml, pages rendered from it, logo, sample data or your gold split
      into phases, starting kit with a baseline, metric card), scored by a generic program configured by data
      (classification, multilabel, spans, ranking, text, regression, sequence), or by a skeleton of your own
      (custom).
  codalab-bundles build [FOLDER] [--task TASK]... [--reference [TASK:]SPLIT=DIR]... [--dist DIR] [--no-check]
      Build FOLDER/dist/<task>.zip (Codabench) and <task>-v1.5.zip (CodaLab v1.5) for every task of the folder (or
      the ones named), print the phase dates Codabench stores from each, then replay each split's starting-kit
      sample submission as a check.
  codalab-bundles validate BUNDLE.zip... [--platform codabench|codalab|both]
      Check any bundle against what Codabench (default) and CodaLab v1.5 accept.
  codalab-bundles replay BUNDLE.zip [SUBMISSION.zip] [--phase N] [--platform codabench|codalab] [--json]
                                [--docker [--image IMAGE] [--network]]
      Replay the scoring step of phase N (default: the first) on SUBMISSION.zip (default: the phase's
      starting-kit sample submission) and report status, scores, unmatched keys and the participant's stderr.
  codalab-bundles migrate OLD.zip [-o NEW.zip] [--wrap-scores] [--submission SUB.zip] [--json]
  codalab-bundles migrate OLD1.zip OLD2.zip ... --out DIR
      Turn a CodaLab v1.5 bundle or dump into a Codabench bundle that keeps its meaning (dates, ends, limits,
      registration, ranking), and report every change, loss and manual step left; check the scoring program
      (Python 3 syntax, a replay under the Codabench worker). --wrap-scores runs the unchanged program through a
      wrapper that writes scores.json with CodaLab's rules and removes an output/metadata it writes.
      Several bundles at once with --out DIR: one bundle and report each, a summary table and summary.csv.
  codalab-bundles score TASK|BUNDLE.zip GOLD PRED [--json] [--per-item [wrong]] [--ci] [--compare PRED2]
      Score a submission against a gold file with the task's scoring program, as participants run it offline:
      the platform's checks and scores, each item's result, a bootstrap interval, paired tests between two runs.
  codalab-bundles rescore BUNDLE.zip SUBMISSION... [--phase N] [--jobs J] [-o leaderboard.csv] [--ci]
      Score past submissions (zips, folders of zips, or unzipped folders) through the bundle's program as the
      Codabench worker would, J at a time, and write the leaderboard as CSV and HTML (beside it), ranked by the
      leaderboard's ranking column, with each submission's status and error; --ci adds each row's bootstrap
      interval and whether it differs significantly from the next row.

Exit statuses (EXIT_STATUSES below, printed by --help): 0 done (built, valid, Finished, ready to upload); 1 done,
with something for you to fix (a task not built, findings, a failed submission, manual steps); 2 the command could
not run (bad arguments, an input that cannot be read).
"""
import argparse
import concurrent.futures
import csv
import json
import os
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from . import __version__, migrate, replay, validate
from .authoring import build, new_task, taskdef
from .authoring.new_command import new_main
from .offline import rescore, two_files
from .platforms import fact_sheet
from .results import from_site, published, significance, systems
from .results import run as results_run
from .results import runs as results_runs
from .site import batch, codabench_api, live_update, publish, submit
from .zips import safe_zip



@dataclass(frozen=True)
class Invocation:
    """How the tool was called, passed to every command: the name users typed (in help, examples and next steps:
    codalab-bundles, or python3 build_bundle.py in this repository) and the competition folder that new, build and
    score use unless told another (None: the current folder)."""
    command: str = "codalab-bundles"
    folder: Optional[Path] = None


EXIT_STATUSES = ("exit status: 0 done (built, valid, Finished, ready to upload); 1 done, with something "
                 "for you to fix (a task not built, findings, a failed submission, manual steps); 2 the "
                 "command could not run (bad arguments, an input that cannot be read)")


def _parse_references(values, tasks):
    """--reference [TASK:]SPLIT=DIR -> {task: {split: dir}}."""
    overrides = {}
    for value in values:
        target, sep, folder = value.partition("=")
        if not sep or not folder:
            raise SystemExit("--reference %r: expected [TASK:]SPLIT=DIR" % value)
        task, colon, split = target.rpartition(":")
        if not colon:
            if len(tasks) != 1:
                raise SystemExit("--reference %r: name the task (TASK:SPLIT=DIR) when building several tasks"
                                 % value)
            task = tasks[0]
        overrides.setdefault(task, {})[split] = folder
    return overrides


def build_main(argv, how):
    """``build``; ``how.folder`` is the competition folder used when none is given (None: the current folder)."""
    command, folder = how.command, how.folder
    parser = argparse.ArgumentParser(
        prog="%s build" % command, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Build the Codabench and CodaLab v1.5 bundles of the tasks of a competition folder (its "
                    "bundles/, scoring_programs/ and reference_data/) into its dist/.",
        epilog="example:\n  %s build                          # every task of the current folder\n"
               "  %s build my-competition --task sentiment --reference test=final-gold/\n\n%s"
               % (command, command, EXIT_STATUSES))
    parser.add_argument("folder", nargs="?", default=None if folder is None else str(folder),
                        help="the competition folder (default: %s)" % ("the current folder" if folder is None
                                                                        else folder))
    parser.add_argument("--task", action="append", help="build only this task (repeatable)")
    parser.add_argument("--reference", action="append", default=[], metavar="[TASK:]SPLIT=DIR",
                        help="use the gold data in DIR for SPLIT instead of reference_data/<task>/<split>")
    parser.add_argument("--dist", help="output folder (default: the competition folder's dist/)")
    parser.add_argument("--no-check", action="store_true", help="do not replay the sample submissions")
    args = parser.parse_args(argv)
    root = Path(args.folder or ".").resolve()
    bundles = root / "bundles"
    have = taskdef.task_names(bundles)
    if not have:
        parser.error("%s holds no task (no bundles/<task>/task.yaml): start one with '%s new NAME --kind KIND'"
                     % (root, command))
    names = args.task or have
    unknown = sorted(set(names) - set(have))
    if unknown:
        parser.error("no task definition for %s in %s (have: %s)" % (", ".join(unknown), root, ", ".join(have)))
    overrides = _parse_references(args.reference, names)
    dist = Path(args.dist) if args.dist else root / "dist"
    outcomes = []
    for name in names:
        outcome = build.build(name, dist, bundles, overrides.get(name), check=not args.no_check)
        _print_outcome(outcome)
        outcomes.append(outcome)
    failures = sum(1 for outcome in outcomes if not outcome.ok)
    if len(names) > 1:
        print("%d built, %d failed" % (len(names) - failures, failures))
    return 2 if any(outcome.unreadable for outcome in outcomes) else 1 if failures else 0


def _when(value):
    return value.strftime("%Y-%m-%d %H:%M:%S") if value else "no end"


def _print_outcome(outcome):
    """What ``build`` says of one task: the bundles, the dates Codabench stores from each, the samples replayed,
    and why it was not built (with the zips removed from dist/ so that none is taken for this build's)."""
    if outcome.built:
        if outcome.built.codalab is None:
            print("built %s (Codabench)" % new_task.shown_path(outcome.built.codabench))
        else:
            print("built %s (Codabench) and %s (CodaLab v1.5)" % (new_task.shown_path(outcome.built.codabench),
                                                                   new_task.shown_path(outcome.built.codalab)))
        for what, schedule in outcome.schedules:
            print("  %s: %s" % (what, "; ".join("%s %s to %s" % (name, _when(start), _when(end))
                                                 for name, start, end in schedule)))
        for note in outcome.notes:
            print("  note: %s" % note)
        explicit = [p.label for p in outcome.task.phases if p.explicit_end]
        if explicit and outcome.built.codalab is not None:
            print("  note: the v1.5 bundle cannot end %s before the next phase starts (v1.5 phases have no end)"
                  % ", ".join(explicit))
        if outcome.task.fact_sheet:
            print("  note: the v1.5 bundle has no fact sheet (CodaLab v1.5 has none): the %d question(s) are in the "
                  "Codabench bundle only" % len(outcome.task.fact_sheet))
    for run in outcome.samples:
        if run.error is not None:
            print("  phase %d (%s): no sample submission replayed: %s" % (run.phase, run.label, run.error))
            continue
        scores = ", ".join("%s=%.4f" % kv for kv in run.scores.items())
        print("  phase %d (%s), sample submission on %s: %s %s" % (run.phase, run.label, run.platform, run.status,
                                                                  scores or run.reason or ""))
        if run.failed:
            sys.stderr.write(run.stderr)
    if outcome.ok:
        return
    why = outcome.error or "a starting kit's sample submission fails (above)"
    previous = "the previous " if outcome.older else ""
    if outcome.removed:
        why += "; %s%s removed%s" % (previous, " and ".join(new_task.shown_path(p) for p in outcome.removed),
                                     " (built from older files)" if previous else "")
    print("%s: not built: %s" % (outcome.name, why), file=sys.stderr)


def _add_limit_options(parser):
    group = parser.add_argument_group("extraction limits (every zip opened: the bundle, the submission, the zips "
                                      "inside them)")
    group.add_argument("--max-extract-mb", type=int, default=safe_zip.DEFAULT_MAX_BYTES // safe_zip.MIB,
                       metavar="MB", help="most megabytes (MiB) one zip may extract to, nested zips included "
                       "(default: %(default)s)")
    group.add_argument("--max-entries", type=int, default=safe_zip.DEFAULT_MAX_ENTRIES, metavar="N",
                       help="most entries one zip may hold, nested zips included (default: %(default)s)")
    group.add_argument("--max-ratio", type=int, default=safe_zip.DEFAULT_MAX_RATIO, metavar="N",
                       help="most an entry above %d MiB may inflate, uncompressed/compressed (default: "
                       "%%(default)s)" % (safe_zip.RATIO_FLOOR // safe_zip.MIB))


def _limits(parser, args):
    if min(args.max_extract_mb, args.max_entries, args.max_ratio) <= 0:
        parser.error("--max-extract-mb, --max-entries and --max-ratio must be positive")
    return safe_zip.Limits(args.max_extract_mb * safe_zip.MIB, args.max_entries, args.max_ratio)


def _add_docker_options(parser, what):
    parser.add_argument("--docker", action="store_true", help="run %s in Docker as the worker does (default: with "
                        "this machine's python3)" % what)
    parser.add_argument("--image", help="with --docker: this image instead of the bundle's (e.g. the offline "
                        "stand-in codalab-replay/standin:bullseye)")
    parser.add_argument("--network", action="store_true",
                        help="with --docker: leave the container's network on, as the real workers do")


def _executor(parser, args):
    if (args.image or args.network) and not args.docker:
        parser.error("--image and --network go with --docker")
    return replay.DockerExecutor(args.image, args.network) if args.docker else None


def _names(text):
    """NAME[,NAME...]: the tracks (Codabench tasks) named."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise argparse.ArgumentTypeError("name at least one track")
    return names


def replay_main(argv, how):
    command = how.command
    parser = argparse.ArgumentParser(
        prog="%s replay" % command, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Replay a bundle's scoring step as the platform's worker would.",
        epilog="example:\n  %s replay dist/sentiment.zip my-run.zip --phase 2 --docker\n\n%s"
               % (command, EXIT_STATUSES))
    parser.add_argument("bundle", help="a competition bundle zip (e.g. dist/toxic-spans.zip)")
    parser.add_argument("submission", nargs="?", help="a submission zip (default: the starting kit's sample)")
    parser.add_argument("--phase", type=int, help="phase number (default: the first phase)")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object on the last line")
    parser.add_argument("--keep", action="store_true", help="keep the run directory and print its path")
    parser.add_argument("--platform", choices=sorted(replay.WORKERS), default="codabench",
                        help="the worker to emulate (default: codabench; codalab: the v1.5 worker)")
    parser.add_argument("--tracks", type=_names, metavar="NAME[,NAME]",
                        help="a phase of several tasks (tracks): run only these tasks, as a participant choosing "
                        "them (default: every task of the phase)")
    _add_docker_options(parser, "the program")
    _add_limit_options(parser)
    args = parser.parse_intermixed_args(argv)  # the submission may come after the options
    limits = _limits(parser, args)
    executor = _executor(parser, args)
    try:
        report = replay.replay(args.bundle, args.submission, args.phase, keep=args.keep, platform=args.platform,
                               executor=executor, limits=limits, tracks=args.tracks)
    except (replay.ReplayError, OSError) as exc:
        print("replay: %s" % exc, file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report, sort_keys=True))
    else:
        print(replay.format_report(report))
    if args.submission and os.path.isfile(args.submission) and not zipfile.is_zipfile(args.submission):
        print("replay: %s is not a zip file (%d bytes), so the worker fails it before the scoring program runs: "
              "zip the prediction files themselves" % (args.submission, os.path.getsize(args.submission)),
              file=sys.stderr)
    return 0 if report["status"] == "Finished" and not replay.failed_tasks(report) else 1


def validate_main(argv, how):
    command = how.command
    parser = argparse.ArgumentParser(
        prog="%s validate" % command, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Check a competition bundle before uploading it.",
        epilog="example:\n  %s validate dist/*.zip --quiet\n\n%s" % (command, EXIT_STATUSES))
    parser.add_argument("bundle", nargs="+", help="competition bundle zip(s), ours or anyone's")
    parser.add_argument("--platform", choices=("codalab", "codabench", "both"),
                        help="where it will be uploaded (default: codabench; both: also self-hosted CodaLab v1.5)")
    parser.add_argument("--no-replay", action="store_true", help="do not replay the starting kits' samples")
    parser.add_argument("--json", action="store_true", help="print the findings as one JSON object")
    parser.add_argument("--quiet", action="store_true", help="print only the bundles with something to fix, and "
                        "the summary")
    _add_docker_options(parser, "the starting kits' samples")
    _add_limit_options(parser)
    args = parser.parse_intermixed_args(argv)
    limits = _limits(parser, args)
    executor = _executor(parser, args)
    platforms = None if args.platform is None else (
        validate.PLATFORMS if args.platform == "both" else (args.platform,))
    status = 0
    results = {}
    unreadable = 0
    for path in args.bundle:
        problem = _unreadable(path)
        if problem:  # no bundle to check: the command could not run on it (exit 2), as replay says
            print("validate: %s" % problem, file=sys.stderr)
            results[path] = {"version": None, "passed": False, "findings": [], "error": problem}
            unreadable += 1
            status = 2
            continue
        version, findings = validate.validate(path, platforms, replay=not args.no_replay, limits=limits,
                                              executor=executor)
        passed = validate.passed(findings)
        results[path] = {"version": version, "passed": passed, "findings": [f.as_dict() for f in findings]}
        if not args.json and not (args.quiet and passed):
            print(validate.format_findings(path, version, findings))
        status = status or (0 if passed else 1)
    if args.json:
        print(json.dumps(results, sort_keys=True))
    elif len(args.bundle) > 1 or args.quiet:
        failing = sum(1 for r in results.values() if not r["passed"]) - unreadable
        print("%d bundle(s): %d with nothing to change, %d with findings to fix%s" % (
            len(results), len(results) - failing - unreadable, failing,
            ", %d that cannot be read" % unreadable if unreadable else ""))
    return status


def _unreadable(path):
    """Why ``path`` cannot be read at all (no such file, a folder, no permission), or None. A file that is not a
    zip is read, and is a bundle with a finding."""
    if not os.path.exists(path):
        return "%s: no such file" % path
    if os.path.isdir(path):
        return "%s is a folder, not a bundle: give the bundle's zip (zip the folder's files first)" % path
    try:
        with open(path, "rb") as handle:
            handle.read(1)
    except OSError as exc:
        return "%s cannot be read (%s)" % (path, exc.strerror or exc)
    return None


def migrate_main(argv, how):
    command = how.command
    parser = argparse.ArgumentParser(prog="%s migrate" % command,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     description="Turn CodaLab v1.5 bundles or dumps into Codabench bundles, and "
                                     "report every change, loss and manual step left.",
                                     epilog="example:\n  %s migrate old.zip --wrap-scores --docker\n  %s migrate "
                                     "old1.zip old2.zip --out migrated/\n\n" % (command, command) +
                                     "Exit status: 0 ready to upload and score; 1 the organizer must do "
                                     "something first (the report's manual steps); 2 an input cannot be migrated. "
                                     "With several bundles, the highest of these.")
    parser.add_argument("bundle", nargs="+", help="the old CodaLab competition bundle(s) or dump(s) (zip)")
    parser.add_argument("-o", "--output", help="the Codabench bundle to write, for one input (default: "
                        "OLD-codabench.zip beside OLD.zip)")
    parser.add_argument("--out", metavar="DIR", help="write each OLD-codabench.zip and its report "
                        "(OLD-codabench.report.txt and .json) into DIR, with summary.csv; needed for several inputs")
    parser.add_argument("--wrap-scores", action="store_true",
                        help="run the unchanged scoring program through a wrapper that writes scores.json from its "
                        "scores.txt with CodaLab's rules and removes an output/metadata it writes")
    parser.add_argument("--submission", help="replay this submission zip instead of the starting kits' samples")
    parser.add_argument("--rank-by", metavar="KEY", help="the column the migrated leaderboard ranks by (a column "
                        "key of the main leaderboard), when the report's choice is not what the old leaderboard did")
    parser.add_argument("--no-check", action="store_true", help="do not validate or replay the new bundle")
    parser.add_argument("--json", action="store_true", help="print the report (or, with several inputs, the "
                        "summary and every report) as one JSON object")
    _add_docker_options(parser, "the scoring program's check")
    args = parser.parse_intermixed_args(argv)
    if args.output and (args.out or len(args.bundle) > 1):
        parser.error("-o names one output: with several bundles (or --out), use --out DIR")
    if len(args.bundle) > 1 and not args.out:
        parser.error("several bundles: give --out DIR for the migrated bundles and their reports")
    if args.rank_by and len(args.bundle) > 1:
        parser.error("--rank-by names a column of one bundle: migrate that bundle on its own")
    folder = os.path.dirname(os.path.abspath(args.output)) if args.output else None
    if folder and not os.path.isdir(folder):  # said now, not after the migration and its check
        parser.error("-o %s: the folder %s does not exist" % (args.output, folder))
    options = dict(wrap_scores=args.wrap_scores, submission=args.submission, check=not args.no_check,
                   executor=_executor(parser, args), rank_by=args.rank_by)
    if not args.out:
        try:
            report = migrate.migrate(args.bundle[0], args.output, **options)
        except (migrate.MigrationError, OSError) as exc:
            print("migrate: %s" % exc, file=sys.stderr)
            return 2
        print(json.dumps(report.as_dict(), sort_keys=True) if args.json else migrate.format_report(report, command))
        return report.exit_status
    return _migrate_into(args, options, command)


def _migrate_into(args, options, command):
    done = migrate.migrate_many(args.bundle, args.out, **options)
    before = dict((source, migrate.original_imports(source) if report else None)
                  for source, _, report, _ in done)
    for source, target, report, error in done:
        stem = target[:-len(".zip")]
        with open(stem + ".report.txt", "w", encoding="utf-8") as handle:
            text = migrate.format_report(report, command) if report else "migrate %s: %s" % (source, error)
            handle.write(text + "\n")
        with open(stem + ".report.json", "w", encoding="utf-8") as handle:
            json.dump(report.as_dict() if report else {"source": source, "error": error, "exit_status": 2}, handle,
                      sort_keys=True, indent=1)
    rows = migrate.summary_rows(done, before)
    with open(os.path.join(args.out, "summary.csv"), "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, migrate.SUMMARY_FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    if args.json:
        print(json.dumps({"summary": rows, "reports": [r.as_dict() if r else {"source": s, "error": e}
                                                       for s, _, r, e in done]}, sort_keys=True))
    else:
        print(migrate.format_summary(rows))
        print("Reports, bundles and summary.csv are in %s" % args.out)
    return max(row["exit_status"] for row in rows)


def rescore_main(argv, how):
    command = how.command
    parser = argparse.ArgumentParser(prog="%s rescore" % command,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     description="Score past submissions through a bundle's program as the Codabench "
                                     "worker would, and write the leaderboard (CSV and HTML).",
                                     epilog="examples:\n  %s rescore migrated.zip past-runs/ --phase 3 -o board.csv"
                                     "\n  %s rescore dist/my-task.zip runs/ --phase 2 --ci --samples 2000"
                                     "\n\n%s" % (command, command, EXIT_STATUSES))
    parser.add_argument("bundle", help="the competition bundle (e.g. the migrated one)")
    parser.add_argument("submissions", nargs="+", metavar="SUBMISSION",
                        help="submission zips, folders of zips, or a folder that is one unzipped submission")
    parser.add_argument("--phase", type=int, help="phase number whose program and gold score them (default: the "
                        "first phase)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="submissions scored at once "
                        "(default: the number of CPUs)")
    parser.add_argument("-o", "--output", default="leaderboard.csv",
                        help="the CSV to write (default: leaderboard.csv); the HTML goes beside it")
    parser.add_argument("--ci", action="store_true", help="add the bootstrap interval of the ranking score to each "
                        "row, and the approximate-randomization p-value of its difference from the next row (rows "
                        "with p >= 1 - level are marked not significant); programs of codalab-bundles 0.4.0+ only")
    parser.add_argument("--samples", type=int, default=1000, help="with --ci: resamples and rounds (default 1000)")
    parser.add_argument("--seed", type=int, default=12345, help="with --ci: the random seed (default 12345)")
    parser.add_argument("--level", type=float, default=0.95, help="with --ci: the confidence level (default 0.95)")
    _add_track_options(parser)
    args = parser.parse_intermixed_args(argv)
    folder = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(folder):  # said now, not after all the scoring
        parser.error("-o %s: the folder %s does not exist" % (args.output, folder))
    skipped = []
    try:
        bundle_title = replay.Bundle(args.bundle).spec.get("title") or args.bundle
        intervals = rescore.IntervalSettings(args.samples, args.seed, args.level) if args.ci else None
        columns, ranking, rows = rescore.rescore(args.bundle, args.submissions, args.phase, args.jobs,
                                                 progress_stream=sys.stderr, skipped=skipped, intervals=intervals,
                                                 tracks=args.tracks, avg_ranks=args.avg_rank)
        page = rescore.write(args.output, "%s: rescored submissions" % bundle_title, columns, ranking, rows)
    except (rescore.RescoreError, replay.ReplayError, OSError) as exc:
        print("rescore: %s" % exc, file=sys.stderr)
        return 2
    failed = [row for row in rows if row["status"] != "Finished"]
    print("%d submission(s) scored, %d failed; ranked by %s (%s): %s and %s" % (
        len(rows) - len(failed), len(failed), ranking.key, ranking.sorting, args.output, page))
    for row in failed:
        print("  %s: %s: %s" % (row["submission"], row["status"], row["error"]))
    tied = [row["submission"] for row in rows if row.get("tied_with_next")]
    if args.ci:
        print("  not significantly different from the next row (p >= %g): %s" % (round(1 - args.level, 6),
                                                                                ", ".join(tied) or "none"))
    for path in skipped:
        print("  skipped %s: not a zip (a folder of zips is read for its zips; give an unzipped submission's "
              "folder on its own)" % path)
    return 1 if failed else 0


def _add_track_options(parser, from_site=False):
    parser.add_argument("--tracks", type=_names, metavar="NAME[,NAME]",
                        help="a phase of several tasks (tracks): score every submission on these tasks only, as a "
                        "participant choosing them (default: every task of the phase%s)"
                        % ("; from the site: the tasks each submission was made to" if from_site else ""))
    parser.add_argument("--avg-rank", action="append", default=[], metavar="KEY=COL,COL",
                        help="add a column KEY: each row's mean rank on the columns named (tied rows share the mean "
                        "of their places), which the pinned Codabench cannot compute; repeatable")


def _client(parser, args):
    server = args.server or os.environ.get(codabench_api.SERVER_VARIABLE)
    if not server:
        parser.error("give the site with --server URL (or $%s)" % codabench_api.SERVER_VARIABLE)
    token, where = codabench_api.read_token(server)
    warning = codabench_api.token_file_warning(where) if where == codabench_api.CONFIG else None
    if warning:
        print(warning, file=sys.stderr)
    return codabench_api.Client(server, token, allow_http=args.allow_http)


def _server_options(parser):
    parser.add_argument("--server", help="the Codabench site, e.g. https://www.codabench.org (default: $%s)"
                        % codabench_api.SERVER_VARIABLE)
    parser.add_argument("--allow-http", action="store_true", help="talk plain http to a site that is not this "
                        "machine (the token then crosses the network unencrypted); https, or http to 127.0.0.1, "
                        "need no flag")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")


def _progress(text):
    print(text, file=sys.stderr, flush=True)


def publish_main(argv, how):
    command = how.command
    parser = argparse.ArgumentParser(
        prog="%s publish" % command, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Upload a bundle to a Codabench site through its API, wait until the competition exists, and "
                    "check that the phases the site stored are the bundle's. The API token is read from $%s or %s "
                    "and never printed." % (codabench_api.TOKEN_VARIABLE, codabench_api.CONFIG),
        epilog="example:\n  CODABENCH_TOKEN=... %s publish dist/sentiment.zip --server https://www.codabench.org\n\n%s"
               % (command, EXIT_STATUSES))
    parser.add_argument("bundle", help="the Codabench bundle (e.g. dist/sentiment.zip)")
    parser.add_argument("--update", type=int, metavar="ID", help="compare with the live competition ID instead of "
                        "making a new one (a re-upload makes a new competition), and show what differs")
    parser.add_argument("--apply", action="store_true", help="with --update: make the changes that can be made "
                        "safely (the others are listed, with why)")
    _server_options(parser)
    args = parser.parse_intermixed_args(argv)
    if args.apply and args.update is None:
        parser.error("--apply goes with --update ID")
    if args.update is not None:
        return _update(parser, args)
    try:
        client = _client(parser, args)
        result = publish.publish(client, args.bundle, progress=_progress)
    except (codabench_api.ApiError, publish.PublishError, OSError, zipfile.BadZipFile) as exc:
        print("publish: %s" % exc, file=sys.stderr)
        return 130 if isinstance(exc, publish.Interrupted) else 2
    if args.json:
        print(json.dumps(dict(result, phases=[[n, str(a), b and str(b)] for n, a, b in result["phases"]]),
                         sort_keys=True))
    else:
        print(publish.format_published(result))
    return 1 if result["differences"] else 0


def _update(parser, args):
    try:
        client = _client(parser, args)
        wanted = live_update.bundle_view(args.bundle)
        live = client.call("reading competition %s" % args.update, "GET", "/api/competitions/%s/" % args.update)
        found = live_update.changes(wanted, live_update.live_view(live), args.update)
        applied = live_update.apply(client, found) if args.apply else None
    except (codabench_api.ApiError, OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        print("publish --update: %s" % exc, file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"competition": args.update, "changes": [c.as_dict() for c in found],
                          "applied": applied is not None}, sort_keys=True))
    else:
        print(live_update.format_changes(args.update, found, applied))
    refused = [c for c in found if c.refused]
    return 1 if refused or (found and not args.apply) else 0


def submit_main(argv, how):
    command = how.command
    parser = argparse.ArgumentParser(
        prog="%s submit" % command, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Submit zips to a phase of a live Codabench competition (as robot submissions), wait for the "
                    "site's compute workers, and print the status, the scores and the leaderboard row; with "
                    "--expect-replay, also replay each locally and fail on any difference. With several zips (or "
                    "--batch): at most --in-flight of them unfinished on the site at once, a line per submission "
                    "as it ends, a final table, and a ledger so that the same command again after an "
                    "interruption submits nothing the site already has (by the zip's SHA-256) and only waits for "
                    "what is still running.",
        epilog="examples:\n  %s submit sample_submission.zip --competition 42 --phase 1 --expect-replay "
               "dist/sentiment.zip\n  %s submit runs/*.zip --competition 42 --phase 2 --in-flight 8\n\n%s"
               % (command, command, EXIT_STATUSES))
    parser.add_argument("submissions", nargs="+", metavar="SUBMISSION", help="the submission zip(s)")
    parser.add_argument("--competition", type=int, required=True, help="the competition's id (publish prints it)")
    parser.add_argument("--phase", type=int, default=1, help="the phase's number, 1 for the first (default: 1)")
    parser.add_argument("--expect-replay", metavar="BUNDLE", help="replay each submission through this bundle "
                        "under the Codabench worker and compare")
    parser.add_argument("--even-if-closed", action="store_true", help="submit to a phase that is not open (the "
                        "API takes it from the competition's organizer: a rehearsal before the dates)")
    parser.add_argument("--tracks", type=_names, metavar="NAME[,NAME]", help="a phase of several tasks (tracks): "
                        "submit to these tasks only, as a participant choosing them (default: every task)")
    parser.add_argument("--timeout", type=int, metavar="SECONDS", help="stop waiting for a submission after this "
                        "long and report its last status, what it means and what to do (default: the phase's "
                        "time limit + the 20 minutes Codabench gives a run + 10 minutes of queue)")
    batch_options = parser.add_argument_group("several zips")
    batch_options.add_argument("--batch", action="store_true", help="the batch mode (ledger, table) for one zip")
    batch_options.add_argument("--in-flight", type=int, default=batch.IN_FLIGHT, metavar="N",
                               help="at most N submissions unfinished on the site at once (default: %d)"
                                    % batch.IN_FLIGHT)
    batch_options.add_argument("--ledger", metavar="FILE", help="where the batch is recorded (default: "
                               "~/.cache/codalab-bundles/submit/<site>/competition-<id>-phase-<n>.jsonl)")
    batch_options.add_argument("--again", action="store_true", help="submit every zip anew, even those the site "
                               "already has")
    batch_options.add_argument("--rerun-stuck", action="store_true", help="a submission not final after --timeout "
                               "is run again the organizer's way: one still Submitting (its dispatch was lost) by "
                               "its Run, keeping its id; one still Running (no worker will end it), or Submitting "
                               "again, cancelled and re-run as a new submission of the same file")
    batch_options.add_argument("--organization", type=int, metavar="ID", help="submit for this team (a Codabench "
                               "organization the account is a participant member of)")
    fact_sheet.add_submit_options(parser)
    _server_options(parser)
    args = parser.parse_intermixed_args(argv)
    if args.in_flight < 1:
        parser.error("--in-flight takes a number from 1 up")
    try:
        args.answers = fact_sheet.parse_answer_options(args.fact_sheet, args.answer)
    except fact_sheet.FactSheetError as exc:
        parser.error(str(exc))
    if len(args.submissions) > 1 or args.batch or args.ledger or args.again or args.rerun_stuck or \
            args.organization is not None:
        return _submit_batch(parser, args)
    try:
        client = _client(parser, args)
        result = submit.submit(client, args.submissions[0], args.competition, args.phase, progress=_progress,
                               even_if_closed=args.even_if_closed, tracks=args.tracks, answers=args.answers,
                               no_fact_sheet=args.no_fact_sheet,
                               **({} if args.timeout is None else {"timeout": args.timeout}))
        diffs = None
        if args.expect_replay:
            replayed = replay.replay(args.expect_replay, args.submissions[0], args.phase, platform="codabench",
                                     tracks=args.tracks)
            diffs = submit.differences(result, replayed)
    except (codabench_api.ApiError, submit.SubmitError, replay.ReplayError, OSError) as exc:
        print("submit: %s" % exc, file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(dict(result, differences=diffs), sort_keys=True))
    else:
        print(submit.format_submitted(result, diffs))
    failed_runs = [run for run in result.get("tracks") or [] if run["status"] != "Finished"]
    return 0 if result["status"] == "Finished" and not result.get("stuck") and not diffs and not failed_runs else 1


def _submit_batch(parser, args):
    try:
        client = _client(parser, args)
        result = batch.submit_many(client, args.submissions, args.competition, args.phase, in_flight=args.in_flight,
                                   ledger=args.ledger, timeout=args.timeout, again=args.again,
                                   organization=args.organization, even_if_closed=args.even_if_closed,
                                   progress=_progress, rerun_stuck=args.rerun_stuck, tracks=args.tracks,
                                   answers=args.answers, no_fact_sheet=args.no_fact_sheet)
    except (codabench_api.ApiError, submit.SubmitError, OSError) as exc:
        print("submit: %s" % exc, file=sys.stderr)
        return 2
    differ = 0
    if args.expect_replay:
        differ = _compare_with_replays(args.expect_replay, args.phase, result["entries"], args.tracks)
    if args.json:
        print(json.dumps({"account": result["account"], "ledger": result["ledger"],
                          "interrupted": result["interrupted"], "fact_sheet_answers": result.get("fact_sheet_answers"),
                          "submissions": [e.as_dict() for e in result["entries"]]}, sort_keys=True))
    else:
        print(batch.format_table(result))
        if args.expect_replay:
            print("the local replays give the same status and scores" if not differ else
                  "ERROR: %d submission(s) differ from their local replay (the differences are in each row's "
                  "replay field with --json, and above on stderr)" % differ)
    if result["interrupted"]:
        return 130
    return 0 if batch.all_finished(result) and not differ else 1


def _compare_with_replays(bundle, phase, entries, tracks=None):
    """Replay every zip that reached a final status, and note each difference in its entry (entry.replay); the
    number of zips that differ. Failed ones compare their status (the message is the program's own on both); in a
    phase of several tasks, each task's run is compared (submit.differences)."""
    def one(entry):
        replayed = replay.replay(bundle, entry.path, phase, platform="codabench", tracks=tracks)
        local = {"status": replayed["status"], "scores": replayed["scores"] if entry.status == "Finished" else {},
                 "tasks": replayed.get("tasks")}
        site = {"status": entry.status, "scores": entry.scores if entry.status == "Finished" else {},
                "tracks": entry.tracks}
        return submit.differences(site, local)

    differ = 0
    final = [e for e in entries if e.status in submit.DONE and not e.stuck and e.same_as is None]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        for entry, diffs in zip(final, pool.map(one, final)):
            entry.replay = diffs
            if diffs:
                differ += 1
                _progress("%s (submission %s): %s" % (entry.zip, entry.id, "; ".join(diffs)))
    replayed = dict((e.sha256, e.replay) for e in final)
    for entry in entries:  # a file given twice is replayed once
        if entry.same_as is not None:
            entry.replay = replayed.get(entry.sha256)
    return differ


# evaluate.py's two-file options that score passes on, and whether each takes a value (None: an optional one).
PROGRAM_OPTIONS = {"--json": False, "--ci": False, "--per-item": None, "--compare": True, "--samples": True,
                   "--seed": True, "--level": True, "--output": True}
PER_ITEM_VALUES = ("all", "wrong")


def _program_options(argv):
    """(score's own arguments, evaluate.py's options), wherever the options stand among the arguments."""
    own, passed, rest = [], [], list(argv)
    while rest:
        word = rest.pop(0)
        name = word.split("=", 1)[0]
        if name not in PROGRAM_OPTIONS:
            own.append(word)
            continue
        passed.append(word)
        takes = PROGRAM_OPTIONS[name]
        if "=" not in word and rest and (takes or takes is None and rest[0] in PER_ITEM_VALUES):
            passed.append(rest.pop(0))
    return own, passed


def score_main(argv, how):
    command, folder = how.command, how.folder
    parser = argparse.ArgumentParser(
        prog="%s score" % command, formatter_class=argparse.RawDescriptionHelpFormatter,
        usage="%(prog)s TASK GOLD PRED [--dir FOLDER] [--phase N] [evaluate.py's options]",
        description="Score a submission against a gold file with a task's scoring program, as participants run it "
                    "(evaluate.py --gold GOLD --pred PRED): the same checks, messages and scores as the platform, "
                    "printed as a table or JSON, with per-item results, a bootstrap interval and paired tests.",
        epilog="evaluate.py's options (passed on to it; its --help says more): --json, --per-item [all|wrong], "
               "--ci, --compare PRED2, --samples N, --seed S, --level L, --output DIR\n\n"
               "examples:\n  %s score toxic-spans gold.txt spans-pred.txt --per-item wrong\n"
               "  %s score dist/sentiment.zip --phase 2 gold.csv run1.csv --ci --compare run2.csv\n\n"
               "exit status: 0 scored; 1 the submission or the gold cannot be scored; 2 the command could not run "
               "(also: GOLD and PRED look swapped, by their columns and names)" % (command, command))
    parser.add_argument("task", metavar="TASK", help="a task of the competition folder, or a built bundle (.zip)")
    parser.add_argument("gold", metavar="GOLD", help="the gold: a file, a folder or a reference zip")
    parser.add_argument("pred", metavar="PRED", help="the submission: a file, a folder or a submission zip")
    parser.add_argument("--dir", default=None if folder is None else str(folder),
                        help="the competition folder holding TASK (default: %s)"
                             % ("the current folder" if folder is None else folder))
    parser.add_argument("--phase", type=int, help="with a bundle: the phase whose program scores (default: the first)")
    own, options = _program_options(argv)
    args = parser.parse_args(own)
    try:
        return two_files.run(args.task, args.gold, args.pred, options, args.dir or ".", args.phase)
    except two_files.ScoreError as exc:
        print("score: %s" % exc, file=sys.stderr)
        return 2


def results_main(argv, how):
    command = how.command
    parser = argparse.ArgumentParser(
        prog="%s results" % command, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="The results table of a phase for the task paper: every team's counted run (the leaderboard's "
                    "submission rule), rescored locally with the competition's own program, ranked, with bootstrap "
                    "intervals and significance clusters (paired approximate randomization, Holm-corrected), as "
                    "results.csv, .md, .tex, .html, .png and .svg, plus runs.csv, the systems table (systems.csv, .md, "
                    ".tex, .html: each team's fact-sheet answers) and a participants/ variant without "
                    "what only organizers see. From a live Codabench (--competition, organizer's token: every "
                    "submission is downloaded once into --cache and the site's stored scores are audited) or from a "
                    "folder of runs (one entry per team: a folder of its runs, zips or folders, or one zip; "
                    "fact-sheet answers in <team>/fact_sheet.json, or <run>.fact_sheet.json beside a run).",
        epilog="examples:\n  %s results --competition 42 --phase 3 -o paper/\n  %s results runs/ --bundle "
               "dist/my-task.zip --phase 3 --by a_f1 -o paper-a/\n\n%s" % (command, command, EXIT_STATUSES))
    parser.add_argument("runs", nargs="?", metavar="RUNS_DIR", help="a folder of runs, one entry per team (instead "
                        "of --competition)")
    parser.add_argument("--competition", type=int, help="the live competition's id (with the organizer's token)")
    parser.add_argument("--bundle", help="the competition's bundle (default with --competition: the one the site "
                        "keeps)")
    parser.add_argument("--phase", type=int, help="the phase's number, 1 for the first (default: the bundle's first "
                        "phase; with --competition: 1)")
    parser.add_argument("--rule", choices=("best", "last", "chosen"), help="which run of a team counts (default: "
                        "the site's leaderboard rule; from a folder: best)")
    parser.add_argument("--by", metavar="KEY", help="rank by this leaderboard column instead (each team's best run "
                        "on it)")
    parser.add_argument("--columns", metavar="KEY,KEY", help="the leaderboard columns to show (default: all)")
    parser.add_argument("--private", action="store_true", help="the private leaderboard: score the runs as the "
                        "bundle's phase with private_scores scores them, and rank each team's counted run (chosen by "
                        "the rule on the public figure) by its private figure, private_<key>")
    parser.add_argument("--no-significance", action="store_true", help="no intervals or clusters")
    parser.add_argument("--significance-teams", type=int, metavar="N", help="intervals and clusters for the first N "
                        "teams only (their pairs grow as N squared; default: every team)")
    parser.add_argument("--published", metavar="CSV[:N]", help="the organizers' published table (the N-th table of "
                        "the CSV, columns # or rank, and team): say where its ranks differ from the computed ones")
    parser.add_argument("--samples", type=int, help="bootstrap resamples and randomization rounds (default: 1000, "
                        "raised so that the corrected test can reject at all)")
    parser.add_argument("--seed", type=int, default=12345, help="the random seed (default 12345)")
    parser.add_argument("--level", type=float, default=0.95, help="interval level; alpha = 1 - level (default 0.95)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes scoring at once (default: "
                        "the number of CPUs)")
    parser.add_argument("--cache", default=os.path.join(os.path.expanduser("~"), ".cache", "codalab-bundles",
                                                        "results"), help="where downloaded submissions are kept "
                        "(default: ~/.cache/codalab-bundles/results)")
    parser.add_argument("-o", "--output", default="results", help="the folder to write (default: results/)")
    _add_track_options(parser, from_site=True)
    _server_options(parser)
    args = parser.parse_intermixed_args(argv)
    if (args.runs is None) == (args.competition is None):
        parser.error("give a folder of runs or --competition ID (one of them)")
    if args.runs is not None and not args.bundle:
        parser.error("a folder of runs needs --bundle (the competition's bundle)")
    if args.samples is not None and args.samples < 1 or not 1 <= args.seed < 2 ** 32 or not 0 < args.level < 1:
        parser.error("--samples is at least 1, --seed between 1 and 4294967295, --level between 0 and 1")
    settings = None if args.no_significance else significance.Settings(args.samples, args.seed, args.level)
    shown = [k.strip() for k in args.columns.split(",") if k.strip()] if args.columns else None
    with tempfile.TemporaryDirectory(prefix="results-runs-") as workdir:
        try:
            if args.competition is not None:
                client = _client(parser, args)
                site = from_site.read_phase(client, args.competition, args.phase or 1, args.cache, args.bundle,
                                            progress=_progress)
                runs, bundle, site_rule, skipped = site.runs, site.bundle, site.rule, site.skipped
                title = "%s: %s" % (site.competition.get("title"), site.phase.get("name"))
                site_order = site.board_teams
            else:
                runs, bundle, site_rule, skipped = results_runs.from_folder(args.runs, workdir), args.bundle, None, []
                title, site_order = None, None
            if args.tracks:
                for run in runs:
                    run.tracks = args.tracks
            found = results_run.compute(bundle, runs, args.phase, args.rule, site_rule, args.by, shown, settings,
                                        args.jobs, sys.stderr, title, skipped, args.significance_teams,
                                        avg_ranks=args.avg_rank, site_order=site_order, private=args.private)
            if args.competition is not None:  # the questions as the site has them (editable there)
                found.questions = systems.on_site(found.questions, site.competition.get("fact_sheet") or {})
            if args.published:
                found.published = published.differences(published.read(args.published), found.rows)
            written = results_run.write(found, args.output)
        except (codabench_api.ApiError, results_runs.RunsError, published.PublishedError, results_run.ResultsError, replay.ReplayError,
                rescore.RescoreError, OSError) as exc:
            print("results: %s" % exc, file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps({"rows": [dict(rank=r.rank, team=r.team, run=r.run.id, scores=r.scores,
                                        interval=r.interval, cluster=r.cluster) for r in found.rows],
                          "audit": found.audit, "published": found.published, "written": written,
                          "systems": systems.as_json(found)}, sort_keys=True))
    else:
        print(results_run.summary(found))
        print("\nwritten: %s" % ", ".join(written))
    return 1 if found.audit else 0


COMMANDS = (("new", "start a task of your own in a competition folder (a generic scorer: no code)"),
            ("build", "build a competition folder's bundles into its dist/"),
            ("validate", "check any bundle against what Codabench (and CodaLab v1.5) accept"),
            ("replay", "run a bundle's scoring step on a submission as the platform's worker does"),
            ("migrate", "turn old CodaLab bundles into Codabench bundles that keep their meaning"),
            ("rescore", "score past submissions through a bundle and write the leaderboard"),
            ("score", "score a submission against a gold file, per item, with intervals and paired tests"),
            ("publish", "upload a bundle to a Codabench site and check what it stored"),
            ("submit", "submit to a live competition's phase, wait for its score, compare with the replay"),
            ("results", "the task paper's results table, intervals and clusters, from the site or a folder"))


def _top_parser(command):
    parser = argparse.ArgumentParser(
        prog=command, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Competition bundles for Codabench (and CodaLab v1.5): start, build, validate, replay, migrate "
                    "and rescore.",
        epilog="commands (each with --help and an example):\n%s\n\nexample:\n  %s new sentiment --kind "
               "classification --gold-dir my-gold/\n  %s build && %s validate dist/sentiment.zip && %s replay "
               "dist/sentiment.zip\n\n%s" % (
                   "\n".join("  %-9s %s" % c for c in COMMANDS), command, command, command, command, EXIT_STATUSES))
    parser.add_argument("--version", action="version", version="%s %s" % (command.split()[-1], __version__))
    return parser




def main(argv=None, command="codalab-bundles", folder=None, default_command=None):
    """Run a command. ``command`` is how the user called the tool (for help and messages); ``folder`` the
    competition folder that ``new``, ``build`` and ``score`` use unless told another (None: the current folder);
    ``default_command`` what runs when no command is given (None: print the help)."""
    how = Invocation(command, folder)
    argv = sys.argv[1:] if argv is None else list(argv)
    mains = {"new": new_main, "build": build_main, "validate": validate_main, "replay": replay_main,
             "migrate": migrate_main, "rescore": rescore_main, "publish": publish_main, "submit": submit_main,
             "score": score_main, "results": results_main}
    if argv and argv[0] in mains:
        return mains[argv[0]](argv[1:], how)
    if default_command and (not argv or argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        return mains[default_command](argv, how)
    parser = _top_parser(how.command)
    if not argv:
        parser.print_help()
        return 0
    if argv[0].startswith("-"):
        parser.parse_args(argv)  # --help, --version; anything else is an error
    parser.error("unknown command %r: choose one of %s" % (argv[0], ", ".join(name for name, _ in COMMANDS)))
