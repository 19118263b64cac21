"""The order in which CodaLab, running on Python 2.7 with plain dicts, iterated a YAML mapping.

CodaLab Competitions created a competition's leaderboard columns (and column groups) by iterating the mappings its
YAML loader returned (apps/web/models.py, CompetitionDefBundle.unpack), and without ``selection_default`` a phase's
table was ranked by the first column created. Until its commit 3c3cc0f0a (1 October 2014, "fixes page sorting on
creation issue #685") the unpacker loaded YAML into plain dicts, so on Python 2.7 that order was the dict's: its
hash table's slot order, which depends on the keys' hashes and on the insertion history, not on the file. From that
commit on (in Python 2.7 as later in Python 3) it loaded ``OrderedDict``s, the file's order.

This module reproduces Python 2.7's order exactly, in Python 3, for the dicts PyYAML (3.x on Python 2) builds:
``construct_mapping`` fills a dict key by key in the file's order, and ``construct_yaml_map`` copies it into a new
dict with ``update``. Python 2.7's string hash is deterministic unless the interpreter ran with ``-R`` (hash
randomisation, off by default), and its dict (Objects/dictobject.c) probes, fills and resizes deterministically,
so the order is a function of the keys alone. Strings are hashed as Python 2.7 on a 64-bit build with a UCS-4
``unicode`` (Linux builds, the ``python:2.7`` Docker image CodaLab used): PyYAML gives ``str`` for ASCII text and
``unicode`` otherwise, whose hashes agree on ASCII. Integers and booleans hash to themselves; any other key (None,
floats, dates) has no reproducible order, and ``None`` is returned.
"""
from __future__ import annotations

MINSIZE = 8          # PyDict_MINSIZE
PERTURB_SHIFT = 5
MASK64 = (1 << 64) - 1


def _signed(value: int) -> int:
    value &= MASK64
    return value - (1 << 64) if value >> 63 else value


def _text_hash(units: list[int]) -> int:
    """string_hash / unicode_hash of Python 2.7 (64-bit C long, no hash randomisation)."""
    if not units:
        return 0
    x = units[0] << 7
    for unit in units:
        x = (1000003 * x) ^ unit
        x &= MASK64
    x ^= len(units)
    x = _signed(x)
    return -2 if x == -1 else x


def python27_hash(key) -> int | None:
    """hash(key) in Python 2.7 for the keys PyYAML makes from a mapping's plain scalars; None for others."""
    if isinstance(key, bool) or isinstance(key, int):
        value = int(key)
        if not -(1 << 63) <= value < (1 << 63):
            return None  # a Python 2 long beyond a C long hashes differently; not met in bundles
        return -2 if value == -1 else value
    if isinstance(key, str):
        return _text_hash([ord(c) for c in key])  # ASCII str and UCS-4 unicode hash alike
    return None


class _Dict:
    """A Python 2.7 dict's table: its slots (key or None), how many are filled, and its mask."""

    def __init__(self) -> None:
        self.slots: list = [None] * MINSIZE
        self.hashes: list = [None] * MINSIZE
        self.used = 0

    @property
    def mask(self) -> int:
        return len(self.slots) - 1

    def _free_slot(self, hashed: int) -> int:
        """The slot lookdict gives a new key (no deletions happen here, so there are no dummies)."""
        perturb = hashed & MASK64
        i = perturb & self.mask
        slot = i
        while self.slots[slot] is not None:
            i = ((i << 2) + i + perturb + 1) & MASK64
            slot = i & self.mask
            perturb >>= PERTURB_SHIFT
        return slot

    def _find(self, key, hashed: int) -> int | None:
        perturb = hashed & MASK64
        i = perturb & self.mask
        slot = i
        while self.slots[slot] is not None:
            if self.hashes[slot] == hashed and self.slots[slot] == key:
                return slot
            i = ((i << 2) + i + perturb + 1) & MASK64
            slot = i & self.mask
            perturb >>= PERTURB_SHIFT
        return None

    def _put(self, key, hashed: int) -> bool:
        """insertdict without resizing; whether the key was new."""
        if self._find(key, hashed) is not None:
            return False
        slot = self._free_slot(hashed)
        self.slots[slot], self.hashes[slot] = key, hashed
        self.used += 1
        return True

    def resize(self, minused: int) -> None:
        """dictresize: the smallest power of two above minused (at least 8), old entries re-inserted in slot
        order."""
        size = MINSIZE
        while size <= minused:
            size <<= 1
        old = [(k, h) for k, h in zip(self.slots, self.hashes) if k is not None]
        self.slots, self.hashes, self.used = [None] * size, [None] * size, 0
        for key, hashed in old:
            self._put(key, hashed)

    def setitem(self, key, hashed: int) -> None:
        """PyDict_SetItem: insert, then grow when the table is two thirds full."""
        if self._put(key, hashed) and self.used * 3 >= len(self.slots) * 2:
            self.resize((2 if self.used > 50000 else 4) * self.used)

    def update(self, other: _Dict) -> None:
        """PyDict_Merge from a dict: one resize up front when the other's keys would fill two thirds, then the
        other's keys in its slot order, with no resize in between."""
        if other.used == 0:
            return
        if (self.used + other.used) * 3 >= len(self.slots) * 2:
            self.resize((self.used + other.used) * 2)
        for key, hashed in zip(other.slots, other.hashes):
            if key is not None:
                self._put(key, hashed)

    def keys(self) -> list:
        return [k for k in self.slots if k is not None]


def python27_key_order(keys) -> list | None:
    """The order Python 2.7 iterated the dict PyYAML built from a mapping whose keys stand in the file in this
    order (a repeated key keeps its first place); None when a key's hash is not reproducible."""
    distinct = list(dict.fromkeys(keys))
    hashes = [python27_hash(k) for k in distinct]
    if any(h is None for h in hashes):
        return None
    mapping = _Dict()  # construct_mapping: mapping[key] = value, in the file's order
    for key, hashed in zip(distinct, hashes):
        mapping.setitem(key, hashed)
    data = _Dict()  # construct_yaml_map: data = {}; data.update(mapping)
    data.update(mapping)
    return data.keys()
