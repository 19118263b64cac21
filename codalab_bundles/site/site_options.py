"""The options of the commands that talk to a Codabench site (--server, --allow-http, --json), the client they
make, and the progress lines those commands print on stderr."""
import os
import sys

from . import codabench_api


def client_from(parser, args):
    server = args.server or os.environ.get(codabench_api.SERVER_VARIABLE)
    if not server:
        parser.error("give the site with --server URL (or $%s)" % codabench_api.SERVER_VARIABLE)
    token, where = codabench_api.read_token(server)
    warning = codabench_api.token_file_warning(where) if where == codabench_api.CONFIG else None
    if warning:
        print(warning, file=sys.stderr)
    return codabench_api.Client(server, token, allow_http=args.allow_http)


def add_server_options(parser):
    parser.add_argument("--server", help="the Codabench site, e.g. https://www.codabench.org (default: $%s)"
                        % codabench_api.SERVER_VARIABLE)
    parser.add_argument("--allow-http", action="store_true", help="talk plain http to a site that is not this "
                        "machine (the token then crosses the network unencrypted); https, or http to 127.0.0.1, "
                        "need no flag")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")


def progress(text):
    print(text, file=sys.stderr, flush=True)
