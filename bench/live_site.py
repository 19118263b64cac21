"""What the load benchmark (bench/load.py) and the fault runs (bench/faults.py) share: the local Codabench of
tools/codabench_local (its token, its services), a competition published from a bundle, ``submit`` run as an
organizer runs it, and the audit of a phase: every zip of a batch on the site exactly once, in a final status, with the
scores or the message of its local replay."""
import collections
import json
import os
import re
import subprocess
import sys
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from codalab_bundles import replay  # noqa: E402
from codalab_bundles.site import batch, codabench_api, publish  # noqa: E402

LOCAL = ROOT / "tools" / "codabench_local"
STATE = Path(os.environ.get("CODABENCH_LOCAL_ROOT", "/tmp/codabench-local"))
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def site_env():
    """{CODABENCH_URL, CODABENCH_TOKEN, CODABENCH_USER} of the local site's organizer (token.sh)."""
    proc = subprocess.run(["bash", str(LOCAL / "token.sh")], capture_output=True, text=True, timeout=120, check=True)
    return dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)


def robot_env(name):
    """The env of a robot account NAME (token.sh --bot): robots have no submission limits, as a rehearsal needs."""
    proc = subprocess.run(["bash", str(LOCAL / "token.sh"), "--bot", name], capture_output=True, text=True,
                          timeout=120, check=True)
    return dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)


def open_to_robots(env, competition_id):
    """Allow robot submissions and publish the competition (robots cannot see an unpublished one)."""
    organizer = client(env)
    organizer.call("allowing robot submissions", "PATCH", "/api/competitions/%s/" % competition_id,
                   {"allow_robot_submissions": True, "whitelist_emails": []})
    organizer.call("publishing", "POST", "/api/competitions/%s/toggle_publish/" % competition_id, {}, safe=False)


def client(env):
    return codabench_api.Client(env["CODABENCH_URL"], env["CODABENCH_TOKEN"])


def start(workers):
    """The local Codabench with exactly ``workers`` compute workers (start.sh stops the extra ones)."""
    subprocess.run(["bash", str(LOCAL / "start.sh"), "--compute-workers", str(workers)], check=True,
                   stdout=subprocess.DEVNULL, env=dict(os.environ, CODABENCH_LOCAL_UI="0"))


def restart(service, *options):
    proc = subprocess.run(["bash", str(LOCAL / "restart.sh"), service] + list(options), capture_output=True,
                          text=True)
    return proc.stdout + proc.stderr


def publish_bundle(env, bundle):
    """A new competition from ``bundle``; its id."""
    result = publish.publish(client(env), str(bundle))
    assert not result["differences"], result["differences"]
    return result["id"]


def phase_record(env, competition_id, number):
    competition = client(env).call("reading", "GET", "/api/competitions/%s/" % competition_id)
    return sorted(competition["phases"], key=lambda p: p["index"])[number - 1]


def run_submit(env, zips, competition_id, phase, ledger, *options, timeout=None):
    """``codalab-bundles submit`` as a subprocess (what an organizer runs): (exit status, stdout, stderr, seconds)."""
    command = [sys.executable, str(ROOT / "build_bundle.py"), "submit"] + [str(z) for z in zips] + [
        "--competition", str(competition_id), "--phase", str(phase), "--even-if-closed", "--ledger", str(ledger),
        "--batch"] + list(options)
    begun = time.time()
    proc = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ, **env), timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr, time.time() - begun


def start_submit(env, zips, competition_id, phase, ledger, *options):
    """The same, in the background: the Popen (stdout and stderr to ledger + .out/.err)."""
    command = [sys.executable, str(ROOT / "build_bundle.py"), "submit"] + [str(z) for z in zips] + [
        "--competition", str(competition_id), "--phase", str(phase), "--even-if-closed", "--ledger", str(ledger),
        "--batch"] + list(options)
    out, err = open(str(ledger) + ".out", "w"), open(str(ledger) + ".err", "w")
    return subprocess.Popen(command, stdout=out, stderr=err, env=dict(os.environ, **env))


