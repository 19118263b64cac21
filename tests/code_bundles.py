"""Small hand-written code-submission bundles (Codabench v2) and the submissions that probe them.

The task: ``input_data/inputs.txt`` holds lines ``id<TAB>x`` (integers), the gold (``reference_data/gold.txt``) is
``id<TAB>2x``. The scoring program scores ``predictions.txt`` (``id<TAB>value``) by accuracy: the share of ids
whose value equals the gold, 6 ids, so the figures are sixths.

``ingestion`` bundle: an ingestion program (``ingest.py``) imports the submission's ``model.py`` from
/app/ingested_program and writes ``predict(x)`` for each input; a participant's exception becomes one line on
stderr naming it and exit 1 (no predictions written). ``own_command`` bundle: no ingestion program, the
submission's own ``metadata`` command runs with the input data. ``during_scoring`` bundles: the ingestion program
runs in the scoring step (ingestion_only_during_scoring).

The submissions (``CASES``): a good model (accuracy 1), a crash, an infinite loop, a model that opens a network
connection (to the container's default gateway: it reaches the host when the network is on), one that writes
outside its output folder, one that reads the reference data (found only where the gold is mounted).
"""
import io
import zipfile

INPUTS = [(i, x) for i, x in enumerate([3, 1, 4, 1, 5, 9], 1)]
TIME_LIMIT = 20

SCORE_PY = r'''import json, os, sys, time
inp, out = sys.argv[1], sys.argv[2]
gold = dict(l.split("\t") for l in open(os.path.join(inp, "ref", "gold.txt")).read().split("\n") if l)
path = os.path.join(inp, "res", "predictions.txt")
if sys.argv[3:] == ["defer"]:  # ingestion_only_during_scoring: the ingestion program, run after us, scores
    print("the ingestion program scores")
    sys.exit(0)
if sys.argv[3:] == ["wait"]:  # waiting for a scoring-time ingestion program's output (which Codabench runs after us)
    for tick in range(100):
        if os.path.exists(os.path.join(out, "ingestion_done")):
            break
        if tick % 5 == 0:
            print("waiting for the ingestion program")
        time.sleep(0.1)
    path = os.path.join(out, "predictions.txt")
if not os.path.isfile(path):
    sys.stderr.write("score.py: no predictions.txt in the prediction step's output\n")
    sys.exit(1)
pred = dict(l.split("\t", 1) for l in open(path).read().split("\n") if "\t" in l)
hits = sum(1 for k, v in gold.items() if pred.get(k) == v)
with open(os.path.join(out, "scores.json"), "w") as f:
    json.dump({"accuracy": hits / len(gold)}, f)
print("scored %d ids" % len(gold))
'''

INGEST_PY = r'''import atexit, os, sys
inputs, output, submission = sys.argv[1], sys.argv[2], sys.argv[3]
atexit.register(lambda: open(os.path.join(output, "ingestion_done"), "w").close())  # for a scoring program waiting
sys.path.insert(0, submission)
try:
    import model
except Exception as exc:
    sys.stderr.write("ingestion: the submission's model.py cannot be imported: %s: %s\n" % (type(exc).__name__, exc))
    sys.exit(1)
if not hasattr(model, "predict"):
    sys.stderr.write("ingestion: the submission's model.py has no predict(x)\n")
    sys.exit(1)
rows = [l.split("\t") for l in open(os.path.join(inputs, "inputs.txt")).read().split("\n") if l]
lines = []
for ident, x in rows:
    try:
        lines.append("%s\t%s" % (ident, model.predict(int(x))))
    except Exception as exc:
        sys.stderr.write("ingestion: model.predict raised %s: %s\n" % (type(exc).__name__, exc))
        sys.exit(1)
with open(os.path.join(output, "predictions.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
print("predicted %d inputs" % len(lines))
if sys.argv[4:5] == ["score"]:  # ingestion_only_during_scoring: the reference data is at hand, score here
    import json
    gold = dict(l.split("\t") for l in open(os.path.join(sys.argv[5], "gold.txt")).read().split("\n") if l)
    pred = dict(l.split("\t", 1) for l in lines)
    with open(os.path.join(output, "scores.json"), "w") as f:
        json.dump({"accuracy": sum(1 for k, v in gold.items() if pred.get(k) == v) / len(gold)}, f)
'''

# The submissions' model.py, one per case: (model source, expected status, expected accuracy or None)
GOOD = "def predict(x):\n    return 2 * x\n"
CRASH = "def predict(x):\n    return 2 * x // (x - x)\n"
LOOP = "def predict(x):\n    while True:\n        pass\n"
NETWORK = r'''import socket, struct
def _gateway():
    for line in open("/proc/net/route").read().splitlines()[1:]:
        fields = line.split()
        if fields[1] == "00000000":
            return socket.inet_ntoa(struct.pack("<L", int(fields[2], 16)))
    raise OSError("no route out of this container: the network is off")
def predict(x):
    s = socket.socket()
    s.settimeout(5)
    try:
        s.connect((_gateway(), 9))
    except ConnectionRefusedError:
        pass  # the host answered: the network is on
    finally:
        s.close()
    return 2 * x
'''
OUTSIDE = r'''import os
HERE = os.path.dirname(os.path.abspath(__file__))
def predict(x):
    with open(os.path.join(HERE, "written_by_model.txt"), "a") as f:
        f.write("%d\n" % x)
    with open(os.path.join(HERE, "..", "input_data", "written_by_model.txt"), "w") as f:
        f.write("the model was here\n")
    return 2 * x
'''
READS_GOLD = r'''import os
HERE = os.path.dirname(os.path.abspath(__file__))
PLACES = ["/app/input/ref/gold.txt", os.path.join(HERE, "..", "ref", "gold.txt"),
          os.path.join(HERE, "..", "input", "ref", "gold.txt")]
def predict(x):
    for place in PLACES:
        if os.path.isfile(place):
            gold = dict(l.split("\t") for l in open(place).read().split("\n") if l)
            return gold[str(INPUTS.index(x) + 1)] if x in INPUTS else -1
    return -1
INPUTS = [3, 1, 4, 1, 5, 9]
'''

