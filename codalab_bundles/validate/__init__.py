"""Checking any competition bundle before upload: ours or third-party, CodaLab v1.5 and/or Codabench.

The rules are data where they can be: a JSON Schema per platform (platforms/schemas/*.schema.json, each rule
carrying an ``x-fix`` hint), plus a short list of cross-file checks (CHECKS) and a replay of each phase's
starting-kit submission. Each rule cites where it comes from in the platform's own source (Codabench's unpackers,
serializers and models; CodaLab's models).

The modules, each importing only those above it in this list:

- findings: Finding, Context (the opened bundle the checks share), the platforms and severities, and the verdicts
  format_findings, passed and imports;
- contents: what is inside the files a bundle names: pages (UTF-8, not empty, at most MAX_PAGE_BYTES) and the logo
  (is_image, is_cmyk_jpeg);
- schema_rules: competition.yaml against its platform's JSON Schema, and the keys Codabench ignores;
- v15_rules: the cross-file checks of CodaLab v1.5 bundles, on CodaLab and in Codabench's v1 import;
- v2_rules: the cross-file checks of Codabench version 2 bundles;
- fact_sheet_rules: a version 2 bundle's fact_sheet, as Codabench's import and its submissions read it;
- stored_rules: what Codabench stores from either version (dates, phases nobody can submit to, ordering column);
- runtime_rules: what the import does not see: scoring programs' metadata and the sample replays;
- run: validate() itself: the zip's layout, the schemas, CHECKS in order, then the replays.

What the command line, migrate and the tests use is re-exported here.
"""
from .contents import is_cmyk_jpeg, is_image, jpeg_components
from .findings import DEFAULT_PLATFORMS, PLATFORMS, Finding, format_findings, imports, passed
from .run import CHECKS, MAX_BUNDLE_FILE_NAME, validate
from .v15_rules import MAX_TASK_NAME

__all__ = ["validate", "format_findings", "passed", "imports", "Finding", "PLATFORMS", "DEFAULT_PLATFORMS", "CHECKS",
           "MAX_TASK_NAME", "MAX_BUNDLE_FILE_NAME", "is_image", "jpeg_components", "is_cmyk_jpeg"]
