"""Reading one eHealth-KD 2019 scenario: the sentence file, key phrases (output_a) and relations (output_b).

Offsets and normalisations follow the official 2019 scorer, so that well-formed files load exactly as it loaded
them: stripped lines, one newline after each sentence, single spans split into words, relation labels lower-cased,
duplicate relations dropped. A malformed line raises ``FormatProblem``, which the caller turns into a
SubmissionError (with the details) or a ReferenceDataError (without them: a message about gold data must not show
its contents).

Files are given as iterables of lines, so a large submission is read as a stream. Every line is checked, but only
the sentences the caller asks for (``wanted``) keep their annotations: in scenario 1 that is 100 of 8,800. Of the
other key phrases only the sentence is kept, in an array by ID (``_Ids``), for the relations to be resolved and
checked against. Most lines are read by a short path (one match, a few comparisons); any line that does not take it
goes through the checks one by one, which give the messages, so both ways accept and refuse the same lines.
"""
import bisect
import io
import json
import re
from array import array
from itertools import accumulate, compress, islice, repeat
from operator import add, le, ne

from scoring_runtime import parse_integer, quote


class FormatProblem(Exception):
    def __init__(self, where, summary, detail):
        Exception.__init__(self, "%s: %s" % (where, detail))
        self.where = str(where)
        self.summary = summary  # says what is wrong without quoting the line
        self.detail = detail


class Keyphrase(object):
    __slots__ = ("id", "label", "spans", "line", "sentence")

    def __init__(self, kid, label, spans, line, sentence):
        self.id = kid
        self.label = label
        self.spans = spans  # sentence-relative (start, end) pairs, sorted, end exclusive
        self.line = line
        self.sentence = sentence  # index of its sentence


class Relation(object):
    __slots__ = ("label", "source", "target", "line")

    def __init__(self, label, source, target, line):
        self.label = label
        self.source = source  # Keyphrase objects of the same sentence
        self.target = target
        self.line = line


class Sentence(object):
    __slots__ = ("text", "line", "keyphrases", "relations")

    def __init__(self, text, line):
        self.text = text
        self.line = line  # 1-based line of the sentence file
        self.keyphrases = []
        self.relations = []

    @property
    def annotated(self):
        return bool(self.keyphrases or self.relations)


class Scenario(object):
    """The sentence texts of a scenario and the annotated Sentence objects of the sentences that were kept."""

    def __init__(self, texts):
        self.texts = texts
        self.kept = {}  # sentence index -> Sentence
        self.cross_sentence_relations = 0
        self.cross_sentence_keyphrases = []  # output_a line numbers of key phrases reaching past their sentence

    def sentence(self, index):
        found = self.kept.get(index)
        return found if found is not None else Sentence(self.texts[index], index + 1)

    def annotated(self):
        """Indices of the sentences with at least one key phrase or relation, in file order."""
        return sorted(index for index, sentence in self.kept.items() if sentence.annotated)

    @property
    def sentences(self):
        return [self.sentence(index) for index in range(len(self.texts))]


def text_lines(text):
    """The lines of a text as a text-mode file yields them (\\n, \\r\\n and \\r end a line)."""
    return io.StringIO(text, newline=None)


def word_spans(text, start, end):
    """A single span cut at every space of the sentence text: one span per word. A span reaching past the
    sentence keeps its end as written (as the official scorer does), so it cannot match a gold span."""
    spans = []
    position = start
    for word in text[start:end].split(" "):
        if word:
            spans.append((position, position + len(word)))
        position += len(word) + 1
    if end > len(text):
        spans[-1:] = [(spans[-1][0] if spans else start, end)]
    return tuple(spans)


class _Line(object):
    """Where a line is, for messages: one object per file, renumbered as the lines go, formatted only on a problem
    (formatting it for each of millions of lines was a large part of the reading time)."""
    __slots__ = ("name", "number")

    def __init__(self, name):
        self.name = name
        self.number = 0

    def __str__(self):
        return "%s, line %d" % (self.name, self.number)


