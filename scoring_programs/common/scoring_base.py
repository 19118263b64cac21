"""The base of the runtime shared by every scoring program of this project: what a task's ``score`` function uses.
Task programs import it as ``scoring_runtime`` (the whole runtime under one name, scoring_runtime.py).

The builder packs this module, with the rest of ``common/``, beside each task's ``evaluate.py``, so a built scoring
program is self-contained: ``python3 evaluate.py <input> <output>`` with gold in ``<input>/ref`` and the submission
in ``<input>/res``.

Python 3.6+ and the standard library only: the program runs inside platform images we do not control
(codalab/codalab-legacy:py37 and older).

What a task provides is one function ``score(ref_dir, res_dir) -> Result``, which ``scoring_main.main`` runs. This
module holds what that function is built from: the two errors, ``Result`` and ``Items``, finding files, reading
text, CSV and JSON, and the rules for participants' values. The run itself (scoring_main.py, with the steps
scoring_run.py holds for it and for score_files.py)
- reads the two directories from argv (never from the working directory),
- turns a ``SubmissionError`` into one message on stderr, exit status 1 and no scores file,
- turns a ``ReferenceDataError`` (an organizer's problem) into one message on stderr and exit status 1,
- turns any other exception into a generic one-line message (no traceback, which could quote gold data),
- writes ``scores.txt`` (``key: value``, plain decimals), ``scores.json`` and ``detailed_results.html``.

This module imports no other module of the runtime but fast_csv: the modules above it import it, never the reverse
(tests/test_common_layering.py).
"""
import csv
import io
import json
import math
import numbers
import os
import re
import sys

import fast_csv

__all__ = [
    "SubmissionError", "ReferenceDataError", "ScoringProgramError", "Result", "Items", "VERSION",
    "find_submission_file", "find_reference_file", "find_file",
    "read_text", "stream_lines", "iter_lines", "read_csv", "format_score", "mean",
    "quote", "shorten", "is_integer", "parse_integer", "canonical_integer", "load_json", "gold_is_public",
]

# The version of the scoring programs (all of them, with this runtime), carried by every score output's signature.
# It is the codalab-bundles release that made them; change it whenever a score, a check or an output can change.
VERSION = "0.4.0"

# Files the CodaLab v1.5 worker leaves beside the submission (input.txt copies, downloaded zips) and editors/OSes add.
_STRAY_NAMES = {"metadata", ".DS_Store", "Thumbs.db", "desktop.ini"}
_STRAY_PREFIXES = ("tmp", "._", "__MACOSX")


class SubmissionError(Exception):
    """The submission cannot be scored. The message is shown to the participant as it is, so it must name the
    file, line or row and the problem, and must never quote gold data."""


class ReferenceDataError(Exception):
    """The gold data is missing or malformed: a problem for the organizers, not the participant."""


class ScoringProgramError(Exception):
    """The task's ``score`` broke the runtime's contract (a Result of the wrong shape, see check_result): a problem
    for the organizers, not the participant. The message names what was wrong by its type, never by its value."""


class Result(object):
    """What a task's ``score`` function returns.

    scores: list of (key, value) pairs, in leaderboard order.
    html: ``detailed_results.html`` (see report_html.page) when the gold is public; None for no detailed page.
    notes: lines printed on standard output after the scores (what was scored, what was skipped).
    warnings: lines printed on standard error (what participants see on the platform) for a submission that is
        scored but may not be what its author meant.
    hidden_gold_html: the page when the gold is not public, following HIDDEN_GOLD_RULE; None: a page with the
        scores only. ``main`` picks the page, so no task can show a hidden gold by forgetting to check.
    items: the per-item statistics of the ranking score (an Items), or a function returning them (built only when
        asked for: --per-item, --ci, --compare, or the page of a public gold); None when the task has none.
    program: the program's name in the signature, when ``main`` was not told it (the generic kinds).
    private_keys: keys of scores written to scores.txt and scores.json only, never printed nor on the page
        (scoring_private's private figure; participants read the log and the page).
    scores may also be a dict {key: value} (in its order). The runtime checks every field's type (check_result)
    before using any: a wrong one is the scoring program's error, one message and no scores.
    """

    private_keys = ()

    def __init__(self, scores, html=None, notes=(), hidden_gold_html=None, warnings=(), items=None, program=None):
        if isinstance(scores, dict):
            scores = list(scores.items())
        elif not isinstance(scores, (str, bytes)) and hasattr(scores, "__iter__"):
            scores = list(scores)
        self.scores = scores  # anything else is kept as it is, for check_result to name
        self.html = html
        self.notes = list(notes)
        self.warnings = list(warnings)
        self.hidden_gold_html = hidden_gold_html
        self._items = items
        self.program = program

    @property
    def items(self):
        if callable(self._items):
            self._items = self._items()
        return self._items


