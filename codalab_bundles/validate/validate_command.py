"""``validate``: its options, help and main."""
import argparse
import json
import os
import sys

from .. import command_options as options
from .. import validate
from ..replay import replay_options

def validate_main(argv, how):
    command = how.command
    parser = argparse.ArgumentParser(
        prog="%s validate" % command, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Check a competition bundle before uploading it.",
        epilog="example:\n  %s validate dist/*.zip --quiet\n\n%s" % (command, options.EXIT_STATUSES))
    parser.add_argument("bundle", nargs="+", help="competition bundle zip(s), ours or anyone's")
    parser.add_argument("--platform", choices=("codalab", "codabench", "both"),
                        help="where it will be uploaded (default: codabench; both: also self-hosted CodaLab v1.5)")
    parser.add_argument("--no-replay", action="store_true", help="do not replay the starting kits' samples")
    parser.add_argument("--json", action="store_true", help="print the findings as one JSON object")
    parser.add_argument("--quiet", action="store_true", help="print only the bundles with something to fix, and "
                        "the summary")
    replay_options.add_docker_options(parser, "the starting kits' samples")
    replay_options.add_limit_options(parser)
    args = parser.parse_intermixed_args(argv)
    limits = replay_options.limits_from(parser, args)
    executor = replay_options.executor_from(parser, args)
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
