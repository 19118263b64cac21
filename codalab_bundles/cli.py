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

Exit statuses (command_options.EXIT_STATUSES, printed by --help): 0 done (built, valid, Finished, ready to upload); 1 done,
with something for you to fix (a task not built, findings, a failed submission, manual steps); 2 the command could
not run (bad arguments, an input that cannot be read).
"""
import argparse
import concurrent.futures
import json
import os
import sys
import zipfile

from . import __version__, replay
from . import command_options as options
from .authoring.build_command import build_main
from .authoring.new_command import new_main
from .command_options import Invocation
from .migrate.migrate_command import migrate_main
from .offline.rescore_command import rescore_main
from .offline.score_command import score_main
from .platforms import fact_sheet
from .results.results_command import results_main
from .site import batch, codabench_api, site_options, submit
from .site.publish_command import publish_main
from .validate.validate_command import validate_main


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
    options.add_docker_options(parser, "the program")
    options.add_limit_options(parser)
    args = parser.parse_intermixed_args(argv)  # the submission may come after the options
    limits = options.limits_from(parser, args)
    executor = options.executor_from(parser, args)
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
               % (command, command, options.EXIT_STATUSES))
    parser.add_argument("submissions", nargs="+", metavar="SUBMISSION", help="the submission zip(s)")
    parser.add_argument("--competition", type=int, required=True, help="the competition's id (publish prints it)")
    parser.add_argument("--phase", type=int, default=1, help="the phase's number, 1 for the first (default: 1)")
    parser.add_argument("--expect-replay", metavar="BUNDLE", help="replay each submission through this bundle "
                        "under the Codabench worker and compare")
    parser.add_argument("--even-if-closed", action="store_true", help="submit to a phase that is not open (the "
                        "API takes it from the competition's organizer: a rehearsal before the dates)")
    parser.add_argument("--tracks", type=options.track_names, metavar="NAME[,NAME]", help="a phase of several tasks (tracks): "
                        "submit to these tasks only, as a participant choosing them (default: every task)")
    parser.add_argument("--timeout", type=int, metavar="SECONDS", help="stop waiting for a submission after this "
                        "long and report its last status, what it means and what to do (default: the phase's "
                        "time limit + the 20 minutes Codabench gives a run + 10 minutes of queue)")
    options.add_docker_options(parser, "the replays of --expect-replay (a code submission's model in a container "
                                "without network, as on a worker with COMPETITION_CONTAINER_NETWORK_DISABLED)")
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
    site_options.add_server_options(parser)
    args = parser.parse_intermixed_args(argv)
    args.executor = options.executor_from(parser, args)
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
        client = site_options.client_from(parser, args)
        result = submit.submit(client, args.submissions[0], args.competition, args.phase, progress=site_options.progress,
                               even_if_closed=args.even_if_closed, tracks=args.tracks, answers=args.answers,
                               no_fact_sheet=args.no_fact_sheet,
                               **({} if args.timeout is None else {"timeout": args.timeout}))
        diffs = None
        if args.expect_replay:
            replayed = replay.replay(args.expect_replay, args.submissions[0], args.phase, platform="codabench",
                                     tracks=args.tracks, executor=args.executor)
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
        client = site_options.client_from(parser, args)
        result = batch.submit_many(client, args.submissions, args.competition, args.phase, in_flight=args.in_flight,
                                   ledger=args.ledger, timeout=args.timeout, again=args.again,
                                   organization=args.organization, even_if_closed=args.even_if_closed,
                                   progress=site_options.progress, rerun_stuck=args.rerun_stuck, tracks=args.tracks,
                                   answers=args.answers, no_fact_sheet=args.no_fact_sheet)
    except (codabench_api.ApiError, submit.SubmitError, OSError) as exc:
        print("submit: %s" % exc, file=sys.stderr)
        return 2
    differ = 0
    if args.expect_replay:
        differ = _compare_with_replays(args.expect_replay, args.phase, result["entries"], args.tracks,
                                       args.executor)
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


def _compare_with_replays(bundle, phase, entries, tracks=None, executor=None):
    """Replay every zip that reached a final status, and note each difference in its entry (entry.replay); the
    number of zips that differ. Failed ones compare their status (the message is the program's own on both); in a
    phase of several tasks, each task's run is compared (submit.differences)."""
    def one(entry):
        replayed = replay.replay(bundle, entry.path, phase, platform="codabench", tracks=tracks, executor=executor)
        local = {"status": replayed["status"], "scores": replayed["scores"] if entry.status == "Finished" else {},
                 "tasks": replayed.get("tasks"), "site_details": replayed.get("site_details"),
                 "prediction": replayed.get("prediction")}
        site = {"status": entry.status, "scores": entry.scores if entry.status == "Finished" else {},
                "tracks": entry.tracks, "details": entry.details}
        return submit.differences(site, local)

    differ = 0
    final = [e for e in entries if e.status in submit.DONE and not e.stuck and e.same_as is None]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        for entry, diffs in zip(final, pool.map(one, final)):
            entry.replay = diffs
            if diffs:
                differ += 1
                site_options.progress("%s (submission %s): %s" % (entry.zip, entry.id, "; ".join(diffs)))
    replayed = dict((e.sha256, e.replay) for e in final)
    for entry in entries:  # a file given twice is replayed once
        if entry.same_as is not None:
            entry.replay = replayed.get(entry.sha256)
    return differ


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
                   "\n".join("  %-9s %s" % c for c in COMMANDS), command, command, command, command, options.EXIT_STATUSES))
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
