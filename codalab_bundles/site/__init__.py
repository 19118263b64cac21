"""Talking to a live Codabench: its REST client (codabench_api), publishing a bundle (publish), updating a live
competition in place (live_update) and submitting runs (submit)."""
