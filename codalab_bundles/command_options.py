"""What the commands share: how the tool was called (Invocation), the exit statuses, and the track options. The
options of the commands that run programs (extraction limits, Docker) are replay/replay_options.py; those of the
commands that talk to a Codabench site, site/site_options.py."""
import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Optional



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
