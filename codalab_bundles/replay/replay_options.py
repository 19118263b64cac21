"""The options of the commands that open zips and run programs (replay, validate, migrate, submit's replays): the
extraction limits and Docker, each with the value it turns into."""
from ..zips import safe_zip
from .executors import DockerExecutor


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
    return DockerExecutor(args.image, args.network) if args.docker else None
