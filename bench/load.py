#!/usr/bin/env python3
"""Load on a real Codabench (the local one of tools/codabench_local): a deadline's rush of submissions to every task's
test phase, scored by 1, 2 and 4 compute workers, with what our ``submit`` and the site make of it.

  python3 bench/load.py [--workers 1,2,4] [--per-task 40] [--in-flight 8] [--time-limit 30] [--out bench/load.json]

For each task: ``--per-task`` zips from bench/load_mix.py (valid runs, runs with format errors, one run that takes
longer than the phase's time limit, one with a prediction file of about 200 MB), each replayed locally first under
the Codabench worker (the expected status, scores and message). The bundles are the built ones with the test phase's
time limit set to ``--time-limit`` seconds, so that the slow run crosses it. Then for each worker count: the site with
that many compute workers, a new competition per task, and the five batches submitted at once by five ``submit``
commands (``--in-flight`` each), as five organizers' scripts would. Measured: the wall time from the first upload to
the last final status and the throughput (submissions per minute, and as a ratio to one worker), the time from the
start of a zip's upload to its leaderboard row (median, p95: the ledger's timestamps), the peak memory of every
scoring container (the cgroup's high-water mark, sampled while it runs). Checked: every zip on the site exactly once,
in a final status, with the scores (Finished) or the participant's message (Failed) of its replay, and what differs.
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import yaml

import live_site
import load_mix

from codalab_bundles.zips import pack

HERE = Path(__file__).resolve().parent
TASKS = ("toxic-spans", "food-hazard", "cheers", "ehealth-kd", "recipe-mpr")


def with_time_limit(bundle, phase, seconds, target):
    """A copy of ``bundle`` whose phase ``phase`` has the time limit ``seconds`` (every other byte the same)."""
    with zipfile.ZipFile(str(bundle)) as archive:
        entries = [(name, archive.read(name)) for name in archive.namelist()]
    out = []
    for name, data in entries:
        if name == "competition.yaml":
            spec = yaml.safe_load(data.decode("utf-8"))
            spec["phases"][phase - 1]["execution_time_limit"] = seconds
            data = yaml.safe_dump(spec, sort_keys=False, allow_unicode=True).encode("utf-8")
        out.append((name, data))
    Path(target).write_bytes(pack.zip_entries(out))
    return Path(target)


class MemorySampler(threading.Thread):
    """The high-water mark of each scoring container's memory cgroup, read every ``interval`` seconds while it
    exists (cgroup v1: memory.max_usage_in_bytes; v2: memory.peak)."""

    ROOTS = ("/sys/fs/cgroup/memory/docker", "/sys/fs/cgroup/docker", "/sys/fs/cgroup/system.slice")

    def __init__(self, interval=0.2):
        super(MemorySampler, self).__init__(daemon=True)
        self.interval, self.peaks, self.names, self.done = interval, {}, {}, threading.Event()

    def _groups(self):
        for root in self.ROOTS:
            if not os.path.isdir(root):
                continue
            for name in os.listdir(root):
                folder = os.path.join(root, name)
                ident = name.replace("docker-", "").replace(".scope", "")
                for leaf in ("memory.max_usage_in_bytes", "memory.peak"):
                    if len(ident) == 64 and os.path.isfile(os.path.join(folder, leaf)):
                        yield ident, os.path.join(folder, leaf)

    def run(self):
        while not self.done.is_set():
            for ident, path in self._groups():
                try:
                    with open(path) as handle:
                        value = int(handle.read().strip())
                except (OSError, ValueError):
                    continue
                if ident not in self.names:
                    proc = subprocess.run(["docker", "inspect", "-f", "{{.Name}}", ident], capture_output=True,
                                          text=True)
                    self.names[ident] = proc.stdout.strip().lstrip("/")
                self.peaks[ident] = max(self.peaks.get(ident, 0), value)
            self.done.wait(self.interval)

    def by_submission(self):
        """{submission id: peak bytes} of the scoring containers seen."""
        found = {}
        for ident, peak in self.peaks.items():
            name = self.names.get(ident, "")
            if name.startswith("scoring_") and "sID-" in name:
                number = int(name.rsplit("sID-", 1)[1])
                found[number] = max(found.get(number, 0), peak)
        return found


def percentile(values, share):
    ordered = sorted(values)
    if not ordered:
        return None
    rank = max(0, min(len(ordered) - 1, int(round(share * (len(ordered) - 1)))))
    return ordered[rank]


def one_run(workers, env, plan, in_flight, work, options=()):
    """Every task's batch at once on ``workers`` compute workers: the measurements and the audit."""
    live_site.start(workers)
    competitions = {}
    robots = {}
    for task, item in plan.items():
        competitions[task] = live_site.publish_bundle(env, item["bundle"])
        live_site.open_to_robots(env, competitions[task])
        # one robot account per task: the phases' daily limits do not apply to robots, as in a rehearsal
        robots[task] = live_site.robot_env("load-%s" % task)
    sampler = MemorySampler()
    sampler.start()
    begun = time.time()
    procs = {}
    for task, item in plan.items():
        ledger = work / ("%s-%d-workers.jsonl" % (task, workers))
        if ledger.exists():
            ledger.unlink()
        procs[task] = (ledger, live_site.start_submit(robots[task], [r["path"] for r in item["runs"]],
                                                      competitions[task], item["phase"], ledger, "--in-flight",
                                                      str(in_flight), *options))
    exits = dict((task, proc.wait()) for task, (ledger, proc) in procs.items())
    wall = time.time() - begun
    sampler.done.set()
    sampler.join()
    memory = sampler.by_submission()
    latencies, kinds, audits, rows = [], collections.defaultdict(list), {}, []
    first_upload, last_final = None, None
    for task, (ledger, proc) in procs.items():
        lines = live_site.ledger_lines(ledger)
        uploading = dict((r["sha256"], r["at"]) for r in lines if r.get("stage") == "uploading")
        final = dict((r["sha256"], r) for r in lines if r.get("stage") == "final")
        kind_of = dict((r["sha256"], r["kind"]) for r in plan[task]["runs"])
        for sha, record in final.items():
            if sha in uploading:
                latency = record["at"] - uploading[sha]
                latencies.append(latency)
                kinds[kind_of.get(sha, "?")].append(latency)
                first_upload = min(first_upload or uploading[sha], uploading[sha])
                last_final = max(last_final or record["at"], record["at"])
                rows.append({"task": task, "kind": kind_of.get(sha), "submission": record.get("submission"),
                             "status": record.get("status"), "latency": round(latency, 2),
                             "memory": memory.get(record.get("submission"))})
        phase_id = live_site.phase_record(env, competitions[task], plan[task]["phase"])["id"]
        audits[task] = live_site.audit(env, phase_id, [r["path"] for r in plan[task]["runs"]], plan[task]["expected"],
                                       account=robots[task]["CODABENCH_USER"])
        audits[task]["submit_exit"] = exits[task]
        audits[task]["submit_last_lines"] = Path(str(ledger) + ".out").read_text().splitlines()[-2:]
    span = (last_final - first_upload) if first_upload else wall
    peaks = [v for v in memory.values()]
    by_kind_memory = collections.defaultdict(list)
    for row in rows:
        if row["memory"]:
            by_kind_memory[row["kind"]].append(row["memory"])
    return {"workers": workers, "submissions": len(latencies), "wall_seconds": round(wall, 1),
            "span_seconds": round(span, 1), "per_minute": round(60.0 * len(latencies) / span, 2),
            "latency_median": round(statistics.median(latencies), 1) if latencies else None,
            "latency_p95": round(percentile(latencies, 0.95), 1) if latencies else None,
            "latency_by_kind": dict((k, {"median": round(statistics.median(v), 1), "max": round(max(v), 1)})
                                    for k, v in kinds.items()),
            "memory_peak_max_mb": round(max(peaks) / 2 ** 20, 1) if peaks else None,
            "memory_peak_median_mb": round(statistics.median(peaks) / 2 ** 20, 1) if peaks else None,
            "memory_by_kind_max_mb": dict((k, round(max(v) / 2 ** 20, 1)) for k, v in by_kind_memory.items()),
            "containers_sampled": len(peaks), "audit": audits, "rows": rows}


