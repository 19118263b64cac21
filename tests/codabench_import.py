"""Codabench's own import (../shared/tools/codabench-import: codalab/codabench at c7dbc756, its upload path through
unpack_competition) run on bundles from the tests, with what it stored beyond the tool's own summary: the
competition's and the phases' settings that task.yaml passes through (show_detailed_results_in_submission_panel,
auto_run_submissions, hide_output, ...). The tool is a development oracle, not a dependency: tests that use it skip
when it is not set up (``available()``).

As a script, run with the tool's Python (``import_bundles`` does that): ``<venv>/bin/python codabench_import.py
A.zip B.zip ...`` prints one JSON object per bundle, the tool's own output plus ``settings`` and each phase's
``settings``.
"""
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

TOOL = Path(os.environ.get("CODABENCH_IMPORT_TOOL",
                           str(Path(__file__).resolve().parents[1].parent / "shared" / "tools" / "codabench-import")))
VENV_PYTHON = Path(os.environ.get("CBI_ROOT", "/tmp/cbimport")) / "venv" / "bin" / "python"

COMPETITION_FIELDS = ("registration_auto_approve", "enable_detailed_results",
                      "show_detailed_results_in_submission_panel", "show_detailed_results_in_leaderboard",
                      "auto_run_submissions", "can_participants_make_submissions_public", "make_programs_available",
                      "make_input_data_available", "reward", "contact_email", "forum_enabled", "competition_type",
                      "fact_sheet")
TASK_FIELDS = ("ingestion_only_during_scoring",)
PHASE_FIELDS = ("auto_migrate_to_this_phase", "hide_output", "hide_prediction_output", "hide_score_output",
                "max_submissions_per_person", "max_submissions_per_day")


PGPORT = int(os.environ.get("CBI_PGPORT", "55432"))


def available():
    """Whether the import tool can run here: its script, its Python, and its PostgreSQL answering (a machine where
    setup.sh ran once but the server is down, as a CI runner's copy of /tmp, cannot run it)."""
    if not ((TOOL / "run.py").is_file() and VENV_PYTHON.is_file()):
        return False
    try:
        socket.create_connection(("127.0.0.1", PGPORT), timeout=2).close()
    except OSError:
        return False
    return True


def import_or_skip(paths):
    """``import_bundles(paths)``, or the calling test skipped when the tool cannot run here."""
    import pytest
    if not available():
        pytest.skip("Codabench's import tool cannot run here (../shared/tools/codabench-import/setup.sh, "
                    "PostgreSQL on 127.0.0.1:%d)" % PGPORT)
    try:
        return import_bundles(paths)
    except RuntimeError as exc:
        pytest.skip(str(exc)[:500])


def import_bundles(paths):
    """One dict per bundle: the tool's JSON (ok, error, competition) and, when imported, competition.settings and
    each phase's settings. Raises RuntimeError when the tool itself cannot run (no database, ...)."""
    done = subprocess.run([str(VENV_PYTHON), str(Path(__file__).resolve())] + [str(p) for p in paths],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=600)
    results = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if len(results) != len(paths) or any(str(r.get("error") or "").startswith("HARNESS") for r in results):
        raise RuntimeError("the import tool did not run: %s" % (done.stderr.strip()[-2000:] or done.stdout[-2000:]))
    return results


def _main(paths):
    sys.argv = [str(TOOL / "run.py")]
    sys.path.insert(0, str(TOOL))
    import runpy
    tool = runpy.run_path(str(TOOL / "run.py"), run_name="codabench_import_tool")  # Django set up, S3 stand-in up
    from competitions.models import Competition
    name = "a-organizer-%d" % os.getpid()
    user = tool["User"].objects.create_user(username=name, email="%s@example.org" % name, password="x")
    client = tool["APIClient"]()
    client.force_authenticate(user)
    for path in paths:
        try:
            out = tool["import_bundle"](path, client)
        except Exception as exc:  # the harness failed, not the bundle
            out = {"ok": False, "error": "HARNESS: %s: %s" % (type(exc).__name__, exc)}
        if out.get("ok"):
            comp = Competition.objects.get(id=out["competition"]["id"])
            out["competition"]["settings"] = dict((f, getattr(comp, f)) for f in COMPETITION_FIELDS)
            stored = dict((p.index, p) for p in comp.phases.all())
            for phase in out["competition"]["phases"]:
                phase["settings"] = dict((f, getattr(stored[phase["index"]], f)) for f in PHASE_FIELDS)
            out["competition"]["task_settings"] = dict(
                (task.name, dict((f, getattr(task, f)) for f in TASK_FIELDS))
                for phase in comp.phases.all() for task in phase.tasks.all())
        print(json.dumps(dict([("bundle", str(path))] + list(out.items())), default=str), flush=True)
    os._exit(0)  # the S3 stand-in's thread would keep the process alive


if __name__ == "__main__":
    _main(sys.argv[1:])
