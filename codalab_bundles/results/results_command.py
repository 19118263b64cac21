"""``results``: its options, help and main."""
import argparse
import json
import os
import sys
import tempfile

from .. import command_options as options
from .. import replay
from ..offline import rescore
from ..site import codabench_api, site_options
from . import from_site, published, significance, systems
from . import run as results_run
from . import runs as results_runs

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
               "dist/my-task.zip --phase 3 --by a_f1 -o paper-a/\n\n%s" % (command, command, options.EXIT_STATUSES))
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
    options.add_track_options(parser, from_site=True)
    site_options.add_server_options(parser)
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
                client = site_options.client_from(parser, args)
                site = from_site.read_phase(client, args.competition, args.phase or 1, args.cache, args.bundle,
                                            progress=site_options.progress)
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