# A plain number: ASCII digits only (int() alone would also take '１', '1_000' and ' 7'), few enough to be exact.
_PLAIN_NUMBER = re.compile(r"[0-9]{1,18}\Z").match
# Well-formed lines in their usual shape (single spaces, no stray whitespace) are read by one match up to the first
# character of a label that is not blank (\s is what str.strip removes); the caller then checks that at most one
# tab follows (LABEL, or LABEL<TAB>TEXT), which is cheaper than matching the text. Any other line goes through the
# field-by-field checks and their messages.
_PLAIN_KEYPHRASE = re.compile(r"([0-9]{1,18})\t([0-9]{1,18}) ([0-9]{1,18})((?:;[0-9]{1,18} [0-9]{1,18})*)"
                              r"\t[^\S\t\n]*\S").match
_PLAIN_SPANS = re.compile(r"[0-9]{1,18} [0-9]{1,18}(?:;[0-9]{1,18} [0-9]{1,18})+\Z").match
_PLAIN_RELATION = re.compile(r"([^\t\r\n]*)\t([0-9]{1,18})\t([0-9]{1,18})\n?\Z").match
_IDS_AND_COMMAS = re.compile(r"[0-9,]*\Z").match  # a batch's IDs joined by commas, before json reads them
_BATCH = 512  # relation lines read together (a larger batch no longer fits the processor's caches: slower)


def _key_id(field, where):
    """The fast path for a well-formed id, else the runtime's rules (and their message)."""
    return int(field) if _PLAIN_NUMBER(field) else _whole_number(field, where)


def _whole_number(field, where):
    try:
        return parse_integer(field, "the key-phrase ID")
    except ValueError as exc:
        raise FormatProblem(where, "a key-phrase ID that is not a whole number", str(exc))


def _parse_spans(field, where):
    if ";" not in field:  # one span, the common case: the checks of _checked_spans, in short
        bounds = field.split()
        if len(bounds) == 2 and _PLAIN_NUMBER(bounds[0]) and _PLAIN_NUMBER(bounds[1]):
            start, end = int(bounds[0]), int(bounds[1])
            if start <= end:
                return [(start, end)]
    elif _PLAIN_SPANS(field):  # several spans in their usual shape
        spans = [(int(start), int(end)) for start, end in (piece.split(" ") for piece in field.split(";"))]
        if all(start <= end for start, end in spans):
            return spans
    return _checked_spans(field, where)


def _checked_spans(field, where):
    """The spans, or the FormatProblem that says what is wrong with them."""
    spans = []
    for piece in field.split(";"):
        bounds = piece.split()
        if len(bounds) != 2:
            raise FormatProblem(where, "malformed spans", "the spans %s are not START END pairs of whole numbers "
                                                          "joined by ';'" % quote(field))
        try:
            start, end = parse_integer(bounds[0], "the offset"), parse_integer(bounds[1], "the offset")
        except ValueError as exc:
            raise FormatProblem(where, "malformed spans", "in the spans %s, %s" % (quote(field), exc))
        if start < 0:
            raise FormatProblem(where, "a negative offset", "the span %d %d has a negative offset" % (start, end))
        if end < start:  # an empty span is accepted, as the official scorer did (its baseline has some)
            raise FormatProblem(where, "a reversed span",
                                "the span %d %d is reversed (END must not be less than START)" % (start, end))
        spans.append((start, end))
    return spans


def _wrong_fields(where, count, layout):
    return FormatProblem(where, "a wrong number of fields", "expected %s, found %d tab-separated field%s"
                         % (layout, count, "" if count == 1 else "s"))


