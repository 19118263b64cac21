"""Kind ``sequence``: a tag per token (named entities, chunks), scored over chunks as conlleval.pl scores them.

Files: CoNLL columns (a token per line, the token first and its tag last, other columns ignored; a blank line
between sentences; -DOCSTART- lines skipped) or JSON lines {"id", "tokens", "tags"} (.json, .jsonl). The
submission has the gold's tokens, in the gold's sentences, and its own tags. Options, as conlleval.pl: "docstart":
"token" counts each -DOCSTART- line of a CoNLL gold as a right token in accuracy; "tokens": "ignore" pairs the tags
with the gold's by position whatever the submission's tokens (sentence lengths must agree), with a warning.

Chunks, with ``scheme`` "conlleval" (the default): exactly conlleval.pl's reading (its startOfChunk/endOfChunk and
its count of correct chunks: same start, same end, same type in both), which reads IOB1, IOB2 (BIO) and IOE tags,
takes an I- tag that does not continue a chunk as the start of one, and "[" / "]" brackets. With "iob2" or
"iobes": seqeval's strict mode (a chunk is B-X I-X* or, in IOBES, S-X or B-X I-X* E-X; other tags belong to no
chunk; a tag outside the scheme is an error).
  precision = correct / predicted chunks, recall = correct / gold chunks, f1 = 2 correct / (gold + predicted)
  (0 when the denominator is 0; micro over all chunks, as conlleval.pl, but fractions, not percentages)
  accuracy  = tokens whose tag is the gold's / tokens (all tokens, O included, as conlleval.pl)
  f1_<type>, precision_<type>, recall_<type>: the same over the chunks of one type; <type> is the type's name in
  lower case with every character other than a-z, 0-9 replaced by "_" (PER: f1_per).
Per-item statistics (unit: sentence): "sentences", "tokens", "correct_tokens" and, per chunk type T,
"gold:T", "predicted:T", "correct:T": summed over any sentences they give every key exactly.
"""
import bisect
import io
import json
import re
from collections import Counter, namedtuple
from itertools import chain
from operator import itemgetter

from report_html import paragraph, section, table
from scoring_runtime import Items, ReferenceDataError, SubmissionError, quote, read_text

from generic_items import ordinal
from generic_result import make_result, scores_section
from generic_table import check_complete, describe, id_key, locate

SCHEMES = ("conlleval", "iob2", "iobes")
DOCSTART = "-DOCSTART-"
# Per-type keys: f1_per, precision_loc, recall_np, ...
TYPE_KEY = re.compile(r"^(f1|precision|recall)_([a-z0-9_]+)$")
_NOT_NAME = re.compile(r"[^a-z0-9]")
_SHOWN_CHUNKS = 4
# The tags each strict scheme allows, besides O: a prefix, "-" and a type.
_STRICT_PREFIXES = {"iob2": ("B", "I"), "iobes": ("B", "I", "E", "S")}


def type_name(chunk_type):
    """The name of a chunk type in score keys: PER -> per, B-NP's NP -> np, ORG-X -> org_x."""
    return _NOT_NAME.sub("_", chunk_type.lower())


def is_json(name):
    lower = name.lower()
    return lower.endswith(".jsonl") or lower.endswith(".json")


# ---------------------------------------------------------------------------------------------------------------
# Tags and chunks


def conll_tag(tag):
    """(prefix, type) as conlleval.pl splits a tag: at its first "-" ("B-PER" -> B, PER; "O" -> O, ""); a type
    Perl reads as false ("0") is "", as there."""
    at = tag.find("-")
    if at < 0:
        return tag, ""
    kind = tag[at + 1:]
    return tag[:at], "" if kind == "0" else kind


def _conll_end(prev, cur):
    """conlleval.pl's endOfChunk: a chunk ended between the tags ``prev`` and ``cur`` ((prefix, type) pairs)."""
    p, pt = prev
    c, ct = cur
    return ((p == "B" or p == "I") and (c == "B" or c == "O") or p == "E" and (c == "E" or c == "I" or c == "O")
            or p != "O" and p != "." and pt != ct or p == "]" or p == "[")


def _conll_start(prev, cur):
    """conlleval.pl's startOfChunk: a chunk starts at the tag ``cur``."""
    p, pt = prev
    c, ct = cur
    return ((c == "B" and (p == "B" or p == "I" or p == "O")) or (p == "O" and (c == "I" or c == "E"))
            or (p == "E" and (c == "E" or c == "I")) or c != "O" and c != "." and pt != ct or c == "[" or c == "]")


_OUTSIDE = ("O", "")


