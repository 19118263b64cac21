"""The signature every score output carries, so that a number can be traced to what produced it: the program, its
version and the SHA-256 of the gold it was scored against.

The gold's SHA-256 is that of the gold as given: for one file, the file's own SHA-256 (what ``sha256sum gold.csv``
prints); for a folder (the platform's ``input/ref``, an unzipped reference zip), the SHA-256 of the ``sha256sum``
listing of its files ("<hex>  <path>\\n" lines, paths relative to the folder with "/", sorted by path), leaving out
the public-gold marker, stray files (``__MACOSX``, ``.DS_Store``, ...) and files the builder derives from the gold
(e.g. recipe-mpr's ``.index``). A folder holding one gold file has that file's SHA-256, so the platform's run and a
two-file run on the same gold agree.
"""
import hashlib
import os
from collections import OrderedDict

_CHUNK = 1 << 20


def file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def gold_files(folder, ignored):
    """Relative paths ("/"-separated, sorted) of the files of ``folder`` that make up the gold; ``ignored(name)``
    is True for a file or folder name to leave out."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not ignored(d)]
        for name in files:
            if not ignored(name):
                found.append(os.path.relpath(os.path.join(root, name), folder).replace(os.sep, "/"))
    return sorted(found)


def gold_sha256(path, ignored=lambda name: False):
    """The SHA-256 of the gold at ``path`` (a file or a folder, see the module's docstring); None when there is
    no gold file."""
    if os.path.isfile(path):
        return file_sha256(path)
    names = gold_files(path, ignored) if os.path.isdir(path) else []
    if not names:
        return None
    if len(names) == 1:
        return file_sha256(os.path.join(path, names[0]))
    listing = u"".join(u"%s  %s\n" % (file_sha256(os.path.join(path, name)), name) for name in names)
    return hashlib.sha256(listing.encode("utf-8")).hexdigest()


def make(program, version, gold_hash):
    return OrderedDict([("program", program), ("version", version), ("gold_sha256", gold_hash)])


def text(signature, *settings):
    """One line, e.g. ``toxic-spans|version:0.4.0|gold_sha256:9f86...|bootstrap,unit:post,...``."""
    parts = [signature["program"], "version:%s" % signature["version"], "gold_sha256:%s" % signature["gold_sha256"]]
    return "|".join(parts + [s for s in settings if s])
