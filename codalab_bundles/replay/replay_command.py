"""``replay``: its options, help and main."""
import argparse
import json
import os
import sys
import zipfile

from .. import command_options as options
from .. import replay
from . import replay_options


def replay_main(argv, how):
    command = how.command
    parser = argparse.ArgumentParser(
        prog="%s replay" % command, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Replay a bundle's scoring step as the platform's worker would (for a code submission, "
                    "Codabench's prediction step first: the ingestion program or the submission's own command).",
        epilog="example:\n  %s replay dist/sentiment.zip my-run.zip --phase 2 --docker\n\n%s"
               % (command, options.EXIT_STATUSES))
    parser.add_argument("bundle", help="a competition bundle zip (e.g. dist/toxic-spans.zip)")
    parser.add_argument("submission", nargs="?", help="a submission zip (default: the starting kit's sample)")
    parser.add_argument("--phase", type=int, help="phase number (default: the first phase)")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object on the last line")
    parser.add_argument("--keep", action="store_true", help="keep the run directory and print its path")
    parser.add_argument("--platform", choices=sorted(replay.WORKERS), default="codabench",
                        help="the worker to emulate (default: codabench; codalab: the v1.5 worker)")
    parser.add_argument("--tracks", type=options.track_names, metavar="NAME[,NAME]",
                        help="a phase of several tasks (tracks): run only these tasks, as a participant choosing "
                        "them (default: every task of the phase)")
    replay_options.add_docker_options(parser, "the program")
    replay_options.add_limit_options(parser)
    args = parser.parse_intermixed_args(argv)  # the submission may come after the options
    limits = replay_options.limits_from(parser, args)
    executor = replay_options.executor_from(parser, args)
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
