"""validate(): a bundle opened, where its competition.yaml is (zip layout, unsafe entries), its schema checked for
each platform, then the cross-file checks of CHECKS in order and, when nothing is wrong, the sample replays."""
from __future__ import annotations

import zipfile
from typing import Iterable

import yaml

from ..zips import safe_zip
from .contents import logo_image
from .fact_sheet_rules import v2_fact_sheet
from .findings import DEFAULT_PLATFORMS, PLATFORMS, Context, Finding
from .runtime_rules import programs, sample_replays
from .schema_rules import check_schema, unknown_keys
from .stored_rules import codabench_stored
from .v15_rules import (v1_codabench_import, v1_codabench_names, v1_files, v1_leaderboard, v1_phase_numbers,
                        v1_phase_order)
from .v2_rules import v2_files, v2_structure
from .exposure_rules import v2_exposure
from .code_rules import code_submission

# Codabench's limit on the bundle's own file name (models at c7dbc756: Data.file_name; the upload is refused with
# HTTP 400 beyond it).
MAX_BUNDLE_FILE_NAME = 64

# (rule, bundle version, platforms, function): the cross-file checks, in the order they run.
CHECKS = [
    ("v1-files", "1", PLATFORMS, v1_files),
    ("v1-phase-numbers", "1", ("codalab",), v1_phase_numbers),
    ("v1-phase-order", "1", ("codalab",), v1_phase_order),
    ("v1-leaderboard", "1", PLATFORMS, v1_leaderboard),
    ("v1-codabench-import", "1", ("codabench",), v1_codabench_import),
    ("v1-codabench-names", "1", ("codabench",), v1_codabench_names),
    ("v2-files", "2", ("codabench",), v2_files),
    ("v2-structure", "2", ("codabench",), v2_structure),
    ("v2-exposure", "2", ("codabench",), v2_exposure),
    ("v2-fact-sheet", "2", ("codabench",), v2_fact_sheet),
    ("codabench-stored", None, ("codabench",), codabench_stored),
    ("unknown-keys", None, ("codabench",), unknown_keys),
    ("logo-image", None, ("codabench",), logo_image),
    ("programs", None, PLATFORMS, programs),
    ("code-submission", None, ("codabench",), code_submission),
]


def _zip_layout(path, archive, platforms):
    """Findings about where competition.yaml is; returns (findings, the yaml entry to check or None).

    Codabench reads only the root competition.yaml; CodaLab reads the first entry whose name contains '.yaml'.
    """
    findings = []
    names = archive.namelist()
    yamls = [n for n in names if ".yaml" in n]
    if not yamls:
        for p in platforms:
            findings.append(Finding("error", p, "zip", "(zip)", "no competition.yaml in the bundle",
                                    "put competition.yaml at the root of the zip"))
        return findings, None
    if "competition.yaml" not in names:
        for p in platforms:
            message = ("competition.yaml is not at the root (%s): %s" % (yamls[0], "every file path is then wrong "
                       "('There is no item named overview.html')" if p == "codalab" else
                       "'competition.yaml is missing from zip'"))
            findings.append(Finding("error", p, "zip", "(zip)", message, "zip the bundle's files, not their folder"))
        return findings, (yamls[0] if "codabench" not in platforms else None)
    if yamls[0] != "competition.yaml" and "codalab" in platforms:
        findings.append(Finding("error", "codalab", "zip", "(zip)", "CodaLab reads the first entry whose name "
                                "contains '.yaml', which is %s" % yamls[0], "write competition.yaml first and "
                                "avoid other names containing .yaml"))
    return findings, "competition.yaml"


def _unsafe_entries(path, archive, platforms, limits):
    """Findings for a bundle whose entries escape, are links, clash or exceed the extraction limits: no platform
    should be handed such a zip, whatever its competition.yaml says."""
    try:
        safe_zip.check_archive(archive, path, limits)
    except safe_zip.ZipRefused as exc:
        return [Finding("error", p, "zip", "(zip)", str(exc), "rebuild the bundle from plain files with relative "
                        "names") for p in platforms]
    return []


