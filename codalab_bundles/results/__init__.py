"""``results``: the task paper's results table, from a live Codabench phase or a folder of runs (see run.py)."""