def plural(noun):
    """The plural of an item unit: post -> posts, query -> queries."""
    return noun[:-1] + "ies" if noun.endswith("y") and noun[-2:-1] not in "aeiou" else noun + "s"


class Items(object):
    """What every scored item (post, row, sentence, query) adds to the ranking score: the figures behind
    ``--per-item``, ``--ci`` and ``--compare``.

    unit: the metric's unit in the singular ("post", "row", "sentence", "query"): intervals resample these.
    key: the score key ``finish`` gives (the ranking score).
    finish: function({statistic: total}) -> the score, from the statistics summed over the items (a statistic no
        item has is absent, so read them with .get(name, 0)). Summing every item's statistics and finishing gives
        exactly the score in scores.txt; a resample (items drawn with repeats) gives that resample's score.
    Each item (``add``) has an id (text, in the gold's order, the same for every submission of a gold), its
    statistics ({name: number}, the additive quantities the metric is made of; zeros may be left out), a verdict
    ("right", "partly" or "wrong") and a detail: what was wrong, in a few words. The detail may quote the gold, so
    it is shown only when the gold is public.
    """
    VERDICTS = ("right", "partly", "wrong")

    def __init__(self, unit, key, finish):
        self.unit, self.key, self.finish = unit, key, finish
        self.ids, self.stats, self.verdicts, self.details = [], [], [], []

    def add(self, item_id, stats, verdict="right", detail=""):
        self.ids.append(u"%s" % (item_id,))
        self.stats.append(stats)
        self.verdicts.append(verdict)
        self.details.append(detail)

    def __len__(self):
        return len(self.ids)

    def totals(self):
        """{statistic: sum over the items}, summed exactly (fsum: the order of the items does not matter)."""
        parts = {}
        for stats in self.stats:
            for name, value in stats.items():
                parts.setdefault(name, []).append(value)
        return dict((name, math.fsum(values)) for name, values in parts.items())

    def score(self):
        """The ranking score from the items (equal to the one in scores.txt)."""
        return self.finish(self.totals())


# ---------------------------------------------------------------------------------------------------------------
# What a task's score function must return

# A score key: what Codabench and CodaLab accept as a leaderboard column key.
SCORE_KEY_RE = re.compile(r"^[A-Za-z0-9_]{1,36}$")
# Scores CodaLab can store (format_score): finite, below this in magnitude.
SCORE_LIMIT = 1e10


def _type_name(value):
    return "None" if value is None else "a %s" % type(value).__name__


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _items_problem(items, what):
    """What is wrong with a Result's per-item figures (``what`` says where they came from), or None."""
    if items is None:
        return None
    if not isinstance(items, Items):
        return "%s %s, not an Items (or None)" % (what, _type_name(items))
    for field, ok in (("unit", isinstance(items.unit, str)), ("key", isinstance(items.key, str)),
                      ("finish", callable(items.finish))):
        if not ok:
            return "%s an Items whose %s is %s, not %s" % (
                what, field, _type_name(getattr(items, field)), "a function" if field == "finish" else "a str")
    return None


