"""The child process of the ingestion program: imports the submission's model.py, calls ``load(model_dir)`` and the
model's ``predict(items)``, and writes what predict returned, as JSON, for ingest.py to check and write out.

    python3 ingestion_child.py SUBMISSION_DIR ITEMS_JSON RESULT_DIR

It runs under the limits ingest.py set (memory; ingest.py kills it at the time limit). Before each step it writes
the step's name to RESULT_DIR/step, so that a process that dies without a word is still placed. Its one answer is
RESULT_DIR/result.json: {"predictions": ...} or {"error": "<one line>"}. A message names the step, the exception's
type and the submission's file and line where it was raised, never the exception's text (it could quote a test
input).

Python 3.6+ and the standard library only.
"""
import json
import os
import sys
import traceback

MODULE = "model"


def _write(result_dir, name, data):
    path = os.path.join(result_dir, name)
    with open(path + ".part", "w") as handle:
        handle.write(data)
    os.replace(path + ".part", path)


def _where(tb, submission_dir):
    """' at model.py line 12': the last frame of the traceback in the submission's files ('' when none is)."""
    root = os.path.realpath(submission_dir) + os.sep
    place = ""
    for frame in traceback.extract_tb(tb):
        path = os.path.realpath(frame.filename)
        if path.startswith(root):
            place = " at %s line %d" % (os.path.relpath(path, root[:-1]).replace(os.sep, "/"), frame.lineno)
    return place


def _raised(step, exc, submission_dir, memory_mb):
    if isinstance(exc, MemoryError):
        return "%s ran out of memory%s" % (step, " (the limit is %s MB)" % memory_mb if memory_mb else "")
    if isinstance(exc, SyntaxError) and step == "import":
        return "import raised %s at %s line %s" % (
            type(exc).__name__, os.path.basename(exc.filename or "model.py"), exc.lineno)
    if isinstance(exc, SystemExit):
        return "%s called sys.exit(%s)%s" % (step, exc.code if isinstance(exc.code, int) else "...",
                                              _where(exc.__traceback__, submission_dir))
    return "%s raised %s%s" % (step, type(exc).__name__, _where(exc.__traceback__, submission_dir))


class _Refused(Exception):
    pass


def _jsonable(value, where, depth=0):
    """``value`` as JSON types (tuples become lists), or _Refused naming the first value of another type."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise _Refused("%s holds %r, which is no number JSON can hold" % (where, value))
        return value
    if depth > 20:
        raise _Refused("%s nests deeper than 20 levels" % where)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v, where, depth + 1) for v in value]
    if isinstance(value, dict):
        out = {}
        for key, v in value.items():
            if isinstance(key, bool) or not isinstance(key, (str, int)):
                raise _Refused("%s has a key of type %s; keys must be strings" % (where, type(key).__name__))
            out[u"%s" % key] = _jsonable(v, where, depth + 1)
        return out
    raise _Refused("%s is a %s.%s; return str, int, float, bool, None, lists and dicts only"
                   % (where, type(value).__module__, type(value).__name__))


def _converted(predictions):
    """What predict returned, as JSON types; each prediction's problem placed by its position or key."""
    if isinstance(predictions, (list, tuple)):
        return [_jsonable(p, "the prediction for item %d" % n, 1) for n, p in enumerate(predictions, 1)]
    if isinstance(predictions, dict):
        out = {}
        for key, p in predictions.items():
            if isinstance(key, bool) or not isinstance(key, (str, int)):
                raise _Refused("predict returned a dict with a key of type %s; the keys must be the items' ids"
                               % type(key).__name__)
            out[u"%s" % key] = _jsonable(p, "the prediction for the id %s" % _short(key), 1)
        return out
    return _jsonable(predictions, "what predict returned")  # ingest.py says why it is the wrong type


def _short(key):
    text = u" ".join((u"%s" % key)[:160].split())
    return "'%s'" % (text if len(text) <= 40 else text[:37] + "...")


def run(submission_dir, items_path, result_dir, memory_mb):
    with open(items_path, encoding="utf-8") as handle:
        items = json.load(handle)
    os.remove(items_path)  # nothing of the inputs is left where the model looks
    step = "import"
    try:
        _write(result_dir, "step", step)
        sys.path.insert(0, submission_dir)
        sys.dont_write_bytecode = True
        module = __import__(MODULE)
        step = "load"
        load = getattr(module, "load", None)
        if not callable(load):
            return {"error": "no function load(model_dir)"}
        _write(result_dir, "step", step)
        model = load(submission_dir)
        step = "predict"
        predict = getattr(model, "predict", None)
        if not callable(predict):
            return {"error": "the model load() returned (%s) has no method predict(items)"
                             % ("None" if model is None else "a %s" % type(model).__name__)}
        _write(result_dir, "step", step)
        predictions = predict(items)
        del items
        step = "checking predict's output"
        return {"predictions": _converted(predictions)}
    except _Refused as exc:
        return {"error": "wrong output type: %s" % exc}
    except BaseException as exc:  # the participant's code: whatever it raised is the participant's
        return {"error": _raised(step, exc, submission_dir, memory_mb)}


def main(argv):
    submission_dir, items_path, result_dir, memory_mb = argv
    answer = run(submission_dir, items_path, result_dir, memory_mb or None)
    try:
        text = json.dumps(answer, ensure_ascii=False)
    except MemoryError:
        text = json.dumps({"error": "the predictions ran out of memory when written"})
    _write(result_dir, "result.json", text)
    os._exit(0)  # no atexit handler or thread of the submission's runs after the answer


if __name__ == "__main__":
    main(sys.argv[1:])
