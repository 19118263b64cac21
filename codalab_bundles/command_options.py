"""What the commands share: how the tool was called (Invocation), the exit statuses, and the options several
commands take (extraction limits, Docker, tracks), each with the value it turns into. The Codabench site's options
are site/site_options.py."""
import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from . import replay
from .zips import safe_zip


@dataclass(frozen=True)
class Invocation:
    """How the tool was called, passed to every command: the name users typed (in help, examples and next steps:
    codalab-bundles, or python3 build_bundle.py in this repository) and the competition folder that new, build and
    score use unless told another (None: the current folder)."""
    command: str = "codalab-bundles"
    folder: Optional[Path] = None


EXIT_STATUSES = ("exit status: 0 done (built, valid, Finished, ready to upload); 1 done, with something "
                 "for you to fix (a task not built, findings, a failed submission, manual steps); 2 the "
                 "command could not run (bad arguments, an input that cannot be read)")


def add_limit_options(parser):
    group = parser.add_argument_group("extraction limits (every zip opened: the bundle, the submission, the zips "
                                      "inside them)")
    group.add_argument("--max-extract-mb", type=int, default=safe_zip.DEFAULT_MAX_BYTES // safe_zip.MIB,
                       metavar="MB", help="most megabytes (MiB) one zip may extract to, nested zips included "
                       "(default: %(default)s)")
    group.add_argument("--max-entries", type=int, default=safe_zip.DEFAULT_MAX_ENTRIES, metavar="N",
                       help="most entries one zip may hold, nested zips included (default: %(default)s)")
    group.add_argument("--max-ratio", type=int, default=safe_zip.DEFAULT_MAX_RATIO, metavar="N",
                       help="most an entry above %d MiB may inflate, uncompressed/compressed (default: "
                       "%%(default)s)" % (safe_zip.RATIO_FLOOR // safe_zip.MIB))


def limits_from(parser, args):
    if min(args.max_extract_mb, args.max_entries, args.max_ratio) <= 0:
        parser.error("--max-extract-mb, --max-entries and --max-ratio must be positive")
    return safe_zip.Limits(args.max_extract_mb * safe_zip.MIB, args.max_entries, args.max_ratio)


def add_docker_options(parser, what):
    parser.add_argument("--docker", action="store_true", help="run %s in Docker as the worker does (default: with "
                        "this machine's python3)" % what)
    parser.add_argument("--image", help="with --docker: this image instead of the bundle's (e.g. the offline "
                        "stand-in codalab-replay/standin:bullseye)")
    parser.add_argument("--network", action="store_true",
                        help="with --docker: leave the container's network on, as the real workers do")


def executor_from(parser, args):
    if (args.image or args.network) and not args.docker:
        parser.error("--image and --network go with --docker")
    return replay.DockerExecutor(args.image, args.network) if args.docker else None


def track_names(text):
    """NAME[,NAME...]: the tracks (Codabench tasks) named."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise argparse.ArgumentTypeError("name at least one track")
    return names


def add_track_options(parser, from_site=False):
    parser.add_argument("--tracks", type=track_names, metavar="NAME[,NAME]",
                        help="a phase of several tasks (tracks): score every submission on these tasks only, as a "
                        "participant choosing them (default: every task of the phase%s)"
                        % ("; from the site: the tasks each submission was made to" if from_site else ""))
    parser.add_argument("--avg-rank", action="append", default=[], metavar="KEY=COL,COL",
                        help="add a column KEY: each row's mean rank on the columns named (tied rows share the mean "
                        "of their places), which the pinned Codabench cannot compute; repeatable")