def _result_problem(result):
    if not isinstance(result, Result):
        return "score() returned %s, not a Result" % _type_name(result)
    scores = result.scores
    if not isinstance(scores, list):
        return "the Result's scores are %s, not a list of (key, value) pairs" % _type_name(scores)
    if not scores:
        return "the Result has no scores"
    seen = set()
    for number, pair in enumerate(scores, 1):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            return "score %d of the Result is %s, not a (key, value) pair" % (number, _type_name(pair))
        key, value = pair
        if not isinstance(key, str):
            return "the key of score %d of the Result is %s, not a str" % (number, _type_name(key))
        if not SCORE_KEY_RE.match(key):
            return "the score key %s is not 1-36 characters of A-Z, a-z, 0-9 and _" % quote(key)
        if key == "signature" or key in seen:
            return "the score key %s is %s" % (quote(key), "reserved (scores.json's signature)"
                                                if key == "signature" else "given twice")
        seen.add(key)
        if not _is_number(value):
            return "the score %s is %s, not a number" % (key, _type_name(value))
        if math.isnan(value) or math.isinf(value):
            return "the score %s is %s, not a finite number" % (key, "NaN" if math.isnan(value) else "infinite")
        if abs(value) >= SCORE_LIMIT:
            return "the score %s is %g: CodaLab stores scores below 1e10 in magnitude" % (key, value)
    for field in ("html", "hidden_gold_html", "program"):
        value = getattr(result, field)
        if value is not None and not isinstance(value, str):
            return "the Result's %s is %s, not a str (or None)" % (field, _type_name(value))
    for field in ("notes", "warnings"):
        wrong = [line for line in getattr(result, field) if not isinstance(line, str)]
        if wrong:
            return "the Result's %s hold %s, not a str" % (field, _type_name(wrong[0]))
    if not callable(result._items):
        return _items_problem(result._items, "the Result's items are")
    return None


def result_items(result):
    """``result.items`` as the runtime uses them (built now when the task gave a function): ScoringProgramError when
    they are not an Items or None. check_result has checked items given as they are; these came from the function."""
    items = result.items
    problem = _items_problem(items, "the Result's items function returned")
    if problem:
        raise ScoringProgramError(problem)
    return items


def check_result(result):
    """``result`` when it is a Result the runtime can write (scores a list of (key, value) pairs with keys that
    are column keys, given once, and finite numbers; html, hidden_gold_html and program text or None; notes and
    warnings text; items an Items, a function returning one, or None); else ScoringProgramError saying what is
    wrong, by type only (a value could be gold data). Items given as a function are checked when the runtime calls
    it (result_items)."""
    problem = _result_problem(result)
    if problem:
        raise ScoringProgramError(problem)
    return result


# ---------------------------------------------------------------------------------------------------------------
# What a detailed-results page may show

# The builder writes this file into the reference data of a split whose task.yaml says gold_public: true.
GOLD_PUBLIC_MARKER = "gold_is_public.txt"
# Files the builder writes into the reference data of a split with private items, and of a phase that writes the
# private figures or withholds every figure (scoring_private.py says what each one makes a run write).
PRIVATE_IDS = "private_ids.txt"
PRIVATE_SCORING = "private_scoring.txt"
SCORES_WITHHELD = "scores_withheld.txt"
# Files of the reference data that are not the gold: left out of the gold's SHA-256 (the signature).
NOT_GOLD = (GOLD_PUBLIC_MARKER, PRIVATE_IDS, PRIVATE_SCORING, SCORES_WITHHELD)

# The rule for a split whose gold is not public (Codabench shows detailed results to everyone by default).
HIDDEN_GOLD_RULE = (
    "The gold of this phase is not public, so this page shows only figures over the whole set (the scores and "
    "totals) and, per class, only the classes this submission predicted, with its own counts and precision: "
    "no gold count per class, no class that only the gold has, no gold item.")