class Chunker(object):
    """The chunk rules of a scheme, with the tags' readings and the transitions cached (a corpus has few tags)."""

    def __init__(self, scheme):
        self.scheme = scheme
        self.strict = scheme != "conlleval"
        self.parsed = {"O": _OUTSIDE}
        self.moves = {}  # (previous tag, tag) -> (a chunk ends before tag, a chunk starts at tag), conlleval

    def parse(self, tag, where=None):
        """(prefix, type) of ``tag``; in a strict scheme, ``where`` ("file, line N", error) reports a tag outside
        the scheme (a submission's tag is quoted; a gold tag never is)."""
        found = self.parsed.get(tag)
        if found is not None:
            return found
        if not self.strict:
            found = self.parsed[tag] = conll_tag(tag)
            return found
        prefixes = _STRICT_PREFIXES[self.scheme]
        if len(tag) > 2 and tag[1] == "-" and tag[0] in prefixes:
            found = self.parsed[tag] = (tag[0], tag[2:])
            return found
        place, error = where
        allowed = "O, " + ", ".join("%s-TYPE" % p for p in prefixes)
        shown = "" if error is ReferenceDataError else " %s" % quote(tag)
        raise error("%s: the tag%s is not one of the %s scheme (%s)" % (place, shown, self.scheme, allowed))

    def move(self, prev, tag):
        key = (prev, tag)
        found = self.moves.get(key)
        if found is None:
            a, b = self.parse(prev), self.parse(tag)
            found = self.moves[key] = (_conll_end(a, b), _conll_start(a, b))
        return found

    def chunks(self, tags):
        """[(start, end (exclusive), type)] of one sentence's tags (already checked by parse)."""
        if self.strict:
            return self._strict_chunks(tags)
        found = []
        start = None
        prev = "O"
        for i, tag in enumerate(tags):
            end, begins = self.move(prev, tag)
            if end and start is not None:
                found.append((start, i, self.parse(prev)[1]))
                start = None
            if begins:
                start = i
            prev = tag
        if start is not None:  # the sentence ends every chunk
            found.append((start, len(tags), self.parse(prev)[1]))
        return found

    def _strict_chunks(self, tags):
        """seqeval's strict reading: a chunk starts at B- (IOBES: or S-), goes on over I- (IOBES: I- then E-) of its
        type, and (IOBES) counts only if its last tag is S- or E-."""
        iobes = self.scheme == "iobes"
        found = []
        start = kind = last = None
        for i, tag in enumerate(tags):
            prefix, this = self.parse(tag)
            if start is not None:
                if last in ("B", "I") and this == kind and (prefix == "I" or iobes and prefix == "E"):
                    last = prefix
                    continue
                if not iobes or last in ("S", "E"):
                    found.append((start, i, kind))
                start = None
            if prefix == "B" or iobes and prefix == "S":
                start, kind, last = i, this, prefix
        if start is not None and (not iobes or last in ("S", "E")):
            found.append((start, len(tags), kind))
        return found

    def gold_types(self, tags):
        """(the types of a gold sentence's chunks in order, and whether the sentence is plain: tagged the same, it
        counts each of its chunks correct). conlleval.pl counts a chunk correct when both start it and both end it
        at once, which tags other than O and <prefix>-<type> can break even in a copy of the gold (B-X then [-X
        starts a chunk without ending one): those sentences are compared tag by tag, as conlleval.pl does."""
        if self.strict:
            if len(tags) == tags.count("O"):
                return (), True
            return tuple(kind for _, _, kind in self._strict_chunks(tags)), True
        if tags.count("O") == len(tags):
            return (), True
        starts = []
        plain = True
        moves, parsed = self.moves, self.parsed
        prev = "O"
        for tag in tags:
            if tag != "O":
                try:
                    begins = moves[prev, tag][1]
                except KeyError:
                    begins = self.move(prev, tag)[1]
                prefix, kind = parsed[tag]
                if begins:
                    starts.append(kind)
                if plain:
                    plain = kind != "" and prefix not in ("O", ".", "[", "]")
            prev = tag
        return tuple(starts), plain

    def compare(self, gold, predicted):
        """(gold types, predicted types, correct types, correct tags) of one sentence (lists of tags, equal length):
        conlleval.pl's count, token by token, or (strict) the chunks both have."""
        if self.strict:
            truth, guess = self._strict_chunks(gold), self._strict_chunks(predicted)
            common = set(truth).intersection(guess)
            right = sum(1 for g, p in zip(gold, predicted) if g == p)
            return ([k for _, _, k in truth], [k for _, _, k in guess], [k for s, e, k in truth if (s, e, k) in common],
                    right)
        move, moves, parsed = self.move, self.moves, self.parsed
        found, guessed, correct = [], [], []
        right = 0
        last_g = last_p = "O"
        inside = False
        for g, p in zip(gold, predicted):
            try:
                end_g, start_g = moves[last_g, g]
            except KeyError:
                end_g, start_g = move(last_g, g)
            try:
                end_p, start_p = moves[last_p, p]
            except KeyError:
                end_p, start_p = move(last_p, p)
            g_kind, p_kind = parsed[g][1], parsed[p][1]
            if g == p or g_kind == p_kind and parsed[g] == parsed[p]:
                right += 1
            if inside:
                if end_g and end_p and parsed[last_g][1] == parsed[last_p][1]:
                    inside = False
                    correct.append(parsed[last_g][1])
                elif end_g != end_p or g_kind != p_kind:
                    inside = False
            if start_g:
                found.append(g_kind)
                if start_p and g_kind == p_kind:
                    inside = True
            if start_p:
                guessed.append(p_kind)
            last_g, last_p = g, p
        if inside:  # the sentence boundary (O in both), then the end of the sentence
            end_g, end_p = move(last_g, "O")[0], move(last_p, "O")[0]
            if not (end_g != end_p or end_g and end_p and parsed[last_g][1] != parsed[last_p][1]):
                correct.append(parsed[last_g][1])
        return found, guessed, correct, right


