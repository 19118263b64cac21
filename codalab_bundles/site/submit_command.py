"""``submit``: its options, help and main: one zip and its result, or a batch with its ledger; each compared with
its replay when asked."""
import argparse
import concurrent.futures
import json
import os
import sys

from .. import command_options as options
from .. import replay
from ..replay import replay_options
from ..platforms import fact_sheet
from . import batch, codabench_api, site_options, submit


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
    batch_options.add_argument("--resend-broken", action="store_true", help="a final submission whose details "
                               "the site cannot show (HTTP 500: a details row without a file, left by a dispatch the "
                               "site worker did not finish) is deleted and its zip sent again, once; without it, such "
                               "a submission is reported and the exit status is 1")
    batch_options.add_argument("--organization", type=int, metavar="ID", help="submit for this team (a Codabench "
                               "organization the account is a participant member of)")
    replay_options.add_docker_options(parser, "the replays of --expect-replay (a code submission's model in a container "
                                "without network, as on a worker with COMPETITION_CONTAINER_NETWORK_DISABLED)")
    fact_sheet.add_submit_options(parser)
    site_options.add_server_options(parser)
    args = parser.parse_intermixed_args(argv)
    args.executor = replay_options.executor_from(parser, args)
    if args.in_flight < 1:
        parser.error("--in-flight takes a number from 1 up")
    try:
        args.answers = fact_sheet.parse_answer_options(args.fact_sheet, args.answer)
    except fact_sheet.FactSheetError as exc:
        parser.error(str(exc))
    if len(args.submissions) > 1 or args.batch or args.ledger or args.again or args.rerun_stuck or \
            args.resend_broken or args.organization is not None:
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
            if result["status"] in submit.DONE and result["status"] != "Finished":  # the participant's message
                result["message"] = submit.first_line(batch.site_stderr(client, result["id"]))
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
                                   answers=args.answers, no_fact_sheet=args.no_fact_sheet,
                                   resend_broken=args.resend_broken)
    except (codabench_api.ApiError, submit.SubmitError, OSError) as exc:
        print("submit: %s" % exc, file=sys.stderr)
        return 2
    differ = 0
    if args.expect_replay:
        differ = _compare_with_replays(args.expect_replay, args.phase, result["entries"], args.tracks,
                                       args.executor)
        _ledger_replays(result, args.organization)
    if args.json:
        print(json.dumps({"account": result["account"], "ledger": result["ledger"],
                          "interrupted": result["interrupted"], "fact_sheet_answers": result.get("fact_sheet_answers"),
                          "submissions": [e.as_dict() for e in result["entries"]]}, sort_keys=True))
    else:
        print(batch.format_table(result))
        if args.expect_replay:
            print("the local replays give the same status, message and scores" if not differ else
                  "ERROR: %d submission(s) differ from their local replay (the differences are in each row's "
                  "replay field with --json, and above on stderr)" % differ)
    if result["interrupted"]:
        return 130
    return 0 if batch.all_finished(result) and not differ else 1


def _compare_with_replays(bundle, phase, entries, tracks=None, executor=None):
    """Replay every zip that reached a final status, and note each difference in its entry (entry.replay); the
    number of zips that differ. Failed ones compare their status and the participant's message (the first line of
    stderr, or the worker's own words when there is none: submit.differences); in a phase of several tasks, each
    task's run is compared."""
    def one(entry):
        replayed = replay.replay(bundle, entry.path, phase, platform="codabench", tracks=tracks, executor=executor)
        local = {"status": replayed["status"], "scores": replayed["scores"] if entry.status == "Finished" else {},
                 "tasks": replayed.get("tasks"), "stderr": replayed["stderr"], "exit_code": replayed["exit_code"],
                 "reason": replayed["reason"], "site_details": replayed.get("site_details"),
                 "prediction": replayed.get("prediction")}
        site = {"status": entry.status, "scores": entry.scores if entry.status == "Finished" else {},
                "tracks": entry.tracks, "message": entry.said, "details": entry.details}
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


def _ledger_replays(result, organization):
    """A line in the batch's ledger for each zip compared with its replay: what differs, or [] for nothing."""
    ledger = batch.Ledger(result["ledger"])
    for entry in result["entries"]:
        if entry.same_as is None and entry.replay is not None:
            ledger.write(account=result["account"], organization=organization, sha256=entry.sha256, zip=entry.path,
                         submission=entry.id, stage="compared with the replay", replay=entry.replay)
