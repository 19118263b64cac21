"""``migrate``: its options, help and main, one bundle or several into a folder with a summary."""
import argparse
import csv
import json
import os
import sys

from .. import migrate
from ..replay import replay_options

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
    replay_options.add_docker_options(parser, "the scoring program's check")
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
                   executor=replay_options.executor_from(parser, args), rank_by=args.rank_by)
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