def gold_is_public(ref_dir):
    """True when the reference data carries GOLD_PUBLIC_MARKER (at its top or in a single wrapper folder)."""
    if os.path.isfile(os.path.join(ref_dir, GOLD_PUBLIC_MARKER)):
        return True
    found = _candidates(ref_dir, lambda name: name == GOLD_PUBLIC_MARKER)
    return bool(found)


def predicted_only(rows, predicted):
    """Per-class rows that a hidden-gold page may show: those of classes the submission predicted.
    ``predicted(row)`` is the submission's count for the row's class."""
    return [row for row in rows if predicted(row)]


# ---------------------------------------------------------------------------------------------------------------
# Locating files


def is_stray(name):
    """A file or folder the worker, an editor or an OS left, never part of a submission or a gold."""
    return name in _STRAY_NAMES or name.startswith(_STRAY_PREFIXES)


def _listing(directory, limit=8):
    """A short, readable list of what is in a directory (for error messages)."""
    found = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not is_stray(d))
        for name in sorted(files):
            if not is_stray(name):
                found.append(os.path.relpath(os.path.join(root, name), directory).replace(os.sep, "/"))
    if not found:
        return "nothing"
    shown = ", ".join(found[:limit])
    return shown + (" and %d more" % (len(found) - limit) if len(found) > limit else "")


def _candidates(directory, match, wrapper_allowed=True):
    """Files accepted by ``match`` at the top of ``directory`` or inside a single wrapper folder."""
    if not os.path.isdir(directory):
        return None
    entries = sorted(e for e in os.listdir(directory) if not is_stray(e))
    top = [e for e in entries if os.path.isfile(os.path.join(directory, e)) and match(e)]
    if top:
        return [os.path.join(directory, e) for e in top]
    folders = [e for e in entries if os.path.isdir(os.path.join(directory, e))]
    files = [e for e in entries if os.path.isfile(os.path.join(directory, e))]
    if wrapper_allowed and len(folders) == 1 and not files:
        # A zip made from a folder instead of from its files: look one level down (and only one).
        return _candidates(os.path.join(directory, folders[0]), match, False)
    return []


def find_file(directory, names=None, suffix=None, what="file", error=SubmissionError, expected=None):
    """Return the path of the one file called one of ``names`` (or ending in ``suffix``) in ``directory``.

    A single wrapper folder is tolerated; stray files (``metadata``, ``tmp*``, ``__MACOSX``) are ignored.
    Raises ``error`` with a message that says what was expected and what was found.
    """
    if names is not None:
        names = [names] if isinstance(names, str) else list(names)
        match = lambda n: n in names  # noqa: E731
        wanted = missing = " or ".join(names)
    else:
        match = lambda n: n.lower().endswith(suffix)  # noqa: E731
        wanted, missing = "one %s file" % suffix, "%s file" % suffix
    found = _candidates(directory, match)
    stand_in = STANDS_IN.get(os.path.abspath(directory))
    if not found and stand_in and _same_kind(os.path.basename(stand_in), names, suffix):
        found = [stand_in]
        STOOD_FOR[stand_in] = names or []
    if found is None:
        raise error("the %s folder %s does not exist" % (what, directory))
    if len(found) == 1:
        return found[0]
    hint = expected or "put it at the root of the zip (zip the file itself, not a folder of folders)"
    if not found:
        raise error("no %s in the %s: expected %s; found %s. %s"
                    % (missing, what, wanted, _listing(directory), hint[0].upper() + hint[1:] + "."))
    raise error("the %s holds %d files where one was expected (%s): %s"
                % (what, len(found), wanted, ", ".join(os.path.basename(f) for f in found)))


# Two-file scoring (score_files): {folder: the one file given for it}. The file stands for the name the task
# expects when it has the same extension, so a participant's "run3.csv" is read where "submission.csv" is expected.
STANDS_IN = {}
# {the file given: the names it stood for}, so that messages written with the expected name can name the file given.
STOOD_FOR = {}