def validate(path, platforms: Iterable[str] | None = None, replay: bool = True,
             limits: safe_zip.Limits | None = None, executor=None) -> tuple[str | None, list[Finding]]:
    """Check a bundle. Returns (version, findings); ``platforms`` defaults to Codabench, where bundles go now.
    ``limits`` (safe_zip.Limits) bounds what is read from the bundle and extracted by the sample replays; ``executor``
    runs them (None: this machine's python3; or replay.DockerExecutor). ``version`` is "1" (v1.5), "2", what the
    bundle says when it is neither, or None when no competition.yaml could be read."""
    path = str(path)
    platforms = tuple(platforms or DEFAULT_PLATFORMS)
    limits = limits or safe_zip.Limits()
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        return None, [Finding("error", p, "zip", "(zip)", "cannot open %s: %s" % (path, exc), None)
                      for p in platforms]
    with archive:
        findings, yaml_name = _zip_layout(path, archive, platforms)
        findings += _unsafe_entries(path, archive, platforms, limits)
        if yaml_name is None:
            return None, findings
        try:
            spec = yaml.safe_load(safe_zip.read_member(archive, yaml_name, path, limits).decode("utf-8"))
        except safe_zip.ZipRefused as exc:
            return None, findings + [Finding("error", p, "yaml", yaml_name, str(exc), None)
                                     for p in platforms or PLATFORMS]
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            return None, findings + [Finding("error", p, "yaml", yaml_name, "not readable YAML: %s" % exc, None)
                                     for p in platforms]
        if not isinstance(spec, dict):
            return None, findings + [Finding("error", p, "yaml", yaml_name, "not a mapping", None)
                                     for p in platforms]
        version = str(spec.get("version", "1"))
        if version in ("1", "1.5"):
            version = "1"
        elif version != "2":
            return version, findings + [Finding("error", "codabench", "schema", "version", "version %r is neither "
                                                "1, 1.5 nor 2" % spec.get("version"), "write version: 2 or leave it "
                                                "out for a v1.5 bundle")]
        chosen = list(platforms)
        ctx = Context(path, archive, spec, version, limits)
        ctx.findings = findings
        ctx.executor = executor
        name = path.replace("\\", "/").rsplit("/", 1)[-1]
        if "codabench" in chosen and len(name) > MAX_BUNDLE_FILE_NAME:
            ctx.add("error", "codabench", "zip", "(zip)", "the file name %s has %d characters: Codabench's upload "
                    "refuses a name longer than %d ('file_name: Ensure this field has no more than %d characters.')"
                    % (name, len(name), MAX_BUNDLE_FILE_NAME, MAX_BUNDLE_FILE_NAME), "rename the zip")
        if version == "2" and "codalab" in chosen:
            ctx.add("error", "codalab", "schema", "version", "a version 2 bundle cannot be uploaded to CodaLab "
                    "v1.5 ('version' is not a Competition field)", "build the v1.5 bundle for CodaLab")
            chosen.remove("codalab")
        for platform in chosen:
            if version == "1" and platform == "codalab":
                check_schema(ctx, platform, "codalab-v1.5.schema.json")
            if version == "2":
                check_schema(ctx, platform, "codabench-v2.schema.json")
        for _, for_version, for_platforms, check in CHECKS:
            for platform in chosen:
                if platform in for_platforms and for_version in (None, version):
                    check(ctx, platform)
        if replay and not any(f.severity == "error" for f in ctx.findings):
            for platform in chosen:
                sample_replays(ctx, platform)
        elif replay:
            for platform in chosen:
                ctx.add("note", platform, "replay", "(bundle)", "the sample submissions were not replayed: fix the "
                        "errors above first")
        return version, ctx.findings
