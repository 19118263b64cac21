"""What the ingestion program reads and writes: its configuration (ingestion.json, written by the build from
task.yaml's ``code_submission``), the test inputs, and the predictions file the task's scoring program reads.

Python 3.6+ and the standard library only. Messages name files, positions (``item 5``: the fifth item of the
inputs, counting from 1) and the participant's own values; never a test input nor an input's id.
"""
import csv
import io
import json
import math
import os

from scoring_base import quote, read_csv

CONFIG = "ingestion.json"
INPUT_FORMATS = ("csv", "tsv", "jsonl")
OUTPUT_FORMATS = ("csv", "tsv", "json")
CELL_TYPES = (str, int, float)  # what a cell of a CSV or TSV predictions file may be (bool is an int: refused)


class ProgramError(Exception):
    """The ingestion program or its input data is wrong: a problem for the organizers, not the participant."""


class OutputError(Exception):
    """What the submission returned cannot be written as the predictions file: the participant's problem."""


class Config(object):
    """ingestion.json: the interface and the files (bundles/README.md, "Code submissions")."""

    def __init__(self, data):
        try:
            self.inputs = data["inputs"]  # the file of input_data/ the items are read from
            self.input_format = data.get("input_format", "csv")
            self.id_column = data.get("id_column", "id")  # the inputs' column (or JSON key) naming each item
            self.output = data["output"]  # the predictions file written into the output folder
            self.output_format = data.get("output_format", "csv")
            self.output_id_column = data.get("output_id_column", self.id_column)
            self.columns = list(data.get("columns") or [])  # each prediction's fields (csv, tsv)
            self.time_limit = data["time_limit"]  # seconds for load and predict together
            self.memory_mb = data.get("memory_mb")  # None: no limit of the ingestion program's own
            self.show_output = bool(data.get("show_output", False))  # the submission's stdout/stderr in the log
        except (KeyError, TypeError, AttributeError) as exc:
            raise ProgramError("%s lacks %s" % (CONFIG, exc))
        if self.input_format not in INPUT_FORMATS or self.output_format not in OUTPUT_FORMATS:
            raise ProgramError("%s: input_format must be one of %s and output_format one of %s"
                               % (CONFIG, ", ".join(INPUT_FORMATS), ", ".join(OUTPUT_FORMATS)))
        if self.output_format != "json" and not self.columns:
            raise ProgramError("%s: a %s predictions file needs its columns" % (CONFIG, self.output_format))


def load_config(folder):
    path = os.path.join(folder, CONFIG)
    try:
        with io.open(path, encoding="utf-8") as handle:
            return Config(json.load(handle))
    except (OSError, IOError, ValueError) as exc:
        raise ProgramError("%s cannot be read: %s" % (CONFIG, type(exc).__name__))


def read_items(input_dir, config):
    """[(id, item)] in the inputs' order: each item a dict of the record's fields but the id, with the id as
    ``"id"``."""
    path = os.path.join(input_dir, config.inputs)
    if not os.path.isfile(path):
        raise ProgramError("the input data has no %s" % config.inputs)
    # The reader's own message could quote an input: say only which file, and that it is the organizers'.
    try:
        records = _jsonl_records(path) if config.input_format == "jsonl" else _table_records(path, config)
    except ProgramError:
        raise
    except Exception as exc:
        raise ProgramError("the input data %s cannot be read as %s (%s)"
                           % (config.inputs, config.input_format.upper(), type(exc).__name__))
    items, seen = [], set()
    for number, record in enumerate(records, 1):
        if config.id_column not in record:
            raise ProgramError("the input data %s, item %d: no %s field" % (config.inputs, number,
                                                                             quote(config.id_column)))
        item_id = u"%s" % (record.pop(config.id_column),)
        if item_id in seen:
            raise ProgramError("the input data %s, item %d: its id is another item's" % (config.inputs, number))
        seen.add(item_id)
        record["id"] = item_id
        items.append((item_id, record))
    return items


