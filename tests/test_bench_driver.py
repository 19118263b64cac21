"""bench/run.py: the rows it prints for a task's main input, its variants and its build (no timing is asserted)."""
import os
import subprocess
import sys

from conftest import ROOT


def test_bench_times_each_variant_and_the_build(tmp_path):
    env = dict(os.environ, OFFICIAL_SCORERS="")
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "recipe-mpr", "--scales", "1",
                           "--repeat", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                          universal_newlines=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split(" | ")[:3] for line in proc.stdout.splitlines() if line.startswith("| recipe-mpr")]
    assert rows == [["| recipe-mpr", "500 queries", "1x"], ["| recipe-mpr, no gold index", "500 queries", "1x"],
                    ["| recipe-mpr", "500 queries", "1x"]]
    assert "| build | real size | scale | seconds | peak MiB | seconds / 1x |" in proc.stdout
    assert "recipe-mpr: official scorer not run: D3Mlab/Recipe-MPR (baselines/eval.py) not found" in proc.stdout
