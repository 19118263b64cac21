"""Opening zips we did not make (bundles, submissions, the zips inside them) without trusting them.

Every entry is checked before anything is written: no name escaping the target (``../``, absolute, drive
letters), no symbolic link, no file/folder clash, no name the file system cannot hold. Sizes are bounded three
ways, because a zip's headers can lie: the declared total and entry count are checked first, and the bytes
actually inflated are counted while they are written, so a forged header stops at the limit too. One ``Budget``
can span several extractions (a submission and the zips nested in it), so nesting does not multiply the limits.
"""
import os
import shutil
import stat
import zipfile
from pathlib import PurePosixPath

MIB = 1024 * 1024
DEFAULT_MAX_BYTES = 1024 * MIB  # uncompressed, per zip and everything nested in it
DEFAULT_MAX_ENTRIES = 20000
DEFAULT_MAX_RATIO = 200  # deflate tops out near 1,000:1; real text and CSV compress 3-20:1
RATIO_FLOOR = 4 * MIB  # small entries may compress as well as they like: they cannot blow anything up
MAX_NAME_BYTES = 255  # one path component, as Linux and macOS file systems allow
MAX_PATH_BYTES = 1024
_CHUNK = 64 * 1024


class ZipRefused(Exception):
    """The zip is not one we will open; the message names the zip, the entry and the reason."""


class Limits(object):
    """How much a zip may hold once extracted (``max_bytes``, ``max_entries``) and how far one large entry may
    inflate (``max_ratio``, uncompressed/compressed, for entries above RATIO_FLOOR)."""

    def __init__(self, max_bytes=DEFAULT_MAX_BYTES, max_entries=DEFAULT_MAX_ENTRIES, max_ratio=DEFAULT_MAX_RATIO):
        self.max_bytes = int(max_bytes)
        self.max_entries = int(max_entries)
        self.max_ratio = float(max_ratio)

    def budget(self):
        return Budget(self)


class Budget(object):
    """What is left of the limits across the extractions of one source (a zip and the zips nested in it)."""

    def __init__(self, limits):
        self.limits = limits
        self.bytes = 0
        self.entries = 0

    def _bytes_message(self, source):
        return ("%s: more than %s once extracted (the limit; a zip bomb or a file too large for scoring)"
                % (source, size_text(self.limits.max_bytes)))

    def add_entries(self, count, source):
        self.entries += count
        if self.entries > self.limits.max_entries:
            raise ZipRefused("%s: more than %d entries (the limit)" % (source, self.limits.max_entries))

    def add_bytes(self, count, source):
        self.bytes += count
        if self.bytes > self.limits.max_bytes:
            raise ZipRefused(self._bytes_message(source))


def size_text(count):
    return "%d MiB" % (count // MIB) if count >= MIB and count % MIB == 0 else "%d bytes" % count


def open_archive(data_or_file, source):
    """A ``zipfile.ZipFile`` on bytes-like file or path; ZipRefused when it is not a zip."""
    try:
        return zipfile.ZipFile(data_or_file)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError):
        raise ZipRefused("%s is not a zip file" % source)


def entry_problem(info):
    """Why this entry must not be extracted, or None."""
    name = info.filename
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
        return "escapes the folder it is extracted into"
    if stat.S_ISLNK(info.external_attr >> 16):
        return "is a symbolic link"
    if "\x00" in name:
        return "has a NUL character in its name"
    if any(len(part.encode("utf-8")) > MAX_NAME_BYTES for part in path.parts):
        return "has a name part longer than %d bytes" % MAX_NAME_BYTES
    if len(name.encode("utf-8")) > MAX_PATH_BYTES:
        return "has a path longer than %d bytes" % MAX_PATH_BYTES
    return None


def _shown(name, limit=80):
    return repr(name if len(name) <= limit else name[:limit] + "...")


def check_archive(archive, source, limits, budget=None):
    """Check every entry's name and the declared sizes before extracting anything; returns the infos."""
    budget = budget if budget is not None else limits.budget()
    infos = archive.infolist()
    budget.add_entries(len(infos), source)
    files, folders = set(), set()
    declared = 0
    for info in infos:
        problem = entry_problem(info)
        if problem:
            raise ZipRefused("%s: zip entry %s %s" % (source, _shown(info.filename), problem))
        parts = PurePosixPath(info.filename.replace("\\", "/")).parts
        if not parts:
            continue
        (folders if info.is_dir() else files).add(parts)
        folders.update(parts[:i] for i in range(1, len(parts)))
        declared += info.file_size
        if (info.file_size > RATIO_FLOOR
                and info.file_size > limits.max_ratio * max(info.compress_size, 1)):
            raise ZipRefused("%s: zip entry %s inflates %d times (%s from %s; the limit is %d times)"
                             % (source, _shown(info.filename), info.file_size // max(info.compress_size, 1),
                                size_text(info.file_size), size_text(info.compress_size), limits.max_ratio))
    clash = sorted(files & folders)
    if clash:
        raise ZipRefused("%s: zip entry %s is both a file and a folder" % (source, _shown("/".join(clash[0]))))
    if budget.bytes + declared > limits.max_bytes:
        raise ZipRefused(budget._bytes_message(source))
    return infos


def read_member(archive, name, source, limits, budget=None):
    """The bytes of one entry, counted as they inflate (a forged header cannot make it larger than the limit)."""
    budget = budget if budget is not None else limits.budget()
    info = archive.getinfo(name)
    if budget.bytes + info.file_size > limits.max_bytes:
        raise ZipRefused(budget._bytes_message("%s/%s" % (source, name)))
    chunks = []
    for chunk in iter_member(archive, info, "%s/%s" % (source, name), budget):
        chunks.append(chunk)
    return b"".join(chunks)


def iter_member(archive, info, source, budget):
    """The entry's bytes in bounded chunks, each counted against ``budget``."""
    with archive.open(info) as handle:
        while True:
            chunk = handle.read(_CHUNK)
            if not chunk:
                return
            budget.add_bytes(len(chunk), source)
            yield chunk


def extract(archive, target, source, limits, budget=None):
    """Extract a checked archive into ``target`` (created if needed), within the budget."""
    budget = budget if budget is not None else limits.budget()
    infos = check_archive(archive, source, limits, budget)
    if not os.path.isdir(target):
        os.makedirs(target)
    for info in infos:
        parts = PurePosixPath(info.filename.replace("\\", "/")).parts
        if not parts:
            continue
        destination = os.path.join(target, *parts)
        if info.is_dir():
            if not os.path.isdir(destination):
                os.makedirs(destination)
            continue
        folder = os.path.dirname(destination)
        if not os.path.isdir(folder):
            os.makedirs(folder)
        with open(destination, "wb") as out:
            for chunk in iter_member(archive, info, source, budget):
                out.write(chunk)


def remove_tree(path):
    """Remove a folder we created; what a program left unremovable is not worth failing a report for."""
    shutil.rmtree(path, ignore_errors=True)
