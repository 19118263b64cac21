"""``rescore``: its options, help and main."""
import argparse
import os
import sys

from .. import command_options as options
from .. import replay
from . import rescore

def rescore_main(argv, how):
    command = how.command
    parser = argparse.ArgumentParser(prog="%s rescore" % command,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     description="Score past submissions through a bundle's program as the Codabench "
                                     "worker would, and write the leaderboard (CSV and HTML).",
                                     epilog="examples:\n  %s rescore migrated.zip past-runs/ --phase 3 -o board.csv"
                                     "\n  %s rescore dist/my-task.zip runs/ --phase 2 --ci --samples 2000"
                                     "\n\n%s" % (command, command, options.EXIT_STATUSES))
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
    options.add_track_options(parser)
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