def prepare(dist, work, per_task, time_limit, tasks, jobs):
    """{task: {"bundle", "phase", "runs": [{path, kind, sha256, note}], "expected": {path: replay}}}."""
    plan = {}
    for task in tasks:
        built = Path(dist) / ("%s.zip" % task)
        phase = live_site.test_phase(built)
        bundle = with_time_limit(built, phase, time_limit, work / ("%s-limit%d.zip" % (task, time_limit)))
        runs = load_mix.mixed_runs(str(bundle), phase, str(work / task), per_task, seed=TASKS.index(task))
        expected_file = work / ("%s-expected.json" % task)
        if expected_file.exists():
            expected = json.loads(expected_file.read_text())
        else:
            began = time.time()
            expected = dict((k, list(v)) for k, v in live_site.replays(bundle, phase, [r["path"] for r in runs],
                                                                       jobs=jobs).items())
            expected_file.write_text(json.dumps(expected))
            print("%s: %d runs replayed locally in %.0f s" % (task, len(runs), time.time() - began), flush=True)
        plan[task] = {"bundle": bundle, "phase": phase, "runs": runs, "expected": expected}
    return plan


def show(results, plan):
    lines = ["| compute workers | submissions | first upload to last result | per minute | vs 1 worker | "
             "upload to leaderboard, median | p95 | scoring container memory, max (median) | lost | twice | "
             "differ from replay |", "|---" * 11 + "|"]
    base = None
    for result in results:
        base = base or (result["per_minute"] if result["workers"] == 1 else None)
        audits = result["audit"].values()
        lost = sum(len(a["lost"]) + len(a["not_final"]) for a in audits)
        twice = sum(len(a["twice"]) for a in audits)
        differ = sum(len(a["status_differs"]) + len(a["score_differs"]) + len(a["message_differs"]) for a in audits)
        lines.append("| %d | %d | %.0f s | %.1f | %s | %.1f s | %.1f s | %.0f MB (%.0f MB) | %d | %d | %d |" % (
            result["workers"], result["submissions"], result["span_seconds"], result["per_minute"],
            "%.2f" % (result["per_minute"] / base) if base else "-", result["latency_median"],
            result["latency_p95"], result["memory_peak_max_mb"] or 0, result["memory_peak_median_mb"] or 0, lost,
            twice, differ))
    for result in results:
        for task, audit in result["audit"].items():
            for key in ("lost", "twice", "not_final", "status_differs", "score_differs", "message_differs"):
                if audit[key]:
                    lines.append("%d worker(s), %s, %s: %s" % (result["workers"], task, key, audit[key]))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--per-task", type=int, default=40)
    parser.add_argument("--in-flight", type=int, default=8)
    parser.add_argument("--time-limit", type=int, default=30)
    parser.add_argument("--submit-timeout", type=int, default=600, help="submit's --timeout: past it a submission "
                        "Codabench lost is reported (and with --rerun-stuck, run again)")
    parser.add_argument("--rerun-stuck", action="store_true", help="submit's --rerun-stuck")
    parser.add_argument("--tasks", default=",".join(TASKS))
    parser.add_argument("--jobs", type=int, default=2, help="processes for the local replays")
    parser.add_argument("--dist", default=str(live_site.ROOT / "dist"))
    parser.add_argument("--work", default="/tmp/codalab-bundles-load")
    parser.add_argument("--out", default=str(HERE / "load.json"))
    args = parser.parse_args(argv)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    env = live_site.site_env()
    plan = prepare(args.dist, work, args.per_task, args.time_limit, args.tasks.split(","), args.jobs)
    results = []
    for workers in [int(w) for w in args.workers.split(",")]:
        options = ["--timeout", str(args.submit_timeout)] + (["--rerun-stuck"] if args.rerun_stuck else [])
        result = one_run(workers, env, plan, args.in_flight, work, options)
        results.append(result)
        print(show(results, plan), flush=True)
        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump({"settings": vars(args), "kinds": dict((t, collections.Counter(r["kind"] for r in p["runs"]))
                                                            for t, p in plan.items()),
                       "results": results}, handle, indent=1, sort_keys=True, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