class _Ids(object):
    """Where each key-phrase ID of a file was defined: the index of its sentence, and its Keyphrase when the caller
    keeps that sentence.

    IDs are usually numbered from 1 in file order, so the indices sit in an array by ID (4 bytes each, -1 where
    undefined), which the relation reader reads in C calls; a dict of millions of int objects took more memory and
    time than the rest of the reading. An ID far beyond the number of lines read (IDs need not be dense) goes to a
    dict instead, and so do all IDs after it: the array then stops growing, so an ID is only ever in one of the two.
    Negative IDs (the checks allow a sign) go to the dict as well.
    """
    __slots__ = ("table", "size", "sparse", "kept", "wanted")

    def __init__(self, wanted):
        self.table = array("i", [-1]) * 4096  # grown as IDs come (a file of a few lines reads the same way)
        self.size = len(self.table)  # read in the readers' loops
        self.sparse = {}
        self.kept = {}  # ID -> Keyphrase, for the sentences the caller keeps
        self.wanted = wanted  # indices of the kept sentences, None for all

    def sentence(self, kid):
        """The index of the sentence of key phrase ``kid``, -1 if no key phrase has that ID."""
        return self.table[kid] if 0 <= kid < self.size else self.sparse.get(kid, -1)

    def define(self, kid, index, lines_read):
        if 0 <= kid < self.size:
            self.table[kid] = index
        elif not self.sparse and 0 <= kid < 4 * lines_read + 65536:
            grow = max(kid + 1 - self.size, self.size)  # at least double: few copies
            self.table.frombytes(b"\xff" * (grow * self.table.itemsize))  # all bits set: -1
            self.size += grow
            self.table[kid] = index
        else:
            self.sparse[kid] = index