# ---------------------------------------------------------------------------------------------------------------
# Reading the files


# One sentence of the gold: its id, first line (CoNLL) or place (JSON), tokens (the key a submission's tokens must
# equal), tags joined by spaces, number of tokens, the types of its chunks in order, and whether it is plain (see
# Chunker.gold_types). Made with _sentence (tuple.__new__: a large gold has many).
Sentence = namedtuple("Sentence", "id line tokens tags size types plain")
_new_tuple = tuple.__new__


def _sentence(*fields):
    return _new_tuple(Sentence, fields)


def _token_key(tokens, plain=False):
    """What the submission's tokens must equal: tokens without spaces (all CoNLL tokens: ``plain``) joined by
    spaces, else a tuple."""
    if plain or not any(" " in token for token in tokens):
        return " ".join(tokens)
    return tuple(tokens)


_FIRST, _LAST = itemgetter(0), itemgetter(-1)


_PIECE = 1 << 20
_BLANKISH = re.compile(r"\n[^\S\n]+\n")  # a line of white space: it ends a sentence too


def _conll_pieces(path, label, error, max_tokens):
    """(number of its first line, text) of the pieces of a CoNLL file, each ending where a sentence ends (a blank
    line), read as a stream with line ends made \\n: _conll_blocks reads each as it would read the whole text, so a
    reader that stops at a bad sentence has read the file only up to it. A piece with no blank line that already
    holds more lines than any gold sentence has tokens is given out as it is: _conll_blocks refuses it there."""
    line, text = 1, ""
    try:
        with io.open(path, encoding="utf-8-sig", newline="") as handle:
            while True:
                data = handle.read(max(_PIECE, len(text)))
                eof = not data
                text += data
                if "\r" in text:
                    held = "\r" if text.endswith("\r") and not eof else ""  # a \r\n may be cut in two
                    text = text[:len(text) - len(held)].replace("\r\n", "\n").replace("\r", "\n") + held
                if eof:
                    if text:
                        yield line, text
                    return
                cut = text.rfind("\n\n")
                if (cut < 0 and len(text) > _PIECE and text.count("\n") > max_tokens + 1
                        and DOCSTART not in text and not _BLANKISH.search(text)):
                    cut = text.rfind("\n") - 1  # one sentence, too long already: _conll_blocks says so
                if cut >= 0:
                    piece, text = text[:cut + 2], text[cut + 2:]
                    yield line, piece
                    line += piece.count("\n")
    except UnicodeDecodeError:
        read_text(path, label, error)  # raises read_text's message, naming the line and the byte
        raise error("%s is not UTF-8 text" % label)


