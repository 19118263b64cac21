#!/usr/bin/env python3
"""Faults on a real Codabench (the local one of tools/codabench_local, its own code), each tried for real while a
batch of submissions is being scored, with what Codabench itself then does and what ``submit`` says.

  python3 bench/faults.py [--only NAME,...] [--zips 10] [--out bench/faults.json]

Each scenario: 2 compute workers; a new toxic-spans competition; ``submit`` (the command, as an organizer runs it)
with a batch of distinct zips (valid runs and format errors), ``--timeout`` bounding its wait; the fault injected by
tools/codabench_local/restart.sh at a chosen moment; then the same command again, with --rerun-stuck (it must
submit nothing twice and wait only for what still runs); then an audit of the site: every zip there exactly once,
in a final status, with its local replay's scores (Finished) or the participant's own message (Failed). The
observations are printed and written as JSON; tools/codabench_local/FAULTS.md says what they mean.

Scenarios (NAME):
  worker-killed     SIGKILL to the compute worker that is running a submission, the moment its container starts;
                    the worker comes back 20 s later
  site-worker       the site worker (Celery: unpacking, dispatch of submissions) stopped as docker stop does while
                    submissions are being made, back 20 s later
  site-worker-term-all  the same, with TERM to all its processes at once (systemd's default)
  broker            RabbitMQ stopped while a submission runs, back 15 s later
  storage           the storage server (moto) stopped while submissions are being uploaded, back 15 s later
  site              the web site (uvicorn: the API, the workers' reports) killed while submissions run, back 15 s later
  interrupted       submit itself interrupted (SIGINT, Ctrl-C) after a few submissions were made, then run again
"""
import argparse
import json
import random
import signal
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import live_site

from codalab_bundles.zips import pack

HERE = Path(__file__).resolve().parent
WORKERS = 2
TIMEOUT = 150  # seconds submit waits for one submission: the stuck ones are reported, not waited for forever
SECOND_TIMEOUT = 90  # the second call's (with --rerun-stuck: a submission still Submitting is run again once)


def make_zips(bundle, phase, folder, count, seed):
    """``count`` distinct toxic-spans submissions: the kit's sample with a different post changed in each, and every
    fifth a format error (a line without a tab, an offset that is not a number)."""
    with zipfile.ZipFile(str(bundle)) as archive:
        kit = zipfile.ZipFile(__import__("io").BytesIO(archive.read("starting_kit_test.zip")))
    sample = zipfile.ZipFile(__import__("io").BytesIO(kit.read("sample_submission.zip")))
    name = sample.namelist()[0]
    lines = sample.read(name).decode().splitlines()
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number in range(count):
        changed = list(lines)
        post = rng.randrange(len(changed))
        start = rng.randrange(0, 200)
        changed[post] = "%s\t%s" % (changed[post].split("\t")[0], list(range(start, start + rng.randrange(1, 9))))
        if number % 5 == 4:
            changed[post] = (changed[post].replace("\t", " ") if number % 10 == 4 else
                             "%s\t[1, two, 3]" % changed[post].split("\t")[0])
        path = folder / ("run%02d.zip" % number)
        path.write_bytes(pack.zip_entries([(name, ("\n".join(changed) + "\n").encode())]))
        paths.append(path)
    return paths


def wait_for_container(deadline=300):
    """The submission id of the next scoring container Docker starts (docker events), or None."""
    proc = subprocess.Popen(["docker", "events", "--filter", "type=container", "--filter", "event=start",
                             "--format", "{{.Actor.Attributes.name}}"], stdout=subprocess.PIPE, text=True)
    timer = threading.Timer(deadline, proc.kill)
    timer.start()
    try:
        for line in proc.stdout:
            if line.startswith("scoring_") and "sID-" in line:
                return int(line.strip().rsplit("sID-", 1)[1])
    finally:
        timer.cancel()
        proc.kill()
    return None


def wait_for_ledger(ledger, stage, count, deadline=300):
    begun = time.time()
    while time.time() - begun < deadline:
        if sum(1 for r in live_site.ledger_lines(ledger) if r.get("stage") == stage) >= count:
            return True
        time.sleep(0.2)
    return False