def _same_kind(name, names, suffix):
    extension = os.path.splitext(name)[1].lower()
    if names is not None:
        return any(os.path.splitext(n)[1].lower() == extension for n in names)
    return name.lower().endswith(suffix)


def find_submission_file(res_dir, names=None, suffix=None, expected=None):
    return find_file(res_dir, names, suffix, "submission", SubmissionError, expected)


def find_reference_file(ref_dir, names=None, suffix=None):
    return find_file(ref_dir, names, suffix, "reference data", ReferenceDataError)


# ---------------------------------------------------------------------------------------------------------------
# Reading text and CSV


def read_text(path, label=None, error=SubmissionError):
    """The file's text, decoded as UTF-8 with an optional byte-order mark removed."""
    label = label or os.path.basename(path)
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        # utf-8-sig counts from after the byte-order mark: the offset in the file is 3 more then
        start = exc.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)
        line = data[:start].count(b"\n") + 1
        raise error("%s, line %d: the file is not UTF-8 text (byte 0x%02x at offset %d)"
                    % (label, line, data[start], start))


def iter_lines(text):
    """(line number, line) pairs, 1-based, for LF, CRLF or CR line ends; no line-end characters."""
    return enumerate(text.splitlines(), 1)


def numbered_lines(path, label=None, error=SubmissionError, max_line=None):
    """What ``iter_lines(read_text(path, label, error))`` gives, read as a stream: the caller that stops at a bad
    line has read the file only up to it, and a byte that is not UTF-8 gets read_text's message when it is reached.
    With ``max_line``, a line of more bytes is refused once that much of it has been read.

    The bytes are split at \\n (which UTF-8 never uses inside a character) and each piece decoded and split as
    str.splitlines splits, so the numbers are those of iter_lines whatever the line ends."""
    label = label or os.path.basename(path)
    number, offset, newlines = 0, 0, 0
    with open(path, "rb") as handle:
        while True:
            raw = handle.readline() if max_line is None else handle.readline(max_line + 2)
            if not raw:
                return
            if max_line is not None and len(raw) > max_line and len(raw.rstrip(b"\r\n")) > max_line:
                raise error("%s, line %d: the line is longer than %d bytes; no line of this file needs that many"
                            % (label, number + 1, max_line))
            try:
                text = raw.decode("utf-8-sig" if offset == 0 else "utf-8")
            except UnicodeDecodeError as exc:
                start = exc.start + (3 if offset == 0 and raw.startswith(b"\xef\xbb\xbf") else 0)  # as read_text
                raise error("%s, line %d: the file is not UTF-8 text (byte 0x%02x at offset %d)"
                            % (label, newlines + 1, raw[start], offset + start))
            offset += len(raw)
            newlines += 1
            for line in text.splitlines():
                number += 1
                yield number, line


def read_csv(path, label=None, error=SubmissionError, strip_spaces=False, stream=False, columns=None, tabs=False,
             max_line=None):
    """Read a CSV file as (header, rows) where rows are (line number, list of cells).

    The line number is the one where the record starts, so multi-line quoted cells are reported usefully.
    Empty records are skipped. With ``strip_spaces``, spaces around cells are removed. With ``stream``, rows is
    an iterator, so a caller that keeps a few columns does not hold every cell (long texts) in memory.
    With ``tabs``, a TSV file: cells separated by tabs, a record per line, no quoting (a quote is a character).
    ``columns``, called with the header, may return the positions of the only cells the caller reads: in rows with
    as many cells as the header, the others may then be '' (plain CSV skips them instead of building them).
    ``max_line``: the most characters a line of this file can sensibly hold; a longer line is refused after reading
    that much of it (a run of short rows with one huge line costs no more than the limit).
    """
    label = label or os.path.basename(path)
    records = _csv_records(path, label, error, strip_spaces, columns, tabs, max_line)
    header = next(records, None)
    if header is None:
        raise error("%s is empty: expected a header line" % label)
    return header[1], (records if stream else list(records))


