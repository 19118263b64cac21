"""What a check finds, and the verdicts on what was found.

Finding is one finding (its severity, platform, rule, where, message and what to change); Context is the opened
bundle the checks share and add their findings to. format_findings writes the report a person reads, passed says
whether nothing needs changing, and imports whether the platform's import would accept the bundle (an error it does
not see, such as a program that cannot run, does not stop the import).
"""
from __future__ import annotations

import zipfile
from typing import Iterable

from ..zips import safe_zip

PLATFORMS = ("codabench", "codalab")
DEFAULT_PLATFORMS = ("codabench",)  # CodaLab Competitions stopped taking submissions at the end of 2025
LABELS = {"codalab": "CodaLab v1.5", "codabench": "Codabench"}
SEVERITIES = ("error", "warning", "note")  # notes are printed but do not fail the validation

# Rules whose errors the platform's import does not see: the bundle is accepted, and its submissions fail.
RUN_TIME_RULES = ("program", "replay")


class Finding(object):
    """One finding. ``accepted``: an error the platform's import accepts (the competition is created, and cannot
    be used as it is: programs that cannot run, a phase nobody can submit to)."""

    def __init__(self, severity: str, platform: str, rule: str, where: str, message: str, fix: str | None = None,
                 accepted: bool | None = None):
        self.severity, self.platform, self.rule = severity, platform, rule
        self.where, self.message, self.fix = where, message, fix
        self.accepted = rule in RUN_TIME_RULES if accepted is None else accepted

    def as_dict(self) -> dict:
        return dict(self.__dict__)

    def __repr__(self):
        return "Finding(%s, %s, %s, %s)" % (self.severity, self.platform, self.rule, self.message)


class Context(object):
    """The opened bundle and what the checks share."""

    def __init__(self, path, archive: zipfile.ZipFile, spec: dict, version: str,
                 limits: safe_zip.Limits | None = None):
        self.path, self.zip, self.spec, self.version = str(path), archive, spec, version
        self.names = set(archive.namelist())
        self.findings: list[Finding] = []
        self.limits = limits or safe_zip.Limits()
        self.executor = None  # how the sample replays run: this machine's python3 (None), or replay.DockerExecutor

    def read(self, name: str) -> bytes:
        """An entry's bytes, within the extraction limits (raises safe_zip.ZipRefused)."""
        return safe_zip.read_member(self.zip, name, self.path, self.limits)

    def add(self, severity: str, platform: str, rule: str, where: str, message: str, fix: str | None = None,
            accepted: bool | None = None) -> None:
        self.findings.append(Finding(severity, platform, rule, where, message, fix, accepted))

    def exists(self, name: str) -> bool:
        """A file in the zip, or (Codabench allows it) a folder."""
        return name in self.names or any(n.startswith(name.rstrip("/") + "/") for n in self.names)


def format_findings(path, version: str | None, findings: list[Finding]) -> str:
    """The report a person reads: the bundle's version, each finding with what to change, errors first."""
    failing = [f for f in findings if f.severity != "note"]
    lines = ["%s: %s" % (path, {"1": "CodaLab v1.5 bundle (version 1)", "2": "Codabench bundle (version 2)"}.get(
        version, "not a readable bundle"))]
    for f in sorted(findings, key=lambda f: (SEVERITIES.index(f.severity), f.platform)):
        lines.append("  %-7s [%s] %s: %s" % (f.severity, LABELS.get(f.platform, f.platform), f.where, f.message))
        if f.fix:
            lines.append("          what to change: %s" % f.fix)
    lines.append("OK: nothing to change" if not failing else "%d finding(s) to fix" % len(failing))
    return "\n".join(lines)


def imports(findings: Iterable[Finding], platform: str = "codabench") -> bool:
    """Whether the platform's import accepts the bundle: no error but those it accepts (see Finding)."""
    return not any(f.severity == "error" and f.platform == platform and not f.accepted for f in findings)


def passed(findings: Iterable[Finding]) -> bool:
    """Nothing to change: no error and no warning (notes do not count)."""
    return not any(f.severity != "note" for f in findings)