def _load_keyphrases(lines, name, scenario, wanted):
    texts = scenario.texts
    starts = [0]  # where each sentence starts in the offsets: its text and one newline after each (in C calls: a
    starts.extend(accumulate(map(add, map(len, texts), repeat(1))))  # test set has 8,800 sentences, or 880,000)
    total = starts.pop()
    ids = _Ids(wanted)
    table, size = ids.table, ids.size
    where = _Line(name)
    plain, after, crossing = _PLAIN_KEYPHRASE, bisect.bisect_right, scenario.cross_sentence_keyphrases
    # The sentence of the last key phrase read in the usual shape: its index, where it starts (low), where the next
    # starts (high), where its text ends (limit), and whether the caller keeps it. Key phrases come in the order
    # of their sentences, so most lines need no search.
    near, low, high, limit, keep = -1, 0, 0, 0, False
    for number, raw in enumerate(lines, 1):
        match = plain(raw)
        if match is not None:
            kid, start, end, more = match.groups()
            kid, start, end = int(kid), int(start), int(end)
            if not low <= start < high:
                if start < total:
                    near = after(starts, start) - 1
                    low, limit = starts[near], starts[near] + len(texts[near])
                    high = limit + 1
                    keep = wanted is None or near in wanted
                else:
                    keep = True  # not the short path: the checks below say what is wrong (and nothing is read after)
            # The usual line, in short: one span, in the sentence of the key phrase before, which the caller does not
            # keep, a new ID inside the array, at most one tab after the label's first character (the match has
            # seen two tabs).
            if not keep and kid < size and table[kid] < 0 and raw.count("\t") < 4:
                if not more:
                    if start <= end:
                        if end > limit:
                            crossing.append(number)
                        table[kid] = near
                        continue
                else:  # several spans: every START END pair in order, crossing if any bound is outside the sentence
                    bounds = [start, end]
                    bounds.extend(map(int, more[1:].replace(";", " ").split(" ")))
                    if all(map(le, bounds[0::2], bounds[1::2])):
                        if min(bounds) < low or max(bounds) > limit:
                            crossing.append(number)
                        table[kid] = near
                        continue
            # Any other line in the usual shape: one whose sentence the caller keeps, or whose ID lies beyond the
            # array, when it passes all the checks below.
            if more:
                spans = [(start, end)]
                spans.extend((int(a), int(b)) for a, b in (piece.split(" ") for piece in more[1:].split(";")))
                ordered, inside = all(a <= b for a, b in spans), all(low <= a and b <= limit for a, b in spans)
            else:
                spans, ordered, inside = ((start, end),), start <= end, end <= limit
            if ordered and low <= start < high and ids.sentence(kid) < 0 and raw.count("\t") < 4:
                index = near
                label = raw.rstrip("\r\n").split("\t")[2].strip()
            else:
                match = None  # the checks below say what is wrong, in their order
        if match is None:
            if not raw or raw.isspace():
                continue
            where.number = number  # a line in the usual shape raises nothing: no need to number it
            fields = raw.rstrip("\r\n").split("\t")
            if len(fields) not in (3, 4):
                raise _wrong_fields(where, len(fields), "ID<TAB>START END[;START END...]<TAB>LABEL[<TAB>TEXT]")
            kid = _key_id(fields[0], where)
            label = fields[2].strip()
            if not label:
                raise FormatProblem(where, "an empty label", "the label is empty")
            if ids.sentence(kid) >= 0:
                raise FormatProblem(where, "a duplicate key-phrase ID", "the key-phrase ID %d is used twice" % kid)
            spans = _parse_spans(fields[1], where)
            # The key phrase belongs to the sentence where its first span (as written) starts, and its spans are
            # kept as they are, as the official scorer does: a span reaching into another sentence (a
            # discontinuous phrase whose second span crosses the line) is accepted and simply matches no gold key
            # phrase.
            first = spans[0][0]
            if first >= total:
                raise FormatProblem(where, "a span outside the sentence file",
                                    "the span %d %d starts after the end of the sentence file (%d characters)"
                                    % (first, spans[0][1], total))
            index = after(starts, first) - 1
            inside = all(starts[index] <= a and b <= starts[index] + len(texts[index]) for a, b in spans)
        if not inside:
            crossing.append(number)
        if wanted is None or index in wanted:
            base, text = starts[index], texts[index]
            if len(spans) == 1:
                start, end = spans[0][0] - base, spans[0][1] - base
                piece = text[start:end]  # one word, as a span usually is, or the words of word_spans
                relative = ((start, end),) if piece and end <= len(text) and " " not in piece \
                    else word_spans(text, start, end)
            else:
                relative = tuple(sorted((start - base, end - base) for start, end in spans))
            sentence = scenario.kept.get(index)
            if sentence is None:
                sentence = scenario.kept[index] = Sentence(text, index + 1)
            keyphrase = Keyphrase(kid, label, relative, number, index)
            sentence.keyphrases.append(keyphrase)
            ids.kept[kid] = keyphrase
        ids.define(kid, index, number)
        size = ids.size
    return ids


def _load_relations(lines, name, scenario, ids):
    seen = set()
    where = _Line(name)
    lines = iter(lines)
    number = 1
    while True:
        batch = list(islice(lines, _BATCH))
        if not batch:
            return
        if not _plain_relations(batch, number, scenario, ids, seen):
            _relation_lines(enumerate(batch, number), where, scenario, ids, seen)
        number += len(batch)