def ledger_lines(ledger):
    try:
        with open(str(ledger), encoding="utf-8") as handle:
            return [json.loads(line) for line in handle if line.strip()]
    except FileNotFoundError:
        return []


def replays(bundle, phase, zips, jobs=2):
    """{zip path: (status, scores, last line of stderr)} of the local Codabench replay of each zip."""
    def one(path):
        report = replay.replay(str(bundle), str(path), phase, platform="codabench")
        lines = [line.strip() for line in (report.get("stderr") or "").splitlines() if line.strip()]
        return str(path), (report["status"], dict(report["scores"]), lines[-1] if lines else "")

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return dict(pool.map(one, zips))


def site_submissions(env, phase_id):
    listing = client(env).call("listing", "GET", "/api/submissions/?phase=%s" % phase_id)
    return listing.get("results", []) if isinstance(listing, dict) else listing


def audit(env, phase_id, zips, expected, account="organizer"):
    """What the site holds for the batch ``zips``, against the replays ``expected``: {"lost": [zip], "twice": [zip],
    "not_final": [zip], "score_differs": [zip], "message_differs": [zip], "status_differs": [zip], "by_zip": ...}."""
    found = collections.defaultdict(list)
    for record in site_submissions(env, phase_id):
        _, prefix = batch.named_file(record.get("filename"))
        if prefix and record.get("owner") == account and record.get("parent") is None:
            found[prefix].append(record)
    report = {"lost": [], "twice": [], "not_final": [], "status_differs": [], "score_differs": [],
              "message_differs": [], "by_zip": {}}
    seen = set()
    web = client(env)
    for path in zips:
        sha = batch.sha256_of(path)
        if sha in seen:
            continue
        seen.add(sha)
        records = found.get(sha[:batch.NAME_DIGITS], [])
        # a stuck run cancelled and re-run (submit --rerun-stuck) leaves its cancelled original: not a second count
        records = [r for r in records if r["status"] != "Cancelled"] or records
        name = Path(path).name
        report["by_zip"][name] = [(r["id"], r["status"]) for r in records]
        if not records:
            report["lost"].append(name)
            continue
        if len(records) > 1:
            report["twice"].append(name)
        record = records[0]
        status, scores, message = expected[str(path)]
        if record["status"] not in ("Finished", "Failed", "Cancelled"):
            report["not_final"].append(name)
        elif record["status"] != status:
            report["status_differs"].append("%s: site %s, replay %s" % (name, record["status"], status))
        elif status == "Finished":
            stored = dict((s["column_key"], float(s["score"])) for s in record.get("scores") or [])
            if any(round(float(v), 10) != stored.get(k) for k, v in scores.items()):
                report["score_differs"].append(name)
        else:
            shown = batch.participant_message(web, record["id"])
            if message and message not in shown:
                report["message_differs"].append("%s: site %r, replay %r" % (name, shown[-200:], message[-200:]))
    return report


def test_phase(bundle):
    """The 1-based number of the phase whose task's reference is the test split (the last one that has it)."""
    import yaml
    with zipfile.ZipFile(str(bundle)) as archive:
        spec = yaml.safe_load(archive.read("competition.yaml"))
    tasks = dict((t["index"], t) for t in spec.get("tasks") or [])
    number = None
    for position, phase in enumerate(spec["phases"], 1):
        references = [str(tasks.get(i, {}).get("reference_data", "")) for i in phase.get("tasks") or []]
        if any("test" in r for r in references):
            number = number or position
    return number or len(spec["phases"])


def workers_running():
    return sorted(p.stem for p in (STATE / "run").glob("compute-worker*.pid"))


def worker_running(submission_id):
    """The compute worker whose last run (per its log) is submission ``submission_id``, or None."""
    for name in workers_running():
        log = STATE / "logs" / ("%s.log" % name)
        text = ANSI.sub("", log.read_text(errors="replace"))
        runs = [m.end() for m in re.finditer(r"Received run arguments", text)]
        if runs:
            match = re.search(r'"id":\s*(\d+)', text[runs[-1]:runs[-1] + 3000])
            if match and int(match.group(1)) == submission_id:
                return name
    return None
