"""The rules a platform's import does not see: each scoring program's metadata and command (a command that needs a
shell, a file it runs that is not there), and a replay of each phase's starting-kit sample submission, whose scores
must fill the leaderboard's columns. Their errors are accepted by the import (Finding.accepted): the competition is
created, and its submissions fail."""
from __future__ import annotations

import io
import re
import zipfile

import yaml

from .. import replay as replays
from ..zips import safe_zip
from .exposure_rules import expected_empty
from .findings import Context
from .v15_rules import v1_phases

_SHELL = re.compile(r"[|&;<>`\"'*?~()]|\$(?!(program|input|output|tmp|shared|predictions|hidden|ingestion_program|"
                    r"submission_program)\b)")


def check_program(ctx: Context, platform: str, name: str, where: str) -> None:
    """The scoring program zip ``name``: a metadata file the platform reads, with a command that runs without a
    shell and names files that are in the zip."""
    if not isinstance(name, str) or not name.endswith(".zip") or name not in ctx.names:
        return
    try:
        program = safe_zip.open_archive(io.BytesIO(ctx.read(name)), name)
        safe_zip.check_archive(program, name, ctx.limits)
    except safe_zip.ZipRefused as exc:
        ctx.add("error", platform, "program", where, str(exc), "zip the program's files, within the limits")
        return
    names = [n for n in program.namelist() if not n.startswith("__MACOSX/")]
    metadata_names = [n for n in names if n.rsplit("/", 1)[-1] in ("metadata", "metadata.yaml")]
    at_root = [n for n in metadata_names if "/" not in n]
    if not metadata_names:
        ctx.add("error", platform, "program", where, "%s has no metadata file: 'Program command is not "
                "specified.'" % name, "add a file named metadata with command: python3 $program/evaluate.py "
                "$input $output")
        return
    if not at_root:
        severity = "error" if platform == "codabench" else "warning"
        ctx.add(severity, platform, "program", where, "%s keeps its files in a folder (%s): CodaLab promotes it, "
                "Codabench does not" % (name, metadata_names[0]), "zip the files themselves, not their folder")
    chosen = sorted(metadata_names, key=lambda n: (n.count("/"), n.endswith(".yaml") != (platform == "codabench")))[0]
    if platform == "codalab" and chosen.endswith(".yaml"):
        plain = [n for n in metadata_names if n.endswith("/metadata") or n == "metadata"]
        if not plain:
            ctx.add("error", platform, "program", where, "CodaLab reads only a file named metadata, not "
                    "metadata.yaml", "rename it to metadata")
            return
        chosen = plain[0]
    try:
        metadata_data = safe_zip.read_member(program, chosen, name, ctx.limits)
        metadata = yaml.safe_load(metadata_data)
    except safe_zip.ZipRefused as exc:
        ctx.add("error", platform, "program", where, str(exc), None)
        return
    except yaml.YAMLError as exc:
        ctx.add("error", platform, "program", where, "%s/%s is not YAML: %s" % (name, chosen, exc), None)
        return
    if not isinstance(metadata, dict) or not metadata.get("command"):
        ctx.add("error", platform, "program", where, "%s/%s has no command" % (name, chosen),
                "write command: python3 $program/evaluate.py $input $output")
        return
    extra = sorted(set(metadata) - {"command", "description"})
    if extra and platform == "codalab":
        ctx.add("error", platform, "program", where, "%s/%s has keys %s: the v1.5 worker downloads every other "
                "string value as a URL" % (name, chosen, ", ".join(extra)), "keep only command (and description)")
    commands = metadata["command"] if isinstance(metadata["command"], list) else [metadata["command"]]
    prefix = chosen.rsplit("/", 1)[0] + "/" if "/" in chosen else ""
    for command in commands:
        command = str(command)
        if _SHELL.search(command) or "  " in command or command != command.strip():
            ctx.add("error", platform, "program", where, "command %r needs a shell, but no shell runs it (v1.5 "
                    "splits on single spaces; Codabench splits like a shell but runs no shell)" % command,
                    "one program with plain arguments separated by single spaces; no pipes, redirections, "
                    "quotes or variables other than $program $input $output $tmp $shared")
        for token in command.split(" "):
            if token.startswith("$program/") and prefix + token[len("$program/"):] not in names:
                ctx.add("error", platform, "program", where, "the command runs %s, which is not in %s"
                        % (token, name), "fix the file name in the command or add the file")


def programs(ctx: Context, platform: str) -> None:
    """check_program on each distinct scoring program."""
    if ctx.version == "2":
        seen = set()
        for i, task in enumerate(ctx.spec.get("tasks") or []):
            if isinstance(task, dict) and task.get("scoring_program") not in seen:
                seen.add(task.get("scoring_program"))
                check_program(ctx, platform, task.get("scoring_program"), "tasks.%d.scoring_program" % i)
    else:
        seen = set()
        for key, phase in v1_phases(ctx):
            name = phase.get("scoring_program")
            if name not in seen:
                seen.add(name)
                check_program(ctx, platform, name, "phases.%s.scoring_program" % key)


def sample_replays(ctx: Context, platform: str) -> None:
    """Each phase's starting-kit sample submission replayed as the platform runs it: a failure is an error, columns
    its scores leave empty a warning."""
    try:
        bundle = replays.Bundle(ctx.path, platform, ctx.limits)
    except replays.ReplayError as exc:
        ctx.add("error", platform, "replay", "(bundle)", "the sample submissions cannot be replayed: %s" % exc,
                None)
        return
    seen = set()
    computed = bundle.columns()[1]
    for phase in bundle.phases:
        key = (phase.scoring_program, phase.reference_data, phase.starting_kit)
        if key in seen or not phase.starting_kit:
            continue
        seen.add(key)
        where = "phase %s (%s)" % (phase.number, phase.label)
        try:
            if bundle.sample_submission(phase) is None:
                ctx.add("note", platform, "replay", where, "the starting kit has no sample_submission.zip to replay")
                continue
            report = replays.replay(ctx.path, None, phase.number, platform=platform, limits=ctx.limits,
                                    executor=ctx.executor)
        except (replays.ReplayError, zipfile.BadZipFile, OSError) as exc:
            ctx.add("error", platform, "replay", where, "the scoring step could not run: %s" % exc, None)
            continue
        if report["status"] != "Finished":
            ctx.add("error", platform, "replay", where, "the starting kit's sample submission fails (run with %s): %s; "
                    "stderr: %s" % (replays.ran_with(ctx.executor), report["reason"], report["stderr"].strip()[-300:]),
                    "fix the scoring program or the kit%s" % ("" if ctx.executor else "; or check it in the "
                                                              "platform's image with --docker"))
            continue
        empty = [key for key in report["columns_without_score"] if key not in computed]
        by_design = expected_empty(ctx, phase.reference_data, empty, bundle.columns()[0][0]) if ctx.version == "2" \
            else set()  # public/private items and blind phases (exposure_rules)
        empty = [key for key in empty if key not in by_design]
        if empty:  # a computed column is filled by the site from the others
            ctx.add("warning", platform, "replay", where, "the sample submission's scores leave columns %s empty"
                    % ", ".join(empty), "write these keys, or remove the columns")
        if report["keys_without_column"]:
            ctx.add("note", platform, "replay", where, "score keys %s match no column and are dropped"
                    % ", ".join(report["keys_without_column"]))