def _conll_blocks(text, label, error, docstarts=None, max_tokens=None, line=1):
    """(first line number, tokens, tags) of each sentence of a CoNLL file (the first and last columns); blank lines
    and -DOCSTART- lines end a sentence (the line number of each -DOCSTART- line is appended to the list
    ``docstarts``, if given); a line with one column is an error. ``max_tokens`` (a submission: the gold's longest
    sentence): a longer sentence is yielded as soon as it is one token longer, so a huge block is never split
    whole and the reader names the problem as for any sentence of the wrong length."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    start = 0
    size = len(text)
    while start < size:
        end = text.find("\n\n", start)
        if end < 0:
            end = size
        block = text[start:end]
        # map() over C methods: no Python-level step per line (a large file has millions).
        lines = block.count("\n") + 1
        rows = list(map(str.split, block.split("\n"))) if max_tokens is None or lines <= max_tokens else None
        if rows is not None and min(map(len, rows)) > 1 and DOCSTART not in block:
            yield line, list(map(_FIRST, rows)), list(map(_LAST, rows))
        else:  # blank lines with spaces, -DOCSTART-, a missing column, a block too long: line by line
            first, kept = None, []
            for offset, columns in enumerate(rows if rows is not None else map(str.split, io.StringIO(block))):
                if not columns or columns[0] == DOCSTART:
                    if columns and docstarts is not None:
                        docstarts.append(line + offset)
                    if kept:
                        yield first, [columns[0] for columns in kept], [columns[-1] for columns in kept]
                    first, kept = None, []
                    continue
                if len(columns) < 2:
                    raise error("%s, line %d: expected a token and its tag separated by spaces or a tab, found one "
                                "column%s" % (label, line + offset, "" if error is ReferenceDataError
                                              else " (%s)" % quote(columns[0])))
                if first is None:
                    first = line + offset
                kept.append(columns)
                if max_tokens is not None and len(kept) > max_tokens:
                    # longer than any gold sentence: what has been read is enough for the reader's own message
                    yield first, [columns[0] for columns in kept], [columns[-1] for columns in kept]
                    raise error("%s, line %d: a sentence longer than any of the gold's (%d tokens at most)"
                                % (label, line + offset, max_tokens))
            if kept:
                yield first, [columns[0] for columns in kept], [columns[-1] for columns in kept]
        line += lines + 1
        start = end + 2


def _json_records(text, label, error):
    """(line, object) of a JSON-lines file, or of a file holding one JSON array of objects."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise error("%s is not valid JSON (%s)" % (label, exc))
        if not isinstance(data, list):
            raise error("%s must hold JSON objects, one per line, or one JSON array of them" % label)
        for position, record in enumerate(data):
            yield "item %d" % (position + 1), record
        return
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise error("%s, line %d: not a JSON object (%s)" % (label, number, exc))
        yield "line %d" % number, record


def _strings(value, what, where, error, gold):
    """A JSON list of non-empty strings without spaces (tags) or non-empty strings (tokens)."""
    if not isinstance(value, list):
        raise error("%s: %s must be a list of strings" % (where, what))
    for position, item in enumerate(value):
        if not isinstance(item, str) or not item or what == "tags" and len(item.split()) != 1:
            shown = "" if gold and what == "tags" else ", found %s" % json.dumps(item)[:40]
            raise error("%s: the %s %s is not a non-empty string%s%s"
                        % (where, ordinal(position + 1), what[:-1], " without spaces" if what == "tags" else "",
                           shown))
    return value


class Gold(object):
    """The gold: sentences in order, the chunk reader, the file's label; ``named``: its sentences have their own
    ids (JSON), not their numbers (CoNLL)."""

    def __init__(self, sentences, chunker, label, named):
        self.sentences, self.chunker, self.label, self.named = sentences, chunker, label, named
        # "docstart": "token": {sentence index: -DOCSTART- lines counted as right tokens with it (those before it;
        # the last sentence takes those after it)}
        self.docstarts = {}

    def index(self):
        """{sentence id: position}, for a JSON submission."""
        return dict((s.id, i) for i, s in enumerate(self.sentences))

    def name(self, at):
        return "sentence %s" % (quote(self.sentences[at].id) if self.named else at + 1)


