"""Authoring: a task folder (bundles/<task>/task.yaml, pages, data, kit) made into competition bundles.

taskdef reads and checks a task's definition (against schemas/task.schema.json), render fills the competition.yaml
and page templates (templates/), build packs each platform's bundle (scoring program, reference and public data,
starting kit) and replays its sample submissions, new_task starts a task of an organizer's own, generic_kits writes
the generic tasks' starting kits and sample data."""
