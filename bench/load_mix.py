#!/usr/bin/env python3
"""A deterministic mixed batch of submissions to one phase of a bundle, for a load benchmark.

  python3 bench/load_mix.py dist/toxic-spans.zip --count 40 --out /tmp/mix [--seed 0] [--phase N]
                            [--no-slow] [--no-huge]

writes COUNT submission zips into --out and prints a table (kind, zip, size, note). From Python:

  test_phase(bundle_zip) -> int          the 1-based number of the phase that scores the test split
  mixed_runs(bundle_zip, phase, out_dir, count, seed=0, slow=True, huge=True) -> [{path, kind, sha256, note}]

Kinds (the batch's order is shuffled, deterministically):
- "valid" (the rest, about 75%): the phase's starting-kit sample_submission.zip with a different, seeded subset of
  its predictions altered (labels, offsets, rankings, relevance flags...), still well formed: Finished, scored,
  almost always with a score of its own.
- "format-error" (round(20%) of the batch, at least one): a realistic mistake the scoring program refuses with one
  message and exit status 1, rotating through the task's list (a misnamed or missing file, a malformed line or
  row, an unknown or duplicate id, a wrong column, an empty file, ...), each on a differently altered base.
- "slow" (one, when slow=True): small to upload (a few MB) but over 40 s of the scoring program's CPU on this
  project's 2-core machines; the note says whether it ends Finished or Failed.
- "huge" (one, when huge=True): a prediction file of about 200 MB that compresses about 20x (a zip of about 10 MB),
  within the replay's and platform's safe-zip limits (1024 MiB in all, 200x at most for an entry over 4 MiB).

The same arguments give byte-identical zips: entries sorted, 1980-01-01 times and fixed modes as
codalab_bundles/zips/pack.py writes them, deflate level 9, and every random choice from a random.Random seeded by
(task, seed, run). Each zip carries the comment "load-mix <task> phase <n> seed <s> run <i> <kind>" (platforms
ignore zip comments), so no two zips of any batch, task or seed have the same bytes (SHA-256), even where two
mistakes leave the same files (an empty file).
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import random
import re
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from codalab_bundles.replay.bundle import Bundle, ReplayError  # noqa: E402
from codalab_bundles.zips import safe_zip  # noqa: E402

__all__ = ["test_phase", "mixed_runs", "TASKS"]

# The zip conventions of codalab_bundles/zips/pack.py (fixed time and mode, deflate 9), plus a comment.
_EPOCH = (1980, 1, 1, 0, 0, 0)
# Margins under the safe-zip limits the replay and the platform apply (safe_zip.DEFAULT_*).
_MAX_RATIO = 150
_MAX_TOTAL = 1000 * safe_zip.MIB

HUGE_BYTES = 200 * 1000 * 1000
# Sizes of the slow submissions, measured on this project's 2-core machines (python3 evaluate.py INPUT OUTPUT):
# each is about 45-55 s of CPU (see the notes). Lower SLOW_SCALE for a quick dry run.
SLOW_SCALE = 1.0


# ---------------------------------------------------------------------------------------------------------------
# The bundle: test phase, sample submission, public data


_REFERENCE_RE = re.compile(r"(?:^|/)reference_(.+)\.zip\Z")


def _split_of(phase, bundle):
    """The split a phase scores: the builder names each split's gold reference_<split>.zip (and the task of a
    Codabench bundle "<split> split")."""
    match = _REFERENCE_RE.search(phase.reference_data or "") if isinstance(phase.reference_data, str) else None
    if match:
        return match.group(1)
    if bundle.version == "2":
        spec_phases = sorted(bundle.spec.get("phases") or [], key=lambda p: p.get("index", 0))
        tasks = dict((t.get("index"), t) for t in bundle.spec.get("tasks") or [] if isinstance(t, dict))
        task = tasks.get(((spec_phases[phase.number - 1].get("tasks") or [None])[0]), {})
        name = str(task.get("name") or "")
        if name.endswith(" split"):
            return name[:-len(" split")]
    return None


def test_phase(bundle_zip) -> int:
    """The 1-based number of the first phase whose gold is the test split (Post-Evaluation phases score the same
    split later; the first one is the official evaluation)."""
    try:
        bundle = Bundle(bundle_zip)
    except ReplayError as exc:
        raise ValueError(str(exc))
    phases = sorted(bundle.phases, key=lambda p: p.number or 0)
    for phase in phases:
        if _split_of(phase, bundle) == "test":
            return phase.number
    raise ValueError("%s: no phase scores the test split (phases: %s)" % (
        bundle_zip, "; ".join("%s %s: %s" % (p.number, p.label, p.reference_data) for p in phases)))


def _zip_entries(data, source):
    """{name: bytes} of the files of a zip (folders left out), read within the safe-zip limits."""
    try:
        archive = safe_zip.open_archive(io.BytesIO(data), source)
        with archive:
            limits = safe_zip.Limits()
            return dict((info.filename, safe_zip.read_member(archive, info.filename, source, limits))
                        for info in archive.infolist() if not info.is_dir())
    except safe_zip.ZipRefused as exc:
        raise ValueError(str(exc))


def _public_data_name(bundle, number):
    if bundle.version == "2":
        phases = sorted(bundle.spec.get("phases") or [], key=lambda p: p.get("index", 0))
        return phases[number - 1].get("public_data") if 0 < number <= len(phases) else None
    for phase in (bundle.spec.get("phases") or {}).values():
        if isinstance(phase, dict) and phase.get("phasenumber") == number:
            return phase.get("public_data")
    return None


# Which task a bundle is, by the modules of its scoring program.
_PROGRAM_MODULES = {
    "toxic_spans_layout.py": "toxic-spans",
    "food_hazard_format.py": "food-hazard",
    "cheers_submission.py": "cheers",
    "ehealth_kd_format.py": "ehealth-kd",
    "recipe_mpr_submission.py": "recipe-mpr",
}


def _open_phase(bundle_zip, phase):
    """(task name, sample submission {name: bytes}, public data {name: bytes}) of a phase of the bundle."""
    try:
        bundle = Bundle(bundle_zip)
        info = bundle.phase(phase)
        program = _zip_entries(bundle.read(info.scoring_program, "the scoring program"), "scoring program")
        sample = bundle.sample_submission(info)
    except ReplayError as exc:
        raise ValueError(str(exc))
    names = set(name.rsplit("/", 1)[-1] for name in program)
    tasks = [task for module, task in _PROGRAM_MODULES.items() if module in names]
    if len(tasks) != 1:
        raise ValueError("%s: not a bundle of one of the tasks %s (its scoring program has %s)"
                         % (bundle_zip, ", ".join(sorted(TASKS)), ", ".join(sorted(names))))
    if sample is None:
        raise ValueError("%s, phase %s: the starting kit has no sample_submission.zip" % (bundle_zip, phase))
    public = {}
    public_name = _public_data_name(bundle, phase)
    if isinstance(public_name, str) and public_name in bundle.zip.namelist():
        public = _zip_entries(bundle.read(public_name, "the public data"), public_name)
    return tasks[0], _zip_entries(sample, "sample_submission.zip"), public


# ---------------------------------------------------------------------------------------------------------------
# Content helpers


def _chunky(rng, atoms, separator, size, chunk_atoms, fresh=0, vocabulary=48):
    """About ``size`` characters of ``atoms``, each followed by ``separator``: random chunks of ``chunk_atoms`` atoms
    from a small vocabulary of chunks, each chunk followed by ``fresh`` atoms drawn anew. Pseudo-random to a
    reader; deflate finds the chunks in its 32 KiB window and not the fresh atoms, so ``fresh`` sets the ratio
    (``fresh=0``: 20-50x; a few fresh atoms: about 20x)."""
    chunks = [separator.join(rng.choice(atoms) for _ in range(chunk_atoms)) + separator for _ in range(vocabulary)]
    mean = sum(map(len, chunks)) / float(len(chunks)) + fresh * (
        sum(map(len, atoms)) / float(len(atoms)) + len(separator))
    count = max(1, int(size / mean))
    if not fresh:
        return "".join(rng.choices(chunks, k=count))
    picks = rng.choices(chunks, k=count)
    extra = rng.choices(atoms, k=count * fresh)
    return "".join(chunk + separator.join(extra[i * fresh:(i + 1) * fresh]) + separator
                   for i, chunk in enumerate(picks))


def _blank_lines(rng, count):
    """``count`` blank lines (a few with spaces), which every program skips one by one; about 75x compressible."""
    per_block = 1024
    blocks = []
    for _ in range(48):
        block = ["\n"] * per_block
        for position in rng.sample(range(per_block), 8):
            block[position] = rng.choice((" \n", "  \n"))
        blocks.append("".join(block))
    return "".join(rng.choices(blocks, k=max(1, count // per_block)))


def _alter_count(rng, total):
    """How many of ``total`` predictions a valid run alters: 5% to 50%, at least one."""
    return max(1, min(total, int(round(total * rng.uniform(0.05, 0.5)))))


def _count(number, noun):
    return "%d %s%s" % (number, noun, "" if number == 1 else "s")


def _csv_text(rows):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerows(rows)
    return out.getvalue()


def _csv_rows(data):
    return [row for row in csv.reader(io.StringIO(data.decode("utf-8-sig"))) if row]


class _Task(object):
    """One task's sample and the ways it is altered. Methods take a seeded rng and return ({name: bytes}, note)."""
    name = None

    def __init__(self, sample, public):
        self.sample = sample
        self.public = public

    def valid(self, rng):
        raise NotImplementedError

    def mistakes(self):
        """The format errors, in rotation order: [(label, function(rng) -> (files, note))]."""
        raise NotImplementedError

    def slow(self, rng):
        raise NotImplementedError

    def huge(self, rng):
        raise NotImplementedError