def read_gold(ref_dir, config):
    """The gold (Gold); ReferenceDataError naming the file, line and problem, never a tag (``new`` checks with
    it)."""
    error = ReferenceDataError
    name = config["reference"]
    path = locate(ref_dir, name, error)
    label = describe(path, error)
    text = read_text(path, label, error)
    chunker = Chunker(config.get("scheme") or "conlleval")
    sentences = []
    if is_json(name):
        id_field = config.get("id_column") or "id"
        seen = {}
        for place, record in _json_records(text, label, error):
            where = "%s, %s" % (label, place)
            if not isinstance(record, dict):
                raise error("%s: expected a JSON object {%s, \"tokens\", \"tags\"}" % (where, json.dumps(id_field)))
            for field in (id_field, "tokens", "tags"):
                if field not in record:
                    raise error("%s: no %s" % (where, json.dumps(field)))
            raw = record[id_field]
            if isinstance(raw, bool) or not isinstance(raw, (str, int)) or not id_key(str(raw)):
                raise error("%s: the id must be a non-empty string or an integer" % where)
            key = id_key(str(raw))
            if key in seen:
                raise error("%s: id %s is given twice (also %s)" % (where, quote(str(raw)), seen[key]))
            seen[key] = place
            tokens = _strings(record["tokens"], "tokens", where, error, True)
            tags = _strings(record["tags"], "tags", where, error, True)
            if len(tokens) != len(tags):
                raise error("%s: %d tokens but %d tags" % (where, len(tokens), len(tags)))
            if chunker.strict:
                _check_tags(chunker, tags, label, where)
            sentences.append(_new_tuple(Sentence, (key, place, _token_key(tokens), " ".join(tags), len(tags))
                                        + chunker.gold_types(tags)))
    else:
        gold_types, strict = chunker.gold_types, chunker.strict
        docstarts = [] if config.get("docstart") == "token" else None
        for line, tokens, tags in _conll_blocks(text, label, error, docstarts):
            if strict:
                _check_tags(chunker, tags, label, line)
            sentences.append(_new_tuple(Sentence, ("%d" % (len(sentences) + 1), line,
                                                   " ".join(tokens), " ".join(tags),
                                                   len(tags)) + gold_types(tags)))
    if not sentences:
        raise error("%s holds no sentences" % label)
    gold = Gold(sentences, chunker, label, is_json(name))
    if not is_json(name) and docstarts:
        starts = [s.line for s in sentences]
        for line in docstarts:
            at = min(bisect.bisect_left(starts, line), len(starts) - 1)
            gold.docstarts[at] = gold.docstarts.get(at, 0) + 1
    return gold


def _check_tags(chunker, tags, label, line):
    """Every gold tag of a sentence is one of the strict scheme's; ``line``: its first line, or where it is."""
    for offset, tag in enumerate(tags):
        chunker.parse(tag, ("%s, line %d" % (label, line + offset) if isinstance(line, int) else line,
                            ReferenceDataError))


def _tokens(sentence):
    return list(sentence.tokens) if isinstance(sentence.tokens, tuple) else sentence.tokens.split(" ")


def _mismatch(gold, at, tokens, label, line_of, texts=True):
    """The SubmissionError for a sentence whose tokens are not those of the gold's sentence ``at`` (tokens are
    public); ``line_of(position)``: where the submission's token at ``position`` is. ``texts`` false: only the
    number of tokens counts ("tokens": "ignore")."""
    expected = _tokens(gold.sentences[at])
    where = gold.name(at)
    for position, (mine, theirs) in enumerate(zip(tokens, expected)):
        if texts and mine != theirs:
            return SubmissionError("%s, %s: token %s where the gold's %s has %s as its %s token"
                                   % (label, line_of(position), quote(mine), where, quote(theirs),
                                      ordinal(position + 1)))
    if len(tokens) > len(expected):
        return SubmissionError("%s, %s: the gold's %s has %d tokens, this one has more"
                               % (label, line_of(len(expected)), where, len(expected)))
    return SubmissionError("%s, %s: the gold's %s has %d tokens, this one ends after %d"
                           % (label, line_of(max(len(tokens) - 1, 0)), where, len(expected), len(tokens)))


def _changed(gold, at, tokens, changed, where):
    """With "tokens": "ignore": count in ``changed`` (a list: [tokens differing, where the first is, it, the gold's])
    the tokens of a sentence of the right length that differ from the gold's."""
    expected = _tokens(gold.sentences[at])
    for position, (mine, theirs) in enumerate(zip(tokens, expected)):
        if mine != theirs:
            if not changed:
                changed.extend([0, where(position), mine, theirs])
            changed[0] += 1


