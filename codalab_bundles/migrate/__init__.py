"""Migrating an old CodaLab bundle to Codabench. Its parts, bottom first (each imports only those above it here):

- report: what changed, what was lost and what is left to do by hand, as text or JSON;
- old_bundle: reading the old bundle or dump (its YAML, dates, phases in order; is_dump), MigrationError;
- competition: the competition's settings, logo, pages and terms;
- schedule: the phases' dates (CodaLab's schedule kept), phases open together merged, each phase's settings;
- program_check, legacy_scores_wrapper: its scoring programs checked (Python 3) and kept working on Codabench;
- tasks: the tasks, one per distinct program and data, and the programs re-rooted or wrapped;
- leaderboard: its columns and ranking carried over;
- v2_writer: the competition.yaml written;
- bundle_check: the written bundle validated and replayed under the Codabench worker (and original_imports);
- convert: the whole migration (convert, migrate, migrate_many, default_output).
"""
from .bundle_check import original_imports
from .convert import default_output, migrate, migrate_many
from .old_bundle import MigrationError, is_dump
from .report import (BREAKS, CHANGE, CONTENT, INCOMPLETE, LOSS, MANUAL, NOTE, REFUSED, SUMMARY_FIELDS, UNSCORED, Report,
                     format_report, format_summary, summary_rows)

__all__ = ["MigrationError", "default_output", "is_dump", "migrate", "migrate_many", "original_imports", "BREAKS",
           "CHANGE", "CONTENT", "INCOMPLETE", "LOSS", "MANUAL", "NOTE", "REFUSED", "SUMMARY_FIELDS", "UNSCORED", "Report",
           "format_report", "format_summary", "summary_rows"]
