"""The CHEERS gold data: the sentences CSV of a split and the optional sector name-to-id mapping.

Problems found here are the organizers' (``ReferenceDataError``), never the participant's.
"""
import os
import re

from scoring_runtime import (ReferenceDataError, canonical_integer, find_reference_file, load_json, parse_integer,
                             read_csv, read_text)

GOLD_COLUMNS = ("doc_id", "sentence_id", "is_relevant", "sector_ids")
MAPPING_FILE = "immap_sector_name_to_id.json"

_LIST_SEPARATORS = re.compile(r"[\s,]+")


def sentence_key(doc_id, sentence_id):
    """The key a sentence is matched on. Integer ids are compared as numbers, so "007" in a run file and "7" in
    the gold are the same document; any other id is compared as text."""
    return (_canonical_id(doc_id), _canonical_id(sentence_id))


def _canonical_id(value):
    number = canonical_integer(value)
    return number if number is not None else value.strip()


class Sentence(object):
    __slots__ = ("doc_id", "sentence_id", "relevant", "sectors")

    def __init__(self, doc_id, sentence_id, relevant, sectors):
        self.doc_id = doc_id
        self.sentence_id = sentence_id
        self.relevant = relevant      # bool
        self.sectors = sectors        # frozenset of int; empty for every non-relevant sentence


class Gold(object):
    """sentences: {key: Sentence} in file order; sector_names: {id: name} (empty without a mapping file);
    known_sectors: the ids a run file may predict (the mapping's, else the gold's)."""

    def __init__(self, sentences, sector_names, label):
        self.sentences = sentences
        self.sector_names = sector_names
        self.label = label
        if sector_names:
            self.known_sectors = frozenset(sector_names)
        else:
            self.known_sectors = frozenset(s for sentence in sentences.values() for s in sentence.sectors)

    def sector_label(self, sector_id):
        name = self.sector_names.get(sector_id)
        return "%s (%d)" % (name, sector_id) if name else "sector %d" % sector_id


def parse_sector_list(text):
    """A ``sector_ids`` cell such as ``[1, 7]`` or ``[]`` as a frozenset of ints; None if it is not a list."""
    text = text.strip()
    if not text:
        return frozenset()
    if not (text.startswith("[") and text.endswith("]")):
        return None
    items = [item for item in _LIST_SEPARATORS.split(text[1:-1]) if item]
    try:
        return frozenset(parse_integer(item) for item in items)
    except ValueError:
        return None


def _gold_csv(ref_dir):
    """The one sentences CSV of the split. The released data also has documents_<split>_en.csv beside it."""
    try:
        return find_reference_file(ref_dir, suffix=".csv")
    except ReferenceDataError:
        names = sorted(n for n in os.listdir(ref_dir) if n.startswith("sentences") and n.endswith(".csv")) \
            if os.path.isdir(ref_dir) else []
        if not names:
            raise
        return find_reference_file(ref_dir, names=names)


def read_mapping(ref_dir):
    """{sector id: name} from the mapping file beside the gold, or {} when there is none."""
    path = os.path.join(os.path.dirname(_gold_csv(ref_dir)), MAPPING_FILE)
    if not os.path.isfile(path):
        return {}
    data = load_json(read_text(path, error=ReferenceDataError), MAPPING_FILE, ReferenceDataError)
    if not isinstance(data, dict) or not all(isinstance(v, int) and not isinstance(v, bool) for v in data.values()):
        raise ReferenceDataError("%s must map sector names to integer ids" % MAPPING_FILE)
    names = {}
    for name, sector_id in data.items():
        if sector_id in names:
            raise ReferenceDataError("%s gives id %d to two sectors" % (MAPPING_FILE, sector_id))
        if sector_id < 0:
            raise ReferenceDataError("%s: sector id %d is negative; -1 means 'no sector'" % (MAPPING_FILE, sector_id))
        names[sector_id] = name
    return names


def read_gold(ref_dir):
    path = _gold_csv(ref_dir)
    label = os.path.basename(path)
    header, rows = read_csv(path, error=ReferenceDataError, strip_spaces=True)
    missing = [c for c in GOLD_COLUMNS if c not in header]
    if missing:
        raise ReferenceDataError("%s lacks the column(s) %s" % (label, ", ".join(missing)))
    index = dict((name, header.index(name)) for name in GOLD_COLUMNS)
    sector_names = read_mapping(ref_dir)
    sentences = {}
    for line, cells in rows:
        if len(cells) != len(header):
            raise ReferenceDataError("%s, line %d: %d cells where the header has %d"
                                     % (label, line, len(cells), len(header)))
        doc_id, sentence_id = cells[index["doc_id"]], cells[index["sentence_id"]]
        relevant = cells[index["is_relevant"]]
        sectors = parse_sector_list(cells[index["sector_ids"]])
        if relevant not in ("0", "1"):
            raise ReferenceDataError("%s, line %d: is_relevant must be 0 or 1" % (label, line))
        if sectors is None:
            raise ReferenceDataError("%s, line %d: sector_ids must be a list such as [1, 7] or []" % (label, line))
        if relevant == "0" and sectors:
            raise ReferenceDataError("%s, line %d: a non-relevant sentence has sector ids" % (label, line))
        if sector_names and not sectors <= frozenset(sector_names):
            raise ReferenceDataError("%s, line %d: a sector id is not in %s" % (label, line, MAPPING_FILE))
        key = sentence_key(doc_id, sentence_id)
        if key in sentences:
            raise ReferenceDataError("%s, line %d: doc_id %s, sentence_id %s appears twice"
                                     % (label, line, doc_id, sentence_id))
        sentences[key] = Sentence(doc_id, sentence_id, relevant == "1", sectors)
    if not sentences:
        raise ReferenceDataError("%s has no sentences" % label)
    return Gold(sentences, sector_names, label)