def _table_records(path, config):
    header, rows = read_csv(path, config.inputs, error=ProgramError, tabs=config.input_format == "tsv")
    if config.id_column not in header:
        raise ProgramError("the input data %s has no column %s (its columns: %s)"
                           % (config.inputs, quote(config.id_column), ", ".join(quote(h) for h in header)))
    for line, cells in rows:
        if len(cells) != len(header):
            raise ProgramError("the input data %s, line %d: %d cells for %d columns"
                               % (config.inputs, line, len(cells), len(header)))
        yield dict(zip(header, cells))


def _jsonl_records(path):
    with io.open(path, encoding="utf-8-sig") as handle:
        for line in handle:
            if line.strip():
                record = json.loads(line)
                if not isinstance(record, dict):
                    raise ValueError("not an object")
                yield record


def _is_cell(value):
    return isinstance(value, CELL_TYPES) and not isinstance(value, bool) and \
        not (isinstance(value, float) and not math.isfinite(value))


def _type_name(value):
    return "None" if value is None else "a %s" % type(value).__name__


def arrange(predictions, ids):
    """[(id, prediction)] in the inputs' order, from what predict returned (a list, one per item in order, or a
    dict {id: prediction}, as JSON read it back); OutputError for the wrong shape, a missing or unknown id."""
    if isinstance(predictions, list):
        if len(predictions) != len(ids):
            raise OutputError("predict returned %d predictions for %d items (return one per item, in the items' "
                              "order, or a dict {item id: prediction})" % (len(predictions), len(ids)))
        return list(zip(ids, predictions))
    if not isinstance(predictions, dict):
        raise OutputError("predict returned %s: return a list of predictions (one per item, in the items' order) "
                          "or a dict {item id: prediction}" % _type_name(predictions))
    known = set(ids)
    unknown = [key for key in predictions if key not in known]
    if unknown:
        raise OutputError("predict returned predictions for %d id(s) that are no item's: %s" % (
            len(unknown), ", ".join(quote(key) for key in unknown[:3]) + (", ..." if len(unknown) > 3 else "")))
    missing = [number for number, item_id in enumerate(ids, 1) if item_id not in predictions]
    if missing:
        raise OutputError("predict returned no prediction for %d of the %d items (the first: item %d, counting "
                          "from 1 in the items' order)" % (len(missing), len(ids), missing[0]))
    return [(item_id, predictions[item_id]) for item_id in ids]


def _row(prediction, number, columns):
    """The cells of one prediction for a table of ``columns``."""
    where = "the prediction for item %d" % number
    if not isinstance(prediction, dict):
        if len(columns) == 1 and _is_cell(prediction):
            return [prediction]
        raise OutputError("%s is %s: it must be a dict with the keys %s" % (
            where, _type_name(prediction), ", ".join(columns)) + (" (or one value)" if len(columns) == 1 else ""))
    unknown = [key for key in prediction if key not in columns]
    if unknown:
        raise OutputError("%s has the key %s, which is no column of the predictions (%s)"
                          % (where, quote(unknown[0]), ", ".join(columns)))
    cells = []
    for column in columns:
        if column not in prediction:
            raise OutputError("%s has no %s (it needs %s)" % (where, quote(column), ", ".join(columns)))
        value = prediction[column]
        if not _is_cell(value):
            raise OutputError("%s: %s is %s; a value must be a string or a (finite) number"
                              % (where, quote(column), _type_name(value)))
        cells.append(value)
    return cells


def predictions_bytes(arranged, config):
    """The predictions file, as the task's scoring program reads it."""
    if config.output_format == "json":
        return (json.dumps(dict(arranged), ensure_ascii=False, sort_keys=False) + "\n").encode("utf-8")
    out = io.StringIO()
    tabs = config.output_format == "tsv"
    writer = csv.writer(out, delimiter="\t" if tabs else ",", lineterminator="\n",
                        quoting=csv.QUOTE_NONE if tabs else csv.QUOTE_MINIMAL, escapechar=None)
    writer.writerow([config.output_id_column] + config.columns)
    for number, (item_id, prediction) in enumerate(arranged, 1):
        cells = _row(prediction, number, config.columns)
        if tabs and any(isinstance(c, str) and ("\t" in c or "\n" in c or "\r" in c) for c in cells):
            raise OutputError("the prediction for item %d holds a tab or a line break, which a TSV file cannot"
                              % number)
        writer.writerow([item_id] + cells)
    return out.getvalue().encode("utf-8")
