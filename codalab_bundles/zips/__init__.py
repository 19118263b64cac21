"""Zips: deterministic packing (pack: byte-identical bundles from the same inputs) and bounded, safe extraction of
zips someone else wrote (safe_zip: bundles, submissions, programs)."""
