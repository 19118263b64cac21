"""Deterministic zip files: the same inputs give the same bytes (fixed times, modes and entry order)."""
from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path
from typing import Iterable

# 1980-01-01, the earliest time a zip entry can hold: no build time leaks into the bytes.
_EPOCH = (1980, 1, 1, 0, 0, 0)
_SKIP_DIRS = {"__pycache__", ".pytest_cache", ".git"}
_SKIP_SUFFIXES = (".pyc", ".pyo")


def _info(name):
    info = zipfile.ZipInfo(name, date_time=_EPOCH)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o100644 & 0xFFFF) << 16  # a regular file, rw-r--r--
    info.create_system = 3  # Unix, so the mode above is honoured when extracting
    return info


def zip_entries(entries: Iterable[tuple[str, bytes]]) -> bytes:
    """Bytes of a zip holding ``entries``: (name, bytes) pairs, written in the given order."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries:
            archive.writestr(_info(name), data, compresslevel=9)
    return buffer.getvalue()


def directory_entries(directory: str | Path, prefix: str = "") -> list[tuple[str, bytes]]:
    """(name, bytes) for every file under ``directory``, sorted by name, skipping caches."""
    directory = Path(directory)
    found = []
    for root, dirs, files in os.walk(str(directory)):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
        for name in files:
            if name.endswith(_SKIP_SUFFIXES):
                continue
            path = Path(root) / name
            found.append((prefix + path.relative_to(directory).as_posix(), path.read_bytes()))
    return sorted(found)


def zip_directory(directory: str | Path, prefix: str = "") -> bytes:
    return zip_entries(directory_entries(directory, prefix))