def inject(name, ledger, proc):
    """The fault of scenario ``name``, at its moment; a line saying what was done."""
    if name == "worker-killed":
        submission = wait_for_container()
        worker = live_site.worker_running(submission) if submission else None
        if worker is None:
            return "no running submission was seen: nothing killed"
        return "submission %s running on %s: %s" % (submission, worker, live_site.restart(worker, "--kill",
                                                                                           "--down", "20"))
    if name in ("site-worker", "site-worker-term-all"):
        wait_for_ledger(ledger, "submitted", 2)
        return live_site.restart("site-worker", "--down", "20", *(["--term-all"] if name.endswith("all") else []))
    if name == "broker":
        submission = wait_for_container()
        return "submission %s running: %s" % (submission, live_site.restart("rabbitmq", "--down", "15"))
    if name == "storage":
        wait_for_ledger(ledger, "submitted", 2)
        return live_site.restart("s3", "--down", "15")
    if name == "site":
        submission = wait_for_container()
        return "submission %s running: %s" % (submission, live_site.restart("web", "--kill", "--down", "15"))
    if name == "interrupted":
        wait_for_ledger(ledger, "submitted", 3)
        proc.send_signal(signal.SIGINT)
        return "submit interrupted (SIGINT) after 3 submissions were made"
    raise ValueError(name)


SCENARIOS = ("worker-killed", "site-worker", "site-worker-term-all", "broker", "storage", "site", "interrupted")


def scenario(name, env, bundle, phase, folder, count, seed):
    live_site.start(WORKERS)
    competition = live_site.publish_bundle(env, bundle)
    phase_id = live_site.phase_record(env, competition, phase)["id"]
    zips = make_zips(bundle, phase, folder / name, count, seed)
    expected = live_site.replays(bundle, phase, zips)
    ledger = folder / name / "ledger.jsonl"
    begun = time.time()
    proc = live_site.start_submit(env, zips, competition, phase, ledger, "--timeout", str(TIMEOUT),
                                  "--in-flight", "4")
    fault = inject(name, ledger, proc)
    first_status = proc.wait()
    first = {"exit": first_status, "seconds": round(time.time() - begun),
             "stdout": Path(str(ledger) + ".out").read_text(), "stderr": Path(str(ledger) + ".err").read_text()}
    live_site.start(WORKERS)  # everything up again, whatever the fault left
    status, out, err, seconds = live_site.run_submit(env, zips, competition, phase, ledger, "--timeout",
                                                     str(SECOND_TIMEOUT), "--in-flight", "4", "--rerun-stuck")
    second = {"exit": status, "seconds": round(seconds), "stdout": out, "stderr": err}
    report = live_site.audit(env, phase_id, zips, expected)
    return {"scenario": name, "competition": competition, "zips": len(zips), "fault": fault, "first": first,
            "second": second, "audit": report}


def show(result):
    audit = result["audit"]
    lines = ["== %s (competition %s, %d zips)" % (result["scenario"], result["competition"], result["zips"]),
             "fault: %s" % result["fault"].strip().replace("\n", "; "),
             "first submit: exit %d after %d s" % (result["first"]["exit"], result["first"]["seconds"])]
    lines += ["  " + line for line in result["first"]["stdout"].splitlines()]
    lines += ["  ! " + line for line in result["first"]["stderr"].splitlines() if "[" not in line[:2]][-6:]
    lines.append("second submit: exit %d after %d s" % (result["second"]["exit"], result["second"]["seconds"]))
    lines += ["  " + line for line in result["second"]["stdout"].splitlines()[-3:]]
    lines.append("site: " + ", ".join("%s %s" % (k, v) for k, v in audit.items() if k != "by_zip"))
    lines.append("  " + "; ".join("%s: %s" % (k, v) for k, v in sorted(audit["by_zip"].items())))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="comma-separated scenario names (default: all)")
    parser.add_argument("--zips", type=int, default=10)
    parser.add_argument("--dist", default=str(live_site.ROOT / "dist"))
    parser.add_argument("--work", default="/tmp/codalab-bundles-faults")
    parser.add_argument("--out", default=str(HERE / "faults.json"))
    args = parser.parse_args(argv)
    env = live_site.site_env()
    bundle = Path(args.dist) / "toxic-spans.zip"
    phase = live_site.test_phase(bundle)
    names = args.only.split(",") if args.only else list(SCENARIOS)
    results = []
    try:
        with open(args.out, encoding="utf-8") as handle:
            results = [r for r in json.load(handle) if r["scenario"] not in names]
    except (OSError, ValueError):
        pass
    for number, name in enumerate(names):
        result = scenario(name, env, bundle, phase, Path(args.work) / time.strftime("%H%M%S"), args.zips,
                          seed=1000 * (SCENARIOS.index(name) + 1) + int(time.time()) % 1000)
        print(show(result), flush=True)
        results.append(result)
        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
