#!/usr/bin/env python3
"""Writes the code-submission starting kit's data and the baseline's parameters from the sample validation gold
(reference_data/food-hazard/valid), as committed:

- kit/train.csv: four in five incidents, labeled (the baseline's training data);
- kit/dev/input/ref/incidents_dev.csv: the other fifth (every fifth row), labeled: the offline run's gold;
- kit/dev/input_data/incidents.csv: the same incidents without their labels, as the ingestion program gets them
  (made by derive.py's public_data, as the build makes input_data);
- model/nb_params.json: the baseline trained on kit/train.csv (kit/train_baseline.py).

    python3 bundles/food-hazard/code_kit/make_kit_data.py [--gold DIR] [--out DIR]

(--out: write kit/ and model/nb_params.json under another folder; tests compare them with the committed ones)
"""
import argparse
import csv
import sys
import tempfile
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

from codalab_bundles.loading import load_file  # noqa: E402


def write_rows(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", default=str(ROOT / "reference_data" / "food-hazard" / "valid"))
    parser.add_argument("--out", default=str(HERE))
    args = parser.parse_args(argv)
    out = Path(args.out)
    gold = sorted(Path(args.gold).glob("*.csv"))[0]
    with gold.open(encoding="utf-8-sig", newline="") as handle:
        records = [r for r in csv.reader(handle) if r]
    header, rows = records[0], records[1:]
    dev = [row for number, row in enumerate(rows) if number % 5 == 4]
    train = [row for number, row in enumerate(rows) if number % 5 != 4]
    kit = out / "kit"
    write_rows(kit / "train.csv", [header] + train)
    write_rows(kit / "dev" / "input" / "ref" / "incidents_dev.csv", [header] + dev)
    derive = load_file(ROOT / "bundles" / "food-hazard" / "derive.py")
    with tempfile.TemporaryDirectory() as temp:
        (kit / "dev" / "input_data").mkdir(parents=True, exist_ok=True)
        derive.public_data(types.SimpleNamespace(reference_dir=kit / "dev" / "input" / "ref",
                                                 out_dir=kit / "dev" / "input_data", public_dir=Path(temp)))
    sys.path.insert(0, str(HERE / "model"))  # the kit's layout has model/ beside train_baseline.py; here it is ../
    sys.modules.pop("model", None)
    trainer = load_file(HERE / "kit" / "train_baseline.py")
    (out / "model").mkdir(parents=True, exist_ok=True)
    return trainer.main([str(kit / "train.csv"), str(out / "model" / "nb_params.json")])


if __name__ == "__main__":
    sys.exit(main())
