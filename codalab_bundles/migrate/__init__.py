"""Migrating an old CodaLab bundle to Codabench: convert reads the old bundle and writes the new one, leaderboard
carries its columns and ranking over, program_check and legacy_scores_wrapper keep its scoring program working,
v2_writer writes the competition.yaml, report says what changed, what was lost and what is left to do by hand."""
from .convert import MigrationError, default_output, is_dump, migrate, migrate_many, original_imports
from .report import (BREAKS, CHANGE, CONTENT, INCOMPLETE, LOSS, MANUAL, NOTE, REFUSED, SUMMARY_FIELDS, UNSCORED, Report,
                     format_report, format_summary, summary_rows)

__all__ = ["MigrationError", "default_output", "is_dump", "migrate", "migrate_many", "original_imports", "BREAKS",
           "CHANGE", "CONTENT", "INCOMPLETE", "LOSS", "MANUAL", "NOTE", "REFUSED", "SUMMARY_FIELDS", "UNSCORED", "Report",
           "format_report", "format_summary", "summary_rows"]
