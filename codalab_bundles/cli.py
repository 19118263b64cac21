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
import sys

from . import __version__
from . import command_options as options
from .authoring.build_command import build_main
from .authoring.new_command import new_main
from .command_options import Invocation
from .migrate.migrate_command import migrate_main
from .offline.rescore_command import rescore_main
from .offline.score_command import score_main
from .replay.replay_command import replay_main
from .results.results_command import results_main
from .site.publish_command import publish_main
from .site.submit_command import submit_main
from .validate.validate_command import validate_main


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