def read_predictions(res_dir, config, gold, changed=None):
    """[tags joined by spaces] in the gold's order; SubmissionError naming the file, line and problem. With
    "tokens": "ignore", tokens are paired with the gold's by position, and ``changed`` (a list) receives the count
    of tokens that differ (see _changed)."""
    name = config["submission"]
    expected = ("the zip must hold %s at its root: %s" % (
        name, "JSON lines {\"id\", \"tags\"}" if is_json(name) else
        "the gold's tokens, one per line, each followed by its tag, a blank line between sentences"))
    path = locate(res_dir, name, SubmissionError, expected)
    label = describe(path, SubmissionError)
    sentences = gold.sentences
    chunker = gold.chunker
    ignore = config.get("tokens") == "ignore"
    changed = [] if changed is None else changed
    if is_json(name):
        return _json_predictions(read_text(path, label, SubmissionError), label, config, gold, changed)
    predicted = []
    count = len(sentences)
    longest = max(sentence.size for sentence in sentences) if sentences else 0
    # Read as a stream, a piece at a time: the first bad sentence ends the reading there.
    blocks = chain.from_iterable(_conll_blocks(piece, label, SubmissionError, max_tokens=longest, line=first)
                                 for first, piece in _conll_pieces(path, label, SubmissionError, longest))
    for line, tokens, tags in blocks:
        at = len(predicted)
        if at >= count:
            raise SubmissionError("%s, line %d: a %s sentence, but the gold has %d" % (label, line, ordinal(at + 1),
                                                                                       count))
        sentence = sentences[at]
        if _token_key(tokens, True) != sentence.tokens:
            if not ignore or len(tokens) != sentence.size:
                raise _mismatch(gold, at, tokens, label, lambda position: "line %d" % (line + position), not ignore)
            _changed(gold, at, tokens, changed, lambda position: "%s, line %d" % (label, line + position))
        joined = " ".join(tags)
        if chunker.strict and joined != sentence.tags:
            for offset, tag in enumerate(tags):
                chunker.parse(tag, ("%s, line %d" % (label, line + offset), SubmissionError))
        predicted.append(joined)
    if len(predicted) < count:
        raise SubmissionError("%s ends after %d sentences, but the gold has %d (a blank line between sentences; "
                              "the %s sentence starts with %s)" % (
                                  label, len(predicted), count, ordinal(len(predicted) + 1),
                                  quote(_first_token(sentences[len(predicted)]))))
    return predicted


def _first_token(sentence):
    return (_tokens(sentence) or [""])[0]


def _json_predictions(text, label, config, gold, changed):
    id_field = config.get("id_column") or "id"
    ignore = config.get("tokens") == "ignore"
    chunker = gold.chunker
    table = {}
    index = gold.index()
    for place, record in _json_records(text, label, SubmissionError):
        where = "%s, %s" % (label, place)
        if not isinstance(record, dict):
            raise SubmissionError("%s: expected a JSON object {%s, \"tags\"}" % (where, json.dumps(id_field)))
        for field in (id_field, "tags"):
            if field not in record:
                raise SubmissionError("%s: no %s" % (where, json.dumps(field)))
        raw = record[id_field]
        key = id_key(str(raw)) if isinstance(raw, (str, int)) and not isinstance(raw, bool) else None
        at = index.get(key)
        if at is None:
            raise SubmissionError("%s: id %s is not a sentence of this phase" % (where, quote(str(raw))))
        if at in table:
            raise SubmissionError("%s: id %s is given twice" % (where, quote(str(raw))))
        sentence = gold.sentences[at]
        tags = _strings(record["tags"], "tags", where, SubmissionError, False)
        if "tokens" in record:
            tokens = _strings(record["tokens"], "tokens", where, SubmissionError, False)
            if _token_key(tokens) != sentence.tokens:
                if not ignore or len(tokens) != sentence.size:
                    raise _mismatch(gold, at, tokens, label, lambda position: place, not ignore)
                _changed(gold, at, tokens, changed, lambda position: "%s, the %s token" % (where,
                                                                                          ordinal(position + 1)))
        if len(tags) != sentence.size:
            raise SubmissionError("%s: %d tags, but the gold's %s has %d tokens"
                                  % (where, len(tags), gold.name(at), sentence.size))
        joined = " ".join(tags)
        if chunker.strict and joined != sentence.tags:
            for tag in tags:
                chunker.parse(tag, (where, SubmissionError))
        table[at] = joined
    if len(table) < len(gold.sentences):
        check_complete(dict((gold.sentences[i].id, None) for i in table),
                       dict((s.id, None) for s in gold.sentences), label)
    return [table[i] for i in range(len(gold.sentences))]


# ---------------------------------------------------------------------------------------------------------------
# Scoring


class Counts(object):
    """Chunk counts of one type (or all): in the gold, predicted, correct."""
    __slots__ = ("gold", "predicted", "correct")

    def __init__(self, gold=0, predicted=0, correct=0):
        self.gold, self.predicted, self.correct = gold, predicted, correct

    def precision(self):
        return self.correct / float(self.predicted) if self.predicted else 0.0

    def recall(self):
        return self.correct / float(self.gold) if self.gold else 0.0

    def f1(self):
        return 2.0 * self.correct / (self.gold + self.predicted) if self.gold + self.predicted else 0.0