def stream_lines(path, label=None, error=SubmissionError, max_line=None):
    """The file's lines with their ends, read as a stream (UTF-8, an optional byte-order mark removed).

    Lines end only at \r\n, \r and \n (newline=""), never at \u2028 and friends, which may sit unquoted in a CSV
    cell. Only a chunk of the file is in memory at a time, so a large file costs the little the caller keeps. With
    ``max_line``, a line of more characters is refused (``error`` naming it) once that much of it has been read.
    """
    label = label or os.path.basename(path)
    try:
        with io.open(path, encoding="utf-8-sig", newline="") as handle:
            if max_line is None:
                for line in handle:
                    yield line
                return
            number = 0
            while True:
                line = handle.readline(max_line + 2)  # room for the line's characters and a \r\n
                if not line:
                    return
                number += 1
                if len(line) > max_line and len(line.rstrip("\r\n")) > max_line:
                    raise error("%s, line %d: the line is longer than %d characters; no line of this file needs "
                                "that many" % (label, number, max_line))
                yield line
    except UnicodeDecodeError:
        read_text(path, label, error)  # raises the message that names the line and the byte
        raise error("%s is not UTF-8 text" % label)


def _is_blank(record):
    return not record or (len(record) == 1 and not record[0].strip())


def _csv_records(path, label, error, strip_spaces, columns=None, tabs=False, max_line=None):
    """Non-blank records as (line, cells): plain CSV through fast_csv, the rest (and every error) by the csv module."""
    done = 0
    if not strip_spaces and not tabs:
        try:
            for line, record in fast_csv.records(path, columns):
                done += 1
                if len(record) > 1 or record[0].strip():  # not blank (fast_csv never returns [])
                    yield line, record
            return
        except fast_csv.NotPlain:
            pass
    lines = stream_lines(path, label, error, max_line)
    for item in _csv_module_records(lines, label, error, strip_spaces, done, tabs):
        yield item


def _csv_module_records(lines, label, error, strip_spaces, skip, tabs=False):
    # Gold texts can be long; the csv module's default cell limit (128 KiB) is arbitrary.
    csv.field_size_limit(min(sys.maxsize, 2 ** 31 - 1))
    if tabs:
        reader = csv.reader(lines, delimiter="\t", quoting=csv.QUOTE_NONE, skipinitialspace=strip_spaces)
    else:
        reader = csv.reader(lines, skipinitialspace=strip_spaces)
    start = 1
    try:
        for number, record in enumerate(reader):
            line = start
            start = reader.line_num + 1
            if number < skip or _is_blank(record):
                continue  # records fast_csv has returned already, or blank
            if strip_spaces:
                record = [cell.strip() for cell in record]
            yield line, record
    except csv.Error as exc:
        raise error("%s, line %d: this is not valid %s (%s)" % (label, start, "TSV" if tabs else "CSV", exc))


# ---------------------------------------------------------------------------------------------------------------
# Values from participants: the same rules in every task

# A value quoted in a message is cut to this length: a field can be megabytes long.
QUOTE_LIMIT = 40
# Numbers used as numbers (offsets, ids counted as such) have at most this many digits. Python refuses to convert
# more than 4,300 digits (3.11+) and is quadratic below that; no offset or id needs 30.
MAX_INTEGER_DIGITS = 30
# JSON nested deeper than this is refused before parsing (the parser would otherwise recurse until it fails).
MAX_JSON_DEPTH = 100

# ASCII digits only: int() also accepts other scripts' digits ('\uff11'), underscores and surrounding spaces.
_INTEGER_RE = re.compile(r"[+-]?[0-9]+\Z")
_JSON_TOKEN_RE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def shorten(text, limit=QUOTE_LIMIT):
    """``text`` on one line and at most ``limit`` characters, for a message."""
    text = u"%s" % (text,)
    head = u" ".join(text[:4 * limit].split())  # only a bounded prefix is looked at
    if len(head) <= limit and len(text) <= 4 * limit:
        return head
    return head[:limit - 3] + u"..."


