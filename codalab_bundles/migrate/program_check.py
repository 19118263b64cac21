"""An old CodaLab scoring program, checked and adapted for Codabench before anyone submits.

- ``syntax_errors``: every .py compiled with the running Python 3 (Codabench's default image runs Python 3.7), so
  Python 2 code (``print "x"``) is found with its file and line.
- ``reroot``: CodaLab promoted a single folder holding ``metadata``; Codabench extracts the zip as it is, so the
  folder's files are moved to the zip root.
- ``wrap_scores``: the unchanged program run by legacy_scores_wrapper.py, which gives Codabench a scores.json read
  with CodaLab's rules and removes an output/metadata the program wrote.
"""
import io
import zipfile
from pathlib import Path

import yaml

from ..zips import pack

WRAPPER = Path(__file__).resolve().with_name("legacy_scores_wrapper.py")
WRAPPER_NAME = "legacy_scores_wrapper.py"
METADATA_NAMES = ("metadata.yaml", "metadata")  # the order Codabench's worker looks for them


class ProgramError(Exception):
    """The program zip cannot be read or adapted; the message says why."""


def entries(data, source):
    """[(name, bytes)] of a program zip, directories and macOS resource forks left out."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return [(info.filename, archive.read(info)) for info in archive.infolist()
                    if not info.is_dir() and not info.filename.startswith("__MACOSX/")]
    except zipfile.BadZipFile:
        raise ProgramError("%s is not a zip file" % source)


def syntax_errors(files):
    """[(file, line, message, source line)] for the .py files Python 3 cannot compile."""
    found = []
    for name, data in files:
        if not name.endswith(".py"):
            continue
        try:
            compile(data, name, "exec", dont_inherit=True)
        except SyntaxError as exc:
            found.append((name, exc.lineno, exc.msg, (exc.text or "").strip()))
        except ValueError as exc:  # null bytes
            found.append((name, None, str(exc), ""))
    return found


def reroot(files):
    """(files, folder): when no metadata is at the root but one folder holds it, that folder's files at the root
    (CodaLab's promotion); else (files, None)."""
    names = [name for name, _ in files]
    if any(n in METADATA_NAMES for n in names):
        return files, None
    holders = sorted(set(n.rsplit("/", 1)[0] for n in names if "/" in n and n.rsplit("/", 1)[1] == "metadata"))
    if not holders:
        return files, None
    folder = min(holders, key=lambda h: (h.count("/"), h)) + "/"
    return [(n[len(folder):], d) for n, d in files if n.startswith(folder)], folder.rstrip("/")


def metadata(files):
    """(file name, parsed mapping) of the metadata Codabench reads, or (None, None)."""
    table = dict(files)
    for name in METADATA_NAMES:
        if name in table:
            try:
                data = yaml.safe_load(table[name].decode("utf-8", "replace"))
            except yaml.YAMLError:
                data = None
            return name, data if isinstance(data, dict) else {}
    return None, None


def wrap_scores(files):
    """The program's files with the wrapper added and a metadata whose command runs the old one through it.

    Raises ProgramError when there is no single command string to wrap."""
    name, meta = metadata(files)
    command = (meta or {}).get("command")
    if not isinstance(command, str) or not command.strip():
        raise ProgramError("its metadata has no single command string to wrap (%r)" % (command,))
    if any(n == WRAPPER_NAME for n, _ in files):
        return files  # already wrapped
    new_meta = dict((k, v) for k, v in meta.items() if k != "command")
    new_meta = dict([("command", "python3 $program/%s $output -- %s" % (WRAPPER_NAME, command.strip()))]
                    + sorted(new_meta.items()))
    kept = [(n, d) for n, d in files if n not in METADATA_NAMES]
    text = yaml.safe_dump(new_meta, default_flow_style=False, sort_keys=False, width=1000)
    return sorted(kept + [("metadata", text.encode("utf-8")), (WRAPPER_NAME, WRAPPER.read_bytes())])


def zipped(files):
    return pack.zip_entries(files)