def _counts_of(totals, types=None):
    """Counts from summed statistics ("gold:T", "predicted:T", "correct:T"), of the types ``types`` (a set) or all."""
    counts = Counts()
    for name, value in totals.items():
        what, _, kind = name.partition(":")
        if not kind and what not in ("gold", "predicted", "correct") or types is not None and kind not in types:
            continue
        if what == "gold":
            counts.gold += value
        elif what == "predicted":
            counts.predicted += value
        elif what == "correct":
            counts.correct += value
    return counts


def evaluate(gold, predicted):
    """(per type Counts, tokens, correct tokens, {sentence index: compare() of a sentence not tagged as the gold})."""
    compare = gold.chunker.compare
    tokens = right = 0
    differing = {}
    same = []  # the chunk types of the sentences tagged exactly as the gold: all correct
    guessed, correct = [], []
    for at, (sentence, tags) in enumerate(zip(gold.sentences, predicted)):
        size = sentence.size
        tokens += size
        if tags == sentence.tags and sentence.plain:
            right += size
            if sentence.types:
                same.append(sentence.types)
            continue
        result = compare(sentence.tags.split(" "), tags.split(" ")) if size else ((), (), (), 0)
        differing[at] = result
        guessed.append(result[1])
        correct.append(result[2])
        right += result[3]
    found = Counter(chain.from_iterable(sentence.types for sentence in gold.sentences))
    same = Counter(chain.from_iterable(same))
    guessed = Counter(chain.from_iterable(guessed))
    correct = Counter(chain.from_iterable(correct))
    per_type = {}
    for kind in set(found).union(same, guessed):
        per_type[kind] = Counts(found[kind], same[kind] + guessed[kind], same[kind] + correct[kind])
    extra = sum(gold.docstarts.values())  # "docstart": "token": right tokens, as conlleval.pl reads them
    return per_type, tokens + extra, right + extra, differing


def resolve_types(keys, per_type, label):
    """{per-type key: the set of chunk types it scores}: the gold types named so (a type only predicted scores 0
    anyway); warnings for a key no type has."""
    resolved, warnings = {}, []
    gold_types = sorted(kind for kind, counts in per_type.items() if counts.gold)
    for key in keys:
        match = TYPE_KEY.match(key)
        if not match or key in ("f1", "precision", "recall"):
            continue
        name = match.group(2)
        types = [kind for kind in gold_types if type_name(kind) == name]
        if len(types) > 1:
            raise ReferenceDataError("%s: score key %s names %d chunk types of the gold, which differ only in case or "
                                     "punctuation" % (label, key, len(types)))
        if not types:
            types = [kind for kind in per_type if type_name(kind) == name]
            if not types:
                warnings.append("score key %s: no chunk of type %s in the gold or the submission; it scores 0"
                                % (key, name))
        resolved[key] = set(types) or set(["\0none"])
    return resolved, warnings


def key_value(key, counts, tokens, right):
    """The value of ``key`` from chunk counts (all types, or the key's type) and the token counts."""
    if key == "accuracy":
        return right / float(tokens) if tokens else 0.0
    what = TYPE_KEY.match(key).group(1) if key not in ("f1", "precision", "recall") else key
    return counts.f1() if what == "f1" else counts.precision() if what == "precision" else counts.recall()


def score(ref_dir, res_dir, config):
    gold = read_gold(ref_dir, config)
    changed = []
    predicted = read_predictions(res_dir, config, gold, changed)
    per_type, tokens, right, differing = evaluate(gold, predicted)
    keys = config["keys"]
    resolved, warnings = resolve_types(keys, per_type, gold.label)
    overall = Counts(*(sum(getattr(c, field) for c in per_type.values()) for field in ("gold", "predicted",
                                                                                        "correct")))
    values = {}
    for key in keys:
        if key in resolved:
            counts = Counts(*(sum(getattr(per_type[k], f) for k in resolved[key] if k in per_type)
                              for f in ("gold", "predicted", "correct")))
        else:
            counts = overall
        values[key] = key_value(key, counts, tokens, right)

    def render(scores, gold_public):
        return _page(scores, per_type, overall, len(gold.sentences), tokens, gold_public)
    docstarts = sum(gold.docstarts.values())
    notes = ["scored %d sentences, %d tokens%s (scheme %s)" % (
        len(gold.sentences), tokens, " (%d of them -DOCSTART- lines, counted as right as conlleval.pl counts them)"
        % docstarts if docstarts else "", gold.chunker.scheme)]
    if changed:
        warnings.append("%d token%s of the submission differ%s from the gold's (the first: %s, %s where the gold has "
                        "%s); tags are paired with the gold's by position (\"tokens\": \"ignore\")"
                        % (changed[0], "s" if changed[0] > 1 else "", "" if changed[0] > 1 else "s", changed[1],
                           quote(changed[2]), quote(changed[3])))
    return make_result(config, values, render, notes, warnings,
                       items=lambda key: build_items(key, gold, predicted, differing, resolved.get(key)))


