"""``score``: its options, help and main; evaluate.py's own options are passed on to it."""
import argparse
import sys

from . import two_files

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