CASES = {"good": GOOD, "crash": CRASH, "loop": LOOP, "network": NETWORK, "outside": OUTSIDE, "reads_gold": READS_GOLD}


def _zip(files):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            archive.writestr(info, files[name])
    return buffer.getvalue()


def submission(case, metadata=None):
    """A submission zip: model.py of ``case`` (and a metadata file when given)."""
    files = {"model.py": CASES[case]}
    if metadata is not None:
        files["metadata"] = metadata
    return _zip(files)


# A 1x1 PNG (the competition's logo, which Codabench requires)
LOGO = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c49444154789c63f8"
                     "dfc0000004010180c52a185d0000000049454e44ae426082")

PREDICT_PY = r'''import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model
inputs, output = sys.argv[1], sys.argv[2]
rows = [l.split("\t") for l in open(os.path.join(inputs, "inputs.txt")).read().split("\n") if l]
with open(os.path.join(output, "predictions.txt"), "w") as f:
    f.write("".join("%s\t%s\n" % (i, model.predict(int(x))) for i, x in rows))
'''


def bundle(kind="ingestion", title=None, time_limit=TIME_LIMIT, ingestion_metadata=None, queue=None, folders=False):
    """The bundle's zip bytes. ``kind``: "ingestion", "own_command", "during_scoring" (the ingestion program, which
    Codabench runs after the scoring program, scores too: the scoring program defers to it) or "during_scoring_wait"
    (the scoring program waits for the ingestion's predictions, in vain on Codabench); ``ingestion_metadata``
    replaces the ingestion program's metadata text (None: the working one; "" drops the file); ``folders``: the
    programs and data as folders of the bundle (Codabench zips them on import), not zips."""
    during, waits = kind.startswith("during_scoring"), kind == "during_scoring_wait"
    task = ["  - index: 0", "    name: Doubling", "    scoring_program: scoring_program.zip",
            "    reference_data: reference_data.zip", "    input_data: input_data.zip"]
    files = {}
    if kind == "ingestion" or during:
        task.append("    ingestion_program: ingestion_program.zip")
        meta = "command: python3 $program/ingest.py $input $output $submission_program\n"
        if during:
            meta = "command: python3 /app/program/ingest.py /app/input_data /app/output /app/ingested_program%s\n" % (
                "" if waits else " score /app/input/ref")
        if ingestion_metadata is not None:
            meta = ingestion_metadata
        ing = {"ingest.py": INGEST_PY}
        if meta:
            ing["metadata"] = meta
        files["ingestion_program.zip"] = _zip(ing)
    if during:
        task.append("    ingestion_only_during_scoring: true")
    score_command = "python3 $program/score.py $input $output" if not during else \
        "python3 /app/program/score.py /app/input /app/output %s" % ("wait" if waits else "defer")
    files["scoring_program.zip"] = _zip({"metadata": "command: %s\n" % score_command, "score.py": SCORE_PY})
    files["input_data.zip"] = _zip({"inputs.txt": "".join("%d\t%d\n" % (i, x) for i, x in INPUTS)})
    files["reference_data.zip"] = _zip({"gold.txt": "".join("%d\t%d\n" % (i, 2 * x) for i, x in INPUTS)})
    files["logo.png"] = LOGO
    files["terms.md"] = "Terms: none.\n"
    files["overview.md"] = "Predict 2x for each input x.\n"
    yaml_text = "\n".join([
        "version: 2", "title: %s" % (title or "W code submissions (%s)" % kind), "image: logo.png",
        "terms: terms.md", "registration_auto_approve: true", "docker_image: codalab/codalab-legacy:py37",
        "pages:", "  - title: Overview", "    file: overview.md"] + (["queue: %s" % queue] if queue else []) + [
        "tasks:"] + task + [
        "phases:", "  - index: 0", "    name: Test", "    start: 2020-01-01 00:00:00",
        "    execution_time_limit: %d" % time_limit, "    max_submissions_per_day: 1000", "    max_submissions: 1000",
        "    tasks: [0]", "leaderboards:", "  - title: Results", "    key: main", "    columns:",
        "      - {title: Accuracy, key: accuracy, index: 0, sorting: desc, precision: 4}", ""])
    if folders:
        for name in [n for n in files if n.endswith(".zip")]:
            with zipfile.ZipFile(io.BytesIO(files.pop(name))) as inner:
                for member in inner.namelist():
                    files["%s/%s" % (name[:-4], member)] = inner.read(member)
            yaml_text = yaml_text.replace(": %s\n" % name, ": %s/\n" % name[:-4])
    files["competition.yaml"] = yaml_text
    return _zip(files)


OWN_METADATA = "command: python3 /app/program/predict.py /app/input_data /app/output\n"


def own_command_submission(case, metadata=OWN_METADATA):
    """A submission for the own_command bundle: model.py, predict.py and its metadata command."""
    files = {"model.py": CASES[case], "predict.py": PREDICT_PY}
    if metadata is not None:
        files["metadata"] = metadata
    return _zip(files)
