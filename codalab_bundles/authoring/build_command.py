"""``build``: its options, help and main, and what it prints of each task built."""
import argparse
import sys
from pathlib import Path

from .. import command_options as options
from . import build, new_task, taskdef

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
               % (command, command, options.EXIT_STATUSES))
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