def _plain_relations(batch, number, scenario, ids, seen):
    """Read a batch of lines that are all relations in the usual shape between known key phrases, in C calls
    except for the relations of the sentences the caller keeps; False (nothing done) for any other batch, which
    _relation_lines then reads line by line."""
    count = len(batch)
    if list(map(str.count, batch, repeat("\t"))).count(2) != count:
        return False  # not three fields on every line
    fields = "".join(batch).replace("\n", "\t").split("\t")
    if len(fields) not in (3 * count, 3 * count + 1):  # each line ends with its newline, but the file's last
        return False
    labels, sources, targets = fields[0:3 * count:3], fields[1::3], fields[2::3]
    if max(max(map(len, sources)), max(map(len, targets))) > 18:
        return False  # a long number: the line-by-line reading says what is wrong with it
    sources, targets = ",".join(sources), ",".join(targets)
    if not (_IDS_AND_COMMAS(sources) and _IDS_AND_COMMAS(targets) and all(map(str.strip, labels))):
        return False
    try:  # json reads many numbers faster than int() one by one, and refuses empty IDs and leading zeros
        sources, targets = json.loads("[%s]" % sources), json.loads("[%s]" % targets)
    except ValueError:
        return False
    if len(sources) != count or len(targets) != count:
        return False  # an empty ID on the file's last line (no newline after it) joins into no number at all
    find = ids.table.__getitem__ if max(max(sources), max(targets)) < ids.size else ids.sentence
    at_source, at_target = list(map(find, sources)), list(map(find, targets))
    if min(at_source) < 0 or min(at_target) < 0:
        return False
    # The official scorer ignores relations between two sentences: they are only counted, kept or not.
    scenario.cross_sentence_relations += sum(map(ne, at_source, at_target))
    kept = range(count) if ids.wanted is None else compress(range(count), map(ids.wanted.__contains__, at_source))
    for position in kept:
        if at_source[position] == at_target[position]:
            _keep_relation(labels[position].strip().lower(), sources[position], targets[position],
                           at_source[position], number + position, scenario, ids, seen)
    return True


def _keep_relation(label, source, target, index, number, scenario, ids, seen):
    """A relation between two key phrases of sentence ``index``, which the caller keeps."""
    key = (label, source, target)  # IDs are unique in the file, so one set serves every sentence
    if key in seen:
        return  # duplicates count once, in gold and submission alike
    seen.add(key)
    scenario.kept[index].relations.append(Relation(label, ids.kept[source], ids.kept[target], number))


def _relation_lines(numbered_lines, where, scenario, ids, seen):
    plain, wanted = _PLAIN_RELATION, ids.wanted
    for number, raw in numbered_lines:
        match = plain(raw)
        if match is not None:
            label, source, target = match.groups()
            source, target = int(source), int(target)
            ends = ids.sentence(source), ids.sentence(target)
            if min(ends) < 0 or not label.strip():
                match = None  # the checks below say what is wrong, in their order
            else:
                label = label.strip().lower()
        if match is None:
            if not raw or raw.isspace():
                continue
            where.number = number  # a line in the usual shape raises nothing: no need to number it
            fields = raw.rstrip("\r\n").split("\t")
            if len(fields) != 3:
                raise _wrong_fields(where, len(fields), "LABEL<TAB>SOURCE_ID<TAB>TARGET_ID")
            label = fields[0].strip().lower()
            if not label:
                raise FormatProblem(where, "an empty relation label", "the relation label is empty")
            kids, ends = [], []
            for field in fields[1:]:
                kids.append(_key_id(field, where))
                ends.append(ids.sentence(kids[-1]))
                if ends[-1] < 0:
                    raise FormatProblem(where, "an unknown key-phrase ID",
                                        "the key-phrase ID %d is not defined in the output_a file" % kids[-1])
            source, target = kids
        if ends[0] != ends[1]:
            scenario.cross_sentence_relations += 1  # the official scorer ignores relations between sentences
        elif wanted is None or ends[0] in wanted:
            _keep_relation(label, source, target, ends[0], number, scenario, ids, seen)


def load_scenario(sentence_lines, a_lines, b_lines, a_name, b_name, wanted=None):
    """Parse one scenario from three iterables of lines; ``a_name`` and ``b_name`` label them in messages.

    ``wanted``: indices of the sentences whose annotations are kept (None: all)."""
    scenario = Scenario(list(map(str.strip, sentence_lines)))
    ids = _load_keyphrases(a_lines, a_name, scenario, wanted)
    _load_relations(b_lines, b_name, scenario, ids)
    return scenario
