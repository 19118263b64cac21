"""``publish``: its options, help and main (a new competition, or --update of a live one)."""
import argparse
import json
import sys
import zipfile

from .. import command_options as options
from . import codabench_api, live_update, publish, site_options

def publish_main(argv, how):
    command = how.command
    parser = argparse.ArgumentParser(
        prog="%s publish" % command, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Upload a bundle to a Codabench site through its API, wait until the competition exists, and "
                    "check that the phases the site stored are the bundle's. The API token is read from $%s or %s "
                    "and never printed." % (codabench_api.TOKEN_VARIABLE, codabench_api.CONFIG),
        epilog="example:\n  CODABENCH_TOKEN=... %s publish dist/sentiment.zip --server https://www.codabench.org\n\n%s"
               % (command, options.EXIT_STATUSES))
    parser.add_argument("bundle", help="the Codabench bundle (e.g. dist/sentiment.zip)")
    parser.add_argument("--update", type=int, metavar="ID", help="compare with the live competition ID instead of "
                        "making a new one (a re-upload makes a new competition), and show what differs")
    parser.add_argument("--apply", action="store_true", help="with --update: make the changes that can be made "
                        "safely (the others are listed, with why)")
    site_options.add_server_options(parser)
    args = parser.parse_intermixed_args(argv)
    if args.apply and args.update is None:
        parser.error("--apply goes with --update ID")
    if args.update is not None:
        return _update(parser, args)
    try:
        client = site_options.client_from(parser, args)
        result = publish.publish(client, args.bundle, progress=site_options.progress)
    except (codabench_api.ApiError, publish.PublishError, OSError, zipfile.BadZipFile) as exc:
        print("publish: %s" % exc, file=sys.stderr)
        return 130 if isinstance(exc, publish.Interrupted) else 2
    if args.json:
        print(json.dumps(dict(result, phases=[[n, str(a), b and str(b)] for n, a, b in result["phases"]]),
                         sort_keys=True))
    else:
        print(publish.format_published(result))
    return 1 if result["differences"] else 0


def _update(parser, args):
    try:
        client = site_options.client_from(parser, args)
        wanted = live_update.bundle_view(args.bundle)
        live = client.call("reading competition %s" % args.update, "GET", "/api/competitions/%s/" % args.update)
        found = live_update.changes(wanted, live_update.live_view(live), args.update)
        applied = live_update.apply(client, found) if args.apply else None
    except (codabench_api.ApiError, OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        print("publish --update: %s" % exc, file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"competition": args.update, "changes": [c.as_dict() for c in found],
                          "applied": applied is not None}, sort_keys=True))
    else:
        print(live_update.format_changes(args.update, found, applied))
    refused = [c for c in found if c.refused]
    return 1 if refused or (found and not args.apply) else 0