def quote(text, limit=QUOTE_LIMIT):
    """A participant's value in a message: between quotes, on one line, shortened."""
    return u"'%s'" % shorten(text, limit)


def is_integer(text):
    """True for an optional sign and ASCII digits, nothing else (no spaces)."""
    return _INTEGER_RE.match(text) is not None


def parse_integer(text, what="the number"):
    """The int written in ``text`` (an optional sign and ASCII digits; spaces around are ignored).

    Raises ValueError with a message in the participant's terms, e.g. "the offset '１２' is not a whole number
    (digits 0-9)", which the caller prefixes with the file and line."""
    value = text.strip()
    if not _INTEGER_RE.match(value):
        raise ValueError("%s %s is not a whole number (digits 0-9)" % (what, quote(value)))
    digits = len(value.lstrip("+-"))
    if digits > MAX_INTEGER_DIGITS:
        raise ValueError("%s %s has %d digits, more than the %d allowed" % (what, quote(value), digits,
                                                                            MAX_INTEGER_DIGITS))
    return int(value)


def canonical_integer(text):
    """An integer id written as ``int`` would print it (no '+', no leading zeros, '-0' as '0'), done on the text,
    so an id of any length compares as a number without converting it; None when ``text`` is not an integer."""
    value = text.strip()
    if not _INTEGER_RE.match(value):
        return None
    digits = value.lstrip("+-").lstrip("0") or "0"
    return "-" + digits if value.startswith("-") and digits != "0" else digits


# The skeleton of a JSON text for the quick checks below: brackets as ( and ), digits as 0, quotes and commas kept,
# every other byte deleted.
_SKELETON = (bytes(bytearray(range(256))).replace(b"[", b"(").replace(b"{", b"(").replace(b"]", b")")
             .replace(b"}", b")").replace(b"0123456789", b"0" * 10),
             bytes(bytearray(b for b in range(256) if b not in bytearray(b'"[]{},0123456789'))))
_QUOTED_BYTES_RE = re.compile(b'"[^"]*"')


def _json_skeleton(data):
    """The skeleton of the UTF-8 JSON text ``data`` (bytes, or a str encoded here), its escapes removed first when
    some escape a quote or a backslash: matched from the left, as a parser reads them, so the quotes left delimit
    the strings of any valid JSON text. Bytes methods over the whole text, not a Python loop."""
    if isinstance(data, str):
        # Encoded here, the bytes have no other reference: each step below frees the previous copy (peak memory).
        data = data.encode("utf-8", "surrogatepass")
    # Escapes matched from the left: the escaped backslashes go first, then the escaped quotes (a quote after a run
    # of backslashes is escaped when the run is odd). Any other escape (\n, \u00e9) is a backslash and a letter,
    # which the translation deletes anyway; for valid JSON this is what deleting every match of
    # rb"\\." gives, with two bytes.replace (one copy each) instead of a regex (which holds its pieces and their join
    # at once: twice the file's size more at the peak).
    if b"\\" in data:  # (one byte is searched for much faster than two)
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    return data.translate(*_SKELETON)


def _json_shallow(skeleton, max_depth):
    """True when the text of ``skeleton`` nests at most ``max_depth`` deep as _json_too_deep counts; False when that
    takes the full scan to say. Exact for a text without backslashes and for valid JSON (the caller's json.loads says
    which), not for every invalid text with backslashes (one outside a string escapes nothing for _json_too_deep).

    Once every quote left delimits a string, two adjacent quotes (an empty string or, once the rest is gone, the end
    of one string and the start of the next) can go without changing which brackets sit inside strings. Balanced
    brackets then lose one level per round of deleting adjacent pairs."""
    skeleton = skeleton.translate(None, b"0,")
    if skeleton.count(b'"') % 2:
        return False  # a quote that opens no string: the full scan reads on after it
    skeleton = _QUOTED_BYTES_RE.sub(b"", skeleton.replace(b'""', b""))
    for _ in range(max_depth):
        if not skeleton:
            return True
        skeleton = skeleton.replace(b"()", b"")
    return not skeleton