def _stats(sentence, result, extra=0):
    """The statistics of one sentence; ``extra``: -DOCSTART- lines counted with it as right tokens."""
    stats = {"sentences": 1}
    if sentence.size + extra:
        stats["tokens"] = sentence.size + extra
    if result is None:
        guessed = correct = sentence.types
        if sentence.size + extra:
            stats["correct_tokens"] = sentence.size + extra
    else:
        guessed, correct = result[1], result[2]
        if result[3] + extra:
            stats["correct_tokens"] = result[3] + extra
    for prefix, types in (("gold:", sentence.types), ("predicted:", guessed), ("correct:", correct)):
        for kind in types:
            stats[prefix + kind] = stats.get(prefix + kind, 0) + 1
    return stats


def build_items(key, gold, predicted, differing, types):
    """Items of the score ``key``, one per gold sentence: right (the gold's chunks, or for accuracy the gold's tags),
    wrong (no correct chunk / tag), partly otherwise; the detail names the missed and the extra chunks."""
    def finish(totals):
        return key_value(key, _counts_of(totals, types), totals.get("tokens", 0), totals.get("correct_tokens", 0))
    items = Items("sentence", key, finish)
    chunker = gold.chunker
    for at, (sentence, tags) in enumerate(zip(gold.sentences, predicted)):
        result = differing.get(at)
        stats = _stats(sentence, result, gold.docstarts.get(at, 0))
        if result is None:
            items.add(sentence.id, stats)
            continue
        if key == "accuracy":
            if result[3] == sentence.size:
                items.add(sentence.id, stats)
                continue
            verdict = "partly" if result[3] else "wrong"
        else:
            counts = _counts_of(stats, types)
            if counts.correct == counts.gold == counts.predicted:
                items.add(sentence.id, stats, "right", "")
                continue
            verdict = "partly" if counts.correct else "wrong"
        items.add(sentence.id, stats, verdict, _detail(chunker, sentence, tags, result))
    return items


def _detail(chunker, sentence, tags, result):
    gold_tags, guess_tags = sentence.tags.split(" "), tags.split(" ")
    tokens = _tokens(sentence)
    truth, guess = chunker.chunks(gold_tags), chunker.chunks(guess_tags)
    truth_set, guess_set = set(truth), set(guess)
    missed = [c for c in truth if c not in guess_set]
    extra = [c for c in guess if c not in truth_set]

    def shown(chunks):
        text = ", ".join("%s %s" % (kind or "(no type)", quote(" ".join(tokens[s:e]), 40))
                         for s, e, kind in chunks[:_SHOWN_CHUNKS])
        return text + (" and %d more" % (len(chunks) - _SHOWN_CHUNKS) if len(chunks) > _SHOWN_CHUNKS else "")
    parts = ["missed " + shown(missed)] if missed else []
    if extra:
        parts.append("extra " + shown(extra))
    wrong_tags = sentence.size - result[3]
    parts.append("%d of %d tags wrong" % (wrong_tags, sentence.size))
    return "; ".join(parts)


def _page(scores, per_type, overall, sentences, tokens, gold_public):
    totals = [("sentences scored", sentences), ("tokens", tokens), ("chunks predicted", overall.predicted)]
    if gold_public:
        totals.append(("chunks in the gold", overall.gold))
    overview = scores_section(scores, totals)
    note = paragraph("A chunk is correct when the gold has a chunk of the same type over exactly the same tokens. "
                     "precision = correct / predicted chunks, recall = correct / gold chunks, F1 = 2 correct / (gold "
                     "+ predicted); accuracy counts every token, O included.", "note")
    if not gold_public:
        own = sorted((k for k, c in per_type.items() if c.predicted), key=lambda k: (-per_type[k].predicted, k))
        return [overview, note, section("Chunk types predicted", table(
            ["type", "predicted", "correct", "precision"],
            [(k or "(no type)", per_type[k].predicted, per_type[k].correct, per_type[k].precision()) for k in own]))]
    names = sorted(per_type, key=lambda k: (-per_type[k].gold, k))
    return [overview, note, section("Per chunk type", table(
        ["type", "gold", "predicted", "correct", "precision", "recall", "F1"],
        [(k or "(no type)", per_type[k].gold, per_type[k].predicted, per_type[k].correct, per_type[k].precision(),
          per_type[k].recall(), per_type[k].f1()) for k in names]))]