# ---------------------------------------------------------------------------------------------------------------
# toxic-spans: spans-pred.txt, <id><TAB>[offsets] per post


class ToxicSpans(_Task):
    name = "toxic-spans"
    FILE = "spans-pred.txt"

    def __init__(self, sample, public):
        _Task.__init__(self, sample, public)
        self.posts = []
        for line in sample[self.FILE].decode("utf-8-sig").splitlines():
            if line.strip():
                post_id, offsets = line.split("\t")
                self.posts.append((int(post_id), json.loads(offsets)))

    @staticmethod
    def _line(post_id, offsets):
        return "%d\t[%s]" % (post_id, ", ".join("%d" % o for o in offsets))

    def _text(self, posts):
        return "".join(self._line(post_id, offsets) + "\n" for post_id, offsets in posts)

    def _altered(self, rng):
        posts = [(post_id, list(offsets)) for post_id, offsets in self.posts]
        count = _alter_count(rng, len(posts))
        for position in rng.sample(range(len(posts)), count):
            post_id, offsets = posts[position]
            how = rng.choice(("clear", "half", "widen", "shift", "noise"))
            if how == "clear" or (how in ("half", "widen", "shift") and not offsets):
                offsets = [] if offsets else list(range(rng.randrange(200), rng.randrange(200) + rng.randint(3, 9)))
            elif how == "half":
                offsets = sorted(rng.sample(offsets, len(offsets) // 2))
            elif how == "widen":
                offsets = list(range(max(0, min(offsets) - rng.randint(1, 4)), max(offsets) + rng.randint(2, 5)))
            elif how == "shift":
                step = rng.choice((-3, -2, -1, 1, 2, 3))
                offsets = sorted(set(max(0, o + step) for o in offsets))
            else:
                start = rng.randrange(250)
                offsets = sorted(set(offsets) | set(range(start, start + rng.randint(3, 10))))
            posts[position] = (post_id, offsets)
        if rng.random() < 0.3:
            rng.shuffle(posts)  # any order is accepted
        return posts, count

    def valid(self, rng):
        posts, count = self._altered(rng)
        return {self.FILE: self._text(posts).encode()}, "%d of %d posts altered" % (count, len(posts))

    def mistakes(self):
        def misnamed(rng):
            posts, _ = self._altered(rng)
            name = rng.choice(("spans_pred.txt", "predictions.txt", "spans-pred.csv", "spans-pred (1).txt"))
            return {name: self._text(posts).encode()}, "%s misnamed %s" % (self.FILE, name)

        def no_tab(rng):
            posts, _ = self._altered(rng)
            lines = self._text(posts).splitlines()
            at = rng.randrange(len(lines))
            lines[at] = lines[at].replace("\t", " ", 1)
            return {self.FILE: ("\n".join(lines) + "\n").encode()}, "line %d: a space for the tab" % (at + 1)

        def unknown_id(rng):
            posts, _ = self._altered(rng)
            post_id = max(p for p, _ in posts) + rng.randint(1, 5000)
            posts.insert(rng.randrange(len(posts) + 1), (post_id, [1, 2, 3]))
            return {self.FILE: self._text(posts).encode()}, "a line for post %d, not in the phase" % post_id

        def duplicate_id(rng):
            posts, _ = self._altered(rng)
            post = rng.choice(posts)
            posts.insert(rng.randrange(len(posts) + 1), post)
            return {self.FILE: self._text(posts).encode()}, "post %d given twice" % post[0]

        def missing_lines(rng):
            posts, _ = self._altered(rng)
            count = rng.randint(1, 3)
            for position in sorted(rng.sample(range(len(posts)), count), reverse=True):
                del posts[position]
            return {self.FILE: self._text(posts).encode()}, "%s without a line" % _count(count, "post")

        def bad_list(rng):
            posts, _ = self._altered(rng)
            lines = self._text(posts).splitlines()
            at = rng.randrange(len(lines))
            post_id, offsets = posts[at]
            items = ["%d" % o for o in offsets or [4, 5, 6]]
            written = rng.choice(("(%s)" % ", ".join(items), ", ".join(items), "{%s}" % ", ".join(items),
                                  "[%s]" % ", ".join(item + ".0" for item in items)))
            lines[at] = "%d\t%s" % (post_id, written)
            return {self.FILE: ("\n".join(lines) + "\n").encode()}, "line %d: offsets not a list of integers" % (
                at + 1)

        def negative(rng):
            posts, _ = self._altered(rng)
            at = rng.randrange(len(posts))
            post_id, offsets = posts[at]
            posts[at] = (post_id, [-rng.randint(1, 9)] + offsets)
            return {self.FILE: self._text(posts).encode()}, "post %d: a negative offset" % post_id

        def empty(rng):
            return {self.FILE: b""}, "an empty %s" % self.FILE

        def utf16(rng):
            posts, _ = self._altered(rng)
            return {self.FILE: self._text(posts).encode("utf-16")}, "%s saved as UTF-16" % self.FILE

        return [("misnamed", misnamed), ("no-tab", no_tab), ("unknown-id", unknown_id),
                ("duplicate-id", duplicate_id), ("missing-lines", missing_lines), ("bad-list", bad_list),
                ("empty", empty), ("negative", negative), ("utf-16", utf16)]

    def slow(self, rng):
        # A list that parse_offsets refuses (its last item) is checked again item by item, in Python, to say what
        # is wrong: about 1.4 us per item.
        items = int(36000000 * SLOW_SCALE)
        digits = [str(d) for d in range(10)]
        body = _chunky(rng, digits, ",", 2 * items, chunk_atoms=60)
        posts = list(self.posts)
        post_id = posts[0][0]
        text = "%d\t[%s12.5]\n" % (post_id, body) + self._text(posts[1:])
        return ({self.FILE: text.encode()},
                "Failed: post %d's list of %.0f M offsets ends with 12.5, which sends the whole list through the "
                "item-by-item check" % (post_id, len(body) / 2e6))

    def huge(self, rng):
        per_post = HUGE_BYTES // len(self.posts)
        offsets = [str(o) for o in range(300)]
        lines = ["%d\t[%s0]\n" % (post_id, _chunky(rng, offsets, ", ", per_post, chunk_atoms=24, fresh=2))
                 for post_id, _ in self.posts]
        return {self.FILE: "".join(lines).encode()}, "Finished: every post predicted with ~%d k offsets" % (
            per_post // 5000)


# ---------------------------------------------------------------------------------------------------------------
# food-hazard: submission.csv, an index column and the label columns


class FoodHazard(_Task):
    name = "food-hazard"
    FILE = "submission.csv"

    def __init__(self, sample, public):
        _Task.__init__(self, sample, public)
        rows = _csv_rows(sample[self.FILE])
        self.header, self.rows = rows[0], rows[1:]
        self.labels = list(range(1, len(self.header)))  # the label columns (the first is the index)
        self.pools = dict((c, sorted(set(row[c] for row in self.rows))) for c in self.labels)

    def _altered(self, rng):
        header, rows = list(self.header), [list(row) for row in self.rows]
        count = _alter_count(rng, len(rows))
        for position in rng.sample(range(len(rows)), count):
            for column in rng.sample(self.labels, rng.randint(1, len(self.labels))):
                choices = [label for label in self.pools[column] if label != rows[position][column]]
                if choices:
                    rows[position][column] = rng.choice(choices)
        if rng.random() < 0.3:
            rng.shuffle(rows)  # rows are matched by id
        return header, rows, count

    def _file(self, header, rows):
        return {self.FILE: _csv_text([header] + rows).encode()}

    def valid(self, rng):
        header, rows, count = self._altered(rng)
        note = "%d of %d rows relabelled" % (count, len(rows))
        st1 = [0] + [header.index(name) for name in ("hazard-category", "product-category") if name in header]
        if len(st1) == 3 and len(header) > 3 and rng.random() < 0.15:  # ST1 only: ST2 is not scored
            header, rows = [header[i] for i in st1], [[row[i] for i in st1] for row in rows]
            note += ", ST1 columns only"
        return self._file(header, rows), note

    def mistakes(self):
        def misnamed(rng):
            header, rows, _ = self._altered(rng)
            name = rng.choice(("submission (1).csv", "predictions.csv", "Submission.csv", "submission.tsv"))
            return {name: _csv_text([header] + rows).encode()}, "%s misnamed %s" % (self.FILE, name)

        def near_miss_column(rng):
            header, rows, _ = self._altered(rng)
            column = rng.choice(self.labels)
            wrong = header[column].replace("-", "_")
            header[column] = wrong if wrong != header[column] else header[column].title()
            return self._file(header, rows), "column %s named %s" % (self.header[column], header[column])

        def unquoted_comma(rng):
            # A row written by hand, its cells joined with commas: a label with a comma in it (such as "meat, egg
            # and dairy products") is not quoted, so the row has a cell too many.
            header, rows, _ = self._altered(rng)
            text = _csv_text([header] + rows).splitlines()
            with_comma = [i for i, row in enumerate(rows) if any("," in cell for cell in row)]
            at = rng.choice(with_comma) if with_comma else rng.randrange(len(rows))
            text[at + 1] = ",".join(rows[at]) + ("" if with_comma else ",")
            return {self.FILE: ("\n".join(text) + "\n").encode()}, "row %d: a label's comma not quoted" % (at + 1)

        def unknown_id(rng):
            header, rows, _ = self._altered(rng)
            at = rng.randrange(len(rows))
            rows[at][0] = str(max(int(row[0]) for row in rows) + rng.randint(1, 9000))
            return self._file(header, rows), "row %d: id %s, not in the data file" % (at + 1, rows[at][0])

        def duplicate_id(rng):
            header, rows, _ = self._altered(rng)
            first, second = rng.sample(range(len(rows)), 2)
            rows[second][0] = rows[first][0]
            return self._file(header, rows), "id %s on two rows" % rows[first][0]

        def empty_label(rng):
            header, rows, _ = self._altered(rng)
            at, column = rng.randrange(len(rows)), rng.choice(self.labels)
            rows[at][column] = ""
            return self._file(header, rows), "row %d: an empty %s" % (at + 1, header[column])

        def missing_rows(rng):
            header, rows, _ = self._altered(rng)
            count = rng.randint(1, 5)
            for position in sorted(rng.sample(range(len(rows)), count), reverse=True):
                del rows[position]
            return self._file(header, rows), "%s missing" % _count(count, "row")

        def empty(rng):
            return {self.FILE: b""}, "an empty %s" % self.FILE

        return [("misnamed", misnamed), ("near-miss-column", near_miss_column), ("unquoted-comma", unquoted_comma),
                ("unknown-id", unknown_id), ("duplicate-id", duplicate_id), ("empty-label", empty_label),
                ("missing-rows", missing_rows), ("empty", empty)]

    def slow(self, rng):
        # A blank line after the header takes the reader off its bulk path (fast_csv.columns) to fast_csv.records,
        # which reads every blank line in Python: about 4.5 us per line.
        count = int(12000000 * SLOW_SCALE)
        header, rows, _ = self._altered(rng)
        text = _csv_text([header]) + _blank_lines(rng, count) + _csv_text(rows)
        return {self.FILE: text.encode()}, "Finished: %.1f M blank lines after the header" % (
            text.count("\n") / 1e6)

    def huge(self, rng):
        # The participant's predictions for a whole incident dump: the phase's rows, then millions more whose ids
        # the phase does not have (refused once every row is read).
        header, rows, _ = self._altered(rng)
        combos = [_csv_text([[rng.choice(self.pools[c]) for c in self.labels]]).rstrip("\n") for _ in range(24)]
        text = [_csv_text([header] + rows)]
        size = len(text[0])
        next_id = max(int(row[0]) for row in rows) + 1
        first_extra = next_id
        while size < HUGE_BYTES:
            line = "%d,%s\n" % (next_id, rng.choice(combos))
            text.append(line)
            size += len(line)
            next_id += 1
        return {self.FILE: "".join(text).encode()}, "Failed: %.1f M rows, ids from %d are not in the data file" % (
            (next_id - first_extra + len(rows)) / 1e6, first_extra)


# ---------------------------------------------------------------------------------------------------------------
# cheers: one CSV run file, doc_id, sentence_id, is_relevant, sector_id


class Cheers(_Task):
    name = "cheers"

    def __init__(self, sample, public):
        _Task.__init__(self, sample, public)
        csvs = [name for name in sample if name.lower().endswith(".csv")]
        self.file = csvs[0]
        rows = _csv_rows(sample[self.file])
        self.header, self.rows = rows[0], rows[1:]
        self.columns = dict((name.strip(), position) for position, name in enumerate(self.header))
        mapping = [data for name, data in public.items() if name.endswith("immap_sector_name_to_id.json")]
        if mapping:
            self.sectors = sorted(json.loads(mapping[0].decode("utf-8")).values())
        else:
            self.sectors = sorted(set(int(row[self.columns["sector_id"]]) for row in self.rows) - {-1})

    def _altered(self, rng):
        rows = [list(row) for row in self.rows]
        relevant, sector = self.columns["is_relevant"], self.columns["sector_id"]
        count = _alter_count(rng, len(rows))
        for position in rng.sample(range(len(rows)), count):
            row = rows[position]
            if row[relevant].strip() == "1" and rng.random() < 0.5:
                row[sector] = str(rng.choice([s for s in self.sectors if str(s) != row[sector].strip()] or [-1]))
            elif row[relevant].strip() == "1":
                row[relevant], row[sector] = "0", "-1"
            else:
                row[relevant], row[sector] = "1", str(rng.choice(self.sectors + [-1]))
        if rng.random() < 0.3:
            rng.shuffle(rows)
        return rows, count

    def _file(self, rows, header=None, name=None):
        return {name or self.file: _csv_text([header or self.header] + rows).encode()}

    def valid(self, rng):
        rows, count = self._altered(rng)
        return self._file(rows), "%d of %d sentences altered" % (count, len(rows))

    def _key_of(self, row):
        return "doc %s, sentence %s" % (row[self.columns["doc_id"]], row[self.columns["sentence_id"]])

    def mistakes(self):
        def no_csv(rng):
            rows, _ = self._altered(rng)
            name = self.file[:-4] + rng.choice((".txt", ".tsv", ".csv.txt"))
            return self._file(rows, name=name), "the run file named %s" % name

        def two_csvs(rng):
            rows, _ = self._altered(rng)
            files = self._file(rows)
            older, _ = self._altered(rng)
            files.update(self._file(older, name="old_" + self.file))
            return files, "two CSV files"

        def wrong_column(rng):
            rows, _ = self._altered(rng)
            header = list(self.header)
            column = rng.choice(("sector_id", "is_relevant", "doc_id"))
            wrong = {"sector_id": "sector_ids", "is_relevant": "relevant", "doc_id": "document_id"}[column]
            header[self.columns[column]] = wrong
            return self._file(rows, header), "column %s named %s" % (column, wrong)

        def extra_value(rng):
            rows, _ = self._altered(rng)
            at = rng.randrange(len(rows))
            rows[at] = rows[at] + [rng.choice(("0.87", "", "Health"))]
            return self._file(rows), "row %d: five values" % (at + 1)

        def duplicate_row(rng):
            rows, _ = self._altered(rng)
            row = rng.choice(rows)
            rows.insert(rng.randrange(len(rows) + 1), list(row))
            return self._file(rows), "%s given twice" % self._key_of(row)

        def unknown_sentence(rng):
            rows, _ = self._altered(rng)
            at = rng.randrange(len(rows))
            rows[at][self.columns["doc_id"]] = str(900000 + rng.randrange(99999))
            return self._file(rows), "row %d: doc_id %s, not in the split" % (at + 1, rows[at][self.columns["doc_id"]])

        def bad_flag(rng):
            rows, _ = self._altered(rng)
            at = rng.randrange(len(rows))
            flag = rows[at][self.columns["is_relevant"]].strip()
            rows[at][self.columns["is_relevant"]] = {"1": "True", "0": "False"}.get(flag, "yes")
            return self._file(rows), "row %d: is_relevant %s" % (at + 1, rows[at][self.columns["is_relevant"]])

        def sector_without_relevance(rng):
            rows, _ = self._altered(rng)
            at = rng.randrange(len(rows))
            rows[at][self.columns["is_relevant"]] = "0"
            rows[at][self.columns["sector_id"]] = str(rng.choice(self.sectors))
            return self._file(rows), "row %d: a sector on a sentence marked not relevant" % (at + 1)

        def unknown_sector(rng):
            rows, _ = self._altered(rng)
            at = rng.randrange(len(rows))
            rows[at][self.columns["is_relevant"]] = "1"
            rows[at][self.columns["sector_id"]] = str(max(self.sectors) + rng.randint(1, 40))
            return self._file(rows), "row %d: sector %s, not a sector" % (at + 1, rows[at][self.columns["sector_id"]])

        def missing_rows(rng):
            rows, _ = self._altered(rng)
            count = rng.randint(1, 6)
            for position in sorted(rng.sample(range(len(rows)), count), reverse=True):
                del rows[position]
            return self._file(rows), "%s without a row" % _count(count, "sentence")

        return [("no-csv", no_csv), ("two-csvs", two_csvs), ("wrong-column", wrong_column),
                ("extra-value", extra_value), ("duplicate-row", duplicate_row), ("unknown-sentence", unknown_sentence),
                ("bad-flag", bad_flag), ("sector-not-relevant", sector_without_relevance),
                ("unknown-sector", unknown_sector), ("missing-rows", missing_rows)]

    def slow(self, rng):
        # The run file is read with the csv module (spaces after commas allowed), blank lines skipped one by one in
        # Python: about 0.43 us per line.
        count = int(125000000 * SLOW_SCALE)
        rows, _ = self._altered(rng)
        text = _csv_text([self.header]) + _blank_lines(rng, count) + _csv_text(rows)
        return {self.file: text.encode()}, "Finished: %.0f M blank lines after the header" % (
            text.count("\n") / 1e6)

    def huge(self, rng):
        # A run over many more documents than the split's, its columns padded to a width of 16 (a fixed-width export;
        # spaces after commas are allowed): refused (no such sentence) once every row is read. The reader keeps
        # every row in memory (about 340 bytes a row): the padding keeps this to about 3 M rows.
        rows, _ = self._altered(rng)
        position = dict((name, self.columns[name]) for name in ("doc_id", "sentence_id", "is_relevant", "sector_id"))
        order = sorted(position, key=position.get)
        line = ",".join("%%(%s)16s" % name for name in order) + "\n"
        tails = [{"is_relevant": "1", "sector_id": rng.choice(self.sectors)} if rng.random() < 0.4
                 else {"is_relevant": "0", "sector_id": -1} for _ in range(64)]
        text = [_csv_text([self.header] + rows)]
        size, doc, count = len(text[0]), 1000000, 0
        while size < HUGE_BYTES:
            for sentence in range(rng.randint(8, 60)):
                row = line % dict(rng.choice(tails), doc_id=doc, sentence_id=sentence)
                text.append(row)
                size += len(row)
                count += 1
            doc += 1
        return {self.file: "".join(text).encode()}, \
            "Failed: %.1f M more rows, fixed-width; documents from 1000000 are not in the split" % (count / 1e6)


# ---------------------------------------------------------------------------------------------------------------
# ehealth-kd: scenarioN folders with the sentences, key phrases (output_a) and relations (output_b)


class EhealthKd(_Task):
    name = "ehealth-kd"
    SCENARIOS = ((1, "scenario1-main"), (2, "scenario2-taskA"), (3, "scenario3-taskB"))

    def __init__(self, sample, public):
        _Task.__init__(self, sample, public)
        self.folders = {}
        for number, folder in self.SCENARIOS:
            names = dict((kind, "%s/%s" % (folder, pattern % number)) for kind, pattern in (
                ("sentences", "output_scenario%d.txt"), ("a", "output_a_scenario%d.txt"),
                ("b", "output_b_scenario%d.txt")))
            if all(name in sample for name in names.values()):
                self.folders[number] = names
        if not self.folders:
            raise ValueError("ehealth-kd: the sample submission has no complete scenario")
        self.key_labels = sorted(set(line.split("\t")[2] for number in self.folders
                                     for line in self._lines(number, "a")))
        self.relation_labels = sorted(set(line.split("\t")[0] for number in self.folders
                                          for line in self._lines(number, "b"))) or ["target"]

    def _lines(self, number, kind, files=None):
        data = (files or self.sample)[self.folders[number][kind]]
        return [line for line in data.decode("utf-8-sig").splitlines() if line.strip()]

    @staticmethod
    def _join(lines):
        return ("".join(line + "\n" for line in lines)).encode()

    def _altered(self, rng):
        files = dict(self.sample)
        changed = 0
        for number in self.folders:
            keys = [line.split("\t") for line in self._lines(number, "a")]
            relations = [line.split("\t") for line in self._lines(number, "b")]
            dropped = set()
            if keys and number != 3:  # scenario 3 gives the key phrases: only relations are predicted
                for position in rng.sample(range(len(keys)), _alter_count(rng, len(keys))):
                    if rng.random() < 0.5:
                        dropped.add(keys[position][0])
                    else:
                        others = [label for label in self.key_labels if label != keys[position][2]]
                        keys[position][2] = rng.choice(others or self.key_labels)
                    changed += 1
                keys = [fields for fields in keys if fields[0] not in dropped]
            relations = [fields for fields in relations if fields[1] not in dropped and fields[2] not in dropped]
            if relations:
                for position in rng.sample(range(len(relations)), _alter_count(rng, len(relations))):
                    if rng.random() < 0.5:
                        relations[position] = None
                    else:
                        relations[position][0] = rng.choice(self.relation_labels)
                    changed += 1
                relations = [fields for fields in relations if fields is not None]
            files[self.folders[number]["a"]] = self._join("\t".join(fields) for fields in keys)
            files[self.folders[number]["b"]] = self._join("\t".join(fields) for fields in relations)
        return files, changed

    def valid(self, rng):
        files, changed = self._altered(rng)
        return files, "%d key phrases and relations dropped or relabelled" % changed

    def mistakes(self):
        def pick(rng, files, kind):
            numbers = [n for n in sorted(self.folders) if self._lines(n, kind, files)]
            return rng.choice(numbers) if numbers else sorted(self.folders)[0]

        def missing_sentences(rng):
            files, _ = self._altered(rng)
            number = rng.choice(sorted(self.folders))
            del files[self.folders[number]["sentences"]]
            return files, "scenario %d without its output_scenario%d.txt" % (number, number)

        def no_scenario_files(rng):
            files, _ = self._altered(rng)
            renamed = {}
            for name, data in files.items():
                folder, base = name.rsplit("/", 1)
                renamed["%s/%s" % (folder, base.replace("_scenario", "_").replace("output_", "run_"))] = data
            return renamed, "every file renamed (run_a_1.txt ...)"

        def spaces_for_tabs(rng):
            files, _ = self._altered(rng)
            number = pick(rng, files, "a")
            lines = self._lines(number, "a", files)
            at = rng.randrange(len(lines))
            lines[at] = lines[at].replace("\t", " ")
            files[self.folders[number]["a"]] = self._join(lines)
            return files, "output_a_scenario%d line %d: spaces for tabs" % (number, at + 1)

        def duplicate_key_id(rng):
            files, _ = self._altered(rng)
            number = pick(rng, files, "a")
            lines = self._lines(number, "a", files)
            first = rng.randrange(len(lines))
            copy = lines[first].split("\t")
            copy[1] = "%d %d" % (0, 3)
            lines.insert(rng.randrange(first + 1, len(lines) + 1), "\t".join(copy))
            files[self.folders[number]["a"]] = self._join(lines)
            return files, "output_a_scenario%d: key-phrase ID %s twice" % (number, copy[0])

        def unknown_relation_id(rng):
            files, _ = self._altered(rng)
            number = pick(rng, files, "a")
            ids = [int(line.split("\t")[0]) for line in self._lines(number, "a", files)] or [0]
            lines = self._lines(number, "b", files)
            unknown = max(ids) + rng.randint(100, 999)
            lines.insert(rng.randrange(len(lines) + 1), "%s\t%d\t%d" % (rng.choice(self.relation_labels),
                                                                        rng.choice(ids), unknown))
            files[self.folders[number]["b"]] = self._join(lines)
            return files, "output_b_scenario%d: a relation to key phrase %d, which is not defined" % (number, unknown)

        def reversed_span(rng):
            files, _ = self._altered(rng)
            number = pick(rng, files, "a")
            lines = self._lines(number, "a", files)
            at = rng.randrange(len(lines))
            fields = lines[at].split("\t")
            start, end = fields[1].split(";")[0].split()
            fields[1] = "%s %s" % (end, start) if start != end else "%d %s" % (int(start) + 5, start)
            lines[at] = "\t".join(fields)
            files[self.folders[number]["a"]] = self._join(lines)
            return files, "output_a_scenario%d line %d: a reversed span" % (number, at + 1)

        def brat_ids(rng):
            files, _ = self._altered(rng)
            number = pick(rng, files, "a")
            lines = ["T" + line for line in self._lines(number, "a", files)]
            files[self.folders[number]["a"]] = self._join(lines)
            return files, "output_a_scenario%d: brat-style IDs (T1, T2...)" % number

        def span_outside(rng):
            files, _ = self._altered(rng)
            number = pick(rng, files, "a")
            total = sum(len(line.strip()) + 1 for line in
                        files[self.folders[number]["sentences"]].decode("utf-8-sig").splitlines())
            lines = self._lines(number, "a", files)
            ids = [int(line.split("\t")[0]) for line in lines]
            start = total + rng.randint(10, 500)
            lines.append("%d\t%d %d\t%s" % (max(ids) + 1, start, start + 6, rng.choice(self.key_labels)))
            files[self.folders[number]["a"]] = self._join(lines)
            return files, "output_a_scenario%d: a span past the end of the sentences" % number

        return [("missing-sentences", missing_sentences), ("no-scenario-files", no_scenario_files),
                ("spaces-for-tabs", spaces_for_tabs), ("duplicate-key-id", duplicate_key_id),
                ("unknown-relation-id", unknown_relation_id), ("reversed-span", reversed_span),
                ("brat-ids", brat_ids), ("span-outside", span_outside)]

    def slow(self, rng):
        # Every line of output_a is matched against the usual shape first; a blank line then takes the checks'
        # path: about 0.4 us per line.
        count = int(130000000 * SLOW_SCALE)
        files, _ = self._altered(rng)
        number = sorted(self.folders)[0]
        name = self.folders[number]["a"]
        text = _blank_lines(rng, count) + files[name].decode("utf-8")
        files[name] = text.encode()
        return files, "Finished: output_a_scenario%d starts with %.0f M blank lines" % (number, text.count("\n") / 1e6)

    def huge(self, rng):
        # Key phrases over every sentence, each with its text (the optional fourth field), as a system that tags
        # everything writes them: valid, scored (as spurious key phrases).
        files, _ = self._altered(rng)
        number = sorted(self.folders)[0]
        names = self.folders[number]
        sentences = [line.strip() for line in files[names["sentences"]].decode("utf-8-sig").splitlines()]
        starts, position = [], 0
        for sentence in sentences:
            starts.append(position)
            position += len(sentence) + 1
        words = []
        for sentence, start in zip(sentences, starts):
            offset = 0
            for word in sentence.split(" "):
                if word:
                    words.append((start + offset, start + offset + len(word)))
                offset += len(word) + 1
        lines = self._lines(number, "a", files)
        next_id = max([int(line.split("\t")[0]) for line in lines] or [0]) + 1
        vocabulary = sorted(set(w for s in sentences for w in s.split(" ") if w))
        texts = [_chunky(rng, vocabulary, " ", 160, chunk_atoms=8) for _ in range(40)]
        out, size = ["".join(line + "\n" for line in lines)], 0
        while size < HUGE_BYTES:
            start, end = rng.choice(words)
            line = "%d\t%d %d\t%s\t%s\n" % (next_id, start, end, rng.choice(self.key_labels), rng.choice(texts))
            out.append(line)
            size += len(line)
            next_id += 1
        files[names["a"]] = "".join(out).encode()
        return files, "Finished: %.1f M key phrases in output_a_scenario%d, each with a ~160-character text" % (
            (next_id - 1) / 1e6, number)


# ---------------------------------------------------------------------------------------------------------------
# recipe-mpr: predictions.json, {query id: option id or ranking} (form 1) or the dataset's own list (form 2)


class RecipeMpr(_Task):
    name = "recipe-mpr"
    FILE = "predictions.json"

    def __init__(self, sample, public):
        _Task.__init__(self, sample, public)
        self.predictions = json.loads(sample[self.FILE].decode("utf-8"))
        queries = [data for name, data in public.items() if name.endswith(".json")]
        self.queries = json.loads(queries[0].decode("utf-8")) if queries else None

    def _altered(self, rng):
        data = dict((qid, list(value) if isinstance(value, list) else [value])
                    for qid, value in self.predictions.items())
        count = _alter_count(rng, len(data))
        for qid in rng.sample(sorted(data), count):
            ranking = data[qid]
            how = rng.choice(("rotate", "swap", "reverse", "top", "shuffle"))
            if how == "rotate":
                shift = rng.randrange(1, max(2, len(ranking)))
                ranking = ranking[shift:] + ranking[:shift]
            elif how == "swap" and len(ranking) > 1:
                ranking = [ranking[1], ranking[0]] + ranking[2:]
            elif how == "reverse":
                ranking = ranking[::-1]
            elif how == "top":
                ranking = ranking[:rng.randint(1, len(ranking))]
            else:
                rng.shuffle(ranking)
            data[qid] = ranking
        return data, count

    @staticmethod
    def _json(data, rng):
        return json.dumps(data, indent=rng.choice((None, 1, 2))).encode()

    def valid(self, rng):
        data, count = self._altered(rng)
        if rng.random() < 0.3:  # one option id per query, as a string
            data = dict((qid, ranking[0]) for qid, ranking in data.items())
        return {self.FILE: self._json(data, rng)}, "%d of %d rankings altered" % (count, len(data))

    def _form2(self, data):
        """The dataset's own form (a list of {query, pred}), from the public queries, or None without them."""
        if not self.queries:
            raise ValueError("recipe-mpr: the phase's public data has no queries JSON (needed for the form 2 runs)")
        by_id = dict((q["id"], q) for q in self.queries)
        return [{"query": by_id[qid]["query"], "pred": by_id[qid]["options"][ranking[0]]}
                for qid, ranking in sorted(data.items())]

    def mistakes(self):
        def misnamed(rng):
            data, _ = self._altered(rng)
            name = rng.choice(("prediction.json", "predictions.jsonl", "preds.json", "predictions.json.txt"))
            return {name: self._json(data, rng)}, "%s misnamed %s" % (self.FILE, name)

        def trailing_comma(rng):
            data, _ = self._altered(rng)
            text = json.dumps(data, indent=1)
            return {self.FILE: (text[:-2] + ",\n}").encode()}, "invalid JSON: a trailing comma"

        def unknown_query(rng):
            data, _ = self._altered(rng)
            qid = "q%d" % (900 + rng.randrange(9000))
            data[qid] = next(iter(data.values()))
            return {self.FILE: self._json(data, rng)}, "query %s, not in the phase" % qid

        def duplicate_query(rng):
            data, _ = self._altered(rng)
            qid = rng.choice(sorted(data))
            text = json.dumps(data)
            text = text[:-1] + ", %s: %s}" % (json.dumps(qid), json.dumps(data[qid][::-1]))
            return {self.FILE: text.encode()}, "query %s given twice" % qid

        def foreign_option(rng):
            data, _ = self._altered(rng)
            first, second = rng.sample(sorted(data), 2)
            data[first] = [data[second][0]] + data[first][1:]
            return {self.FILE: self._json(data, rng)}, "query %s ranks an option of query %s" % (first, second)

        def ranked_twice(rng):
            data, _ = self._altered(rng)
            qid = rng.choice(sorted(data))
            data[qid] = data[qid] + [data[qid][0]]
            return {self.FILE: self._json(data, rng)}, "query %s ranks an option twice" % qid

        def empty_ranking(rng):
            data, _ = self._altered(rng)
            qid = rng.choice(sorted(data))
            data[qid] = []
            return {self.FILE: self._json(data, rng)}, "query %s: an empty ranking" % qid

        def option_index(rng):
            data, _ = self._altered(rng)
            qid = rng.choice(sorted(data))
            data[qid] = rng.randrange(5)
            return {self.FILE: self._json(data, rng)}, "query %s: the option's position, not its id" % qid

        def missing_query(rng):
            data, _ = self._altered(rng)
            qid = rng.choice(sorted(data))
            del data[qid]
            return {self.FILE: self._json(data, rng)}, "query %s without a prediction" % qid

        return [("misnamed", misnamed), ("trailing-comma", trailing_comma), ("unknown-query", unknown_query),
                ("duplicate-query", duplicate_query), ("foreign-option", foreign_option),
                ("ranked-twice", ranked_twice), ("empty-ranking", empty_ranking), ("option-index", option_index),
                ("missing-query", missing_query)]

    def slow(self, rng):
        # Form 2 with each item's token ids (extra fields are ignored) and a 40-digit request id: a run of more than
        # 30 digits makes load_json parse every integer of the file with its Python hook, about 1.1 us each.
        data, _ = self._altered(rng)
        items = self._form2(data)
        total = int(46000000 * SLOW_SCALE)
        digits = [str(d) for d in range(10)]
        per_item = total // len(items)
        parts = []
        for number, item in enumerate(items):
            head = dict(item, request_id="".join(rng.choice("0123456789") for _ in range(40))) if number == 0 else item
            head = json.dumps(head)[:-1]
            parts.append('%s, "token_ids": [%s0]}' % (head, _chunky(rng, digits, ",", 2 * per_item, chunk_atoms=60)))
        text = "[\n" + ",\n".join(parts) + "\n]\n"
        return {self.FILE: text.encode()}, "Finished: form 2 with %.0f M token ids and a 40-digit request id" % (
            text.count(",") / 1e6)

    def huge(self, rng):
        # Form 2 with a long generated explanation per query (extra fields are ignored): valid, scored.
        data, _ = self._altered(rng)
        items = self._form2(data)
        vocabulary = sorted(set(w for q in self.queries for text in [q["query"]] + list(q["options"].values())
                                for w in text.split()))
        per_item = HUGE_BYTES // len(items)
        for item in items:
            item["explanation"] = _chunky(rng, vocabulary, " ", per_item, chunk_atoms=16, fresh=2)
        return {self.FILE: json.dumps(items, indent=1).encode()}, \
            "Finished: form 2 with a %.1f MB explanation per query" % (per_item / 1e6)


TASKS = dict((cls.name, cls) for cls in (ToxicSpans, FoodHazard, Cheers, EhealthKd, RecipeMpr))


# ---------------------------------------------------------------------------------------------------------------
# The batch


def _rng(task, seed, *parts):
    # A str seed is hashed with SHA-512 by random.seed: the same stream in every process (no PYTHONHASHSEED).
    return random.Random("load-mix|%s|%s|%s" % (task, seed, "|".join(str(p) for p in parts)))


def _kinds(count, seed, task, slow, huge):
    """The kinds of a batch of ``count``, in their (seeded) order."""
    special = (["slow"] if slow else []) + (["huge"] if huge else [])
    special = special[:count]
    rest = count - len(special)
    errors = min(rest, max(1, int(round(0.2 * count)))) if rest >= 2 else 0
    kinds = ["valid"] * (rest - errors) + ["format-error"] * errors
    _rng(task, seed, "order").shuffle(kinds)
    # The slow and huge runs go in the middle of the batch, not first: a benchmark sees some ordinary runs before.
    for position, kind in enumerate(special):
        kinds.insert((len(kinds) + 1) * (position + 1) // (len(special) + 1), kind)
    return kinds


def _write_zip(path, files, comment):
    """The zip of ``files`` ({name: bytes}), entries sorted, as pack.py writes them, with a comment."""
    with zipfile.ZipFile(str(path), "w") as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o100644 & 0xFFFF) << 16  # a regular file, rw-r--r--
            info.create_system = 3
            archive.writestr(info, files[name], compresslevel=9)
        archive.comment = comment.encode("ascii")


def _check_limits(path):
    """Refuse (a generator bug) a zip the replay's and the platform's safe-zip limits would refuse."""
    with zipfile.ZipFile(str(path)) as archive:
        infos = archive.infolist()
        total = sum(info.file_size for info in infos)
        if total > _MAX_TOTAL:
            raise RuntimeError("%s: %d bytes uncompressed, over the limit" % (path, total))
        for info in infos:
            if info.file_size > safe_zip.RATIO_FLOOR and info.file_size > _MAX_RATIO * max(1, info.compress_size):
                raise RuntimeError("%s: %s inflates %.0fx, over the %dx margin" % (
                    path, info.filename, info.file_size / float(info.compress_size), _MAX_RATIO))


def mixed_runs(bundle_zip, phase, out_dir, count, seed=0, slow=True, huge=True):
    """Write ``count`` submission zips for ``phase`` of ``bundle_zip`` into ``out_dir``; one dict per zip, in batch
    order: {"path", "kind" (valid, format-error, slow, huge), "sha256", "note"}. Deterministic in its arguments."""
    task_name, sample, public = _open_phase(bundle_zip, phase)
    task = TASKS[task_name](sample, public)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    mistakes = task.mistakes()
    first_mistake = _rng(task_name, seed, "mistakes").randrange(len(mistakes))
    runs, seen, errors = [], {}, 0
    for index, kind in enumerate(_kinds(count, seed, task_name, slow, huge), 1):
        rng = _rng(task_name, seed, index, kind)
        if kind == "valid":
            files, note = task.valid(rng)
        elif kind == "format-error":
            label, make = mistakes[(first_mistake + errors) % len(mistakes)]
            errors += 1
            files, note = make(rng)
            note = "%s: %s" % (label, note)
        elif kind == "slow":
            files, note = task.slow(rng)
        else:
            files, note = task.huge(rng)
        path = out_dir / ("%s-s%d-%03d-%s.zip" % (task_name, seed, index, kind))
        _write_zip(path, files, "load-mix %s phase %s seed %s run %d %s" % (task_name, phase, seed, index, kind))
        del files
        _check_limits(path)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest in seen:  # cannot happen (the comment differs): a bug of this generator
            raise RuntimeError("%s has the bytes of %s" % (path, seen[digest]))
        seen[digest] = path
        runs.append({"path": str(path), "kind": kind, "sha256": digest, "note": note})
    return runs


# ---------------------------------------------------------------------------------------------------------------
# Command line


def _size(count):
    for unit, factor in (("MB", 1e6), ("kB", 1e3)):
        if count >= factor:
            return "%.1f %s" % (count / factor, unit)
    return "%d B" % count


def main(argv=None):
    parser = argparse.ArgumentParser(description="Write a deterministic mixed batch of submissions to one phase of "
                                                 "a bundle (valid, format errors, one slow, one huge).")
    parser.add_argument("bundle", help="a Codabench bundle, e.g. dist/toxic-spans.zip")
    parser.add_argument("--count", type=int, default=40, help="how many zips (default 40)")
    parser.add_argument("--out", required=True, help="the folder to write them into")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--phase", type=int, help="the phase (default: the test phase, see test_phase)")
    parser.add_argument("--no-slow", action="store_true", help="leave out the slow submission")
    parser.add_argument("--no-huge", action="store_true", help="leave out the huge submission")
    args = parser.parse_args(argv)
    try:
        phase = args.phase or test_phase(args.bundle)
        runs = mixed_runs(args.bundle, phase, args.out, args.count, seed=args.seed, slow=not args.no_slow,
                          huge=not args.no_huge)
    except (ValueError, OSError) as exc:
        print("load_mix: %s" % exc, file=sys.stderr)
        return 2
    print("phase %d of %s, seed %d, %d zips in %s" % (phase, args.bundle, args.seed, len(runs), args.out))
    rows = [(run["kind"], os.path.basename(run["path"]), _size(os.path.getsize(run["path"])), run["note"])
            for run in runs]
    widths = [max(len(row[i]) for row in rows + [("kind", "zip", "size", "note")]) for i in range(3)]
    for row in [("kind", "zip", "size", "note")] + rows:
        print("  ".join(cell.ljust(width) if i != 2 else cell.rjust(width)
                        for i, (cell, width) in enumerate(zip(row[:3], widths))) + "  " + row[3])
    return 0


if __name__ == "__main__":
    sys.exit(main())