def _json_too_deep(text, max_depth):
    """The line where ``text`` first nests deeper than ``max_depth``, or None (strings are skipped)."""
    depth = 0
    for match in _JSON_TOKEN_RE.finditer(text):
        token = match.group(0)
        if token in "[{":
            depth += 1
            if depth > max_depth:
                return text.count("\n", 0, match.start()) + 1
        elif token in "]}":
            depth -= 1
    return None


def _refuse_if_too_deep(text, label, error):
    line = _json_too_deep(text, MAX_JSON_DEPTH)
    if line is not None:
        raise error("%s, line %d: the JSON is nested more than %d levels deep" % (label, line, MAX_JSON_DEPTH))


_LONG_RUN = b"0" * (MAX_INTEGER_DIGITS + 1)


def _has_long_number(skeleton):
    """Whether a run of more than MAX_INTEGER_DIGITS digits may stand outside the strings of the text whose
    skeleton this is (the strings cut out as a parser reads them, from the left). Runs inside strings (long ids)
    do not count: they would send every integer of the file through _bounded_int, a Python call each."""
    return _LONG_RUN in skeleton and _LONG_RUN in _QUOTED_BYTES_RE.sub(b"", skeleton)


class _LongNumber(ValueError):
    pass


def _bounded_int(text):
    try:
        return parse_integer(text, "the number")
    except ValueError as exc:
        raise _LongNumber(str(exc))


def load_json(text, label, error=SubmissionError, **options):
    """Parse JSON text; ``error`` with the file, line and problem when it is not valid, nests deeper than
    MAX_JSON_DEPTH or holds an integer longer than MAX_INTEGER_DIGITS. ``options`` go to json.loads.

    A text nested too deep gets that message, whatever else is wrong with it; _json_too_deep (a Python loop) is run
    only when the quick check cannot say, or when json.loads refuses a text with backslashes."""
    escapes = "\\" in text  # a backslash is the byte 0x5c in UTF-8 and no other character has it
    skeleton = _json_skeleton(text)
    # Deleting bytes joins runs of digits but never splits one: with no run of more digits than allowed in the
    # skeleton, there is none in the text, every integer passes _bounded_int, so json's own int is the same.
    long_digits = _has_long_number(skeleton)
    shallow = _json_shallow(skeleton, MAX_JSON_DEPTH)
    del skeleton
    if not shallow:
        _refuse_if_too_deep(text, label, error)
    try:
        return json.loads(text, parse_int=_bounded_int if long_digits else int, **options)
    except (RecursionError, ValueError) as exc:  # _LongNumber is a ValueError
        if shallow and escapes:  # the quick check was exact only if the text was valid JSON
            _refuse_if_too_deep(text, label, error)
        if isinstance(exc, RecursionError):  # not reached after the checks; kept so a deep file never crashes
            raise error("%s: the JSON is nested too deeply" % label)
        if isinstance(exc, _LongNumber):
            raise error("%s: %s" % (label, exc))
        if hasattr(exc, "lineno"):
            raise error("%s, line %d, column %d: not valid JSON (%s)" % (label, exc.lineno, exc.colno, exc.msg))
        raise error("%s: not valid JSON (%s)" % (label, exc))


# ---------------------------------------------------------------------------------------------------------------
# Numbers


def mean(values):
    """Arithmetic mean computed with exact summation, so the result does not depend on the order of the values."""
    values = list(values)
    return math.fsum(values) / len(values) if values else 0.0


def format_score(value):
    """A plain decimal with 15 digits after the point: no exponent, readable by every platform's parser."""
    value = float(value)
    if math.isnan(value) or math.isinf(value) or abs(value) >= 1e10:
        raise ValueError("score %r cannot be stored by CodaLab (finite and below 1e10 in magnitude)" % value)
    text = "%.15f" % value
    return "0.000000000000000" if text == "-0.000000000000000" else text
