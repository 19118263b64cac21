"""Split a Recipe-MPR dataset file (such as 500QA.json) into the competition's Development and Test gold.

    python3 bundles/recipe-mpr/split_data.py 500QA.json OUT_DIR [--dev-size 100] [--seed 2023]

writes OUT_DIR/dev/dev.json and OUT_DIR/test/test.json, JSON lists in the dataset's own schema; then build with
    python3 build_bundle.py --reference dev=OUT_DIR/dev --reference test=OUT_DIR/test

The split is deterministic and independent of the Python version: query number i (0-based position in the input)
gets the key sha256("recipe-mpr:<seed>:<i>"); the --dev-size queries with the smallest keys form Development, the
others Test. Each split keeps the input's order. A query without an ``id`` gets one from its position in the
input file (q000, q001, ...), so a query keeps the same id whichever split it lands in.
"""
import argparse
import hashlib
import json
import os
import sys

DEFAULT_SEED = 2023
DEFAULT_DEV_SIZE = 100
SPLITS = ("dev", "test")


def split_key(seed, position):
    return hashlib.sha256(("recipe-mpr:%d:%d" % (seed, position)).encode("ascii")).hexdigest()


def with_id(query, position):
    """The query with an ``id`` first (the scorer's default name for it when it has none)."""
    if "id" in query:
        return dict(query)
    named = {"id": "q%03d" % position}
    named.update(query)
    return named


def split_queries(queries, dev_size=DEFAULT_DEV_SIZE, seed=DEFAULT_SEED):
    """(dev, test): lists of queries, each in input order."""
    if not 0 < dev_size < len(queries):
        raise ValueError("the dev size must be between 1 and %d (the dataset has %d queries)"
                         % (len(queries) - 1, len(queries)))
    ranked = sorted(range(len(queries)), key=lambda i: split_key(seed, i))
    dev_positions = set(ranked[:dev_size])
    named = [with_id(q, i) for i, q in enumerate(queries)]
    dev = [q for i, q in enumerate(named) if i in dev_positions]
    test = [q for i, q in enumerate(named) if i not in dev_positions]
    return dev, test


def dump_json(data):
    """The project's JSON layout for gold files: stable, readable, UTF-8."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write_splits(out_dir, dev, test):
    for name, queries in zip(SPLITS, (dev, test)):
        folder = os.path.join(out_dir, name)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, name + ".json"), "w", encoding="utf-8", newline="\n") as handle:
            handle.write(dump_json(queries))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", help="the full dataset: a JSON list of queries (e.g. 500QA.json)")
    parser.add_argument("out_dir", help="where to write dev/dev.json and test/test.json")
    parser.add_argument("--dev-size", type=int, default=DEFAULT_DEV_SIZE,
                        help="queries in Development (default %(default)s)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="split seed (default %(default)s)")
    args = parser.parse_args(argv)
    with open(args.dataset, encoding="utf-8-sig") as handle:
        queries = json.load(handle)
    if not isinstance(queries, list):
        parser.error("%s is not a JSON list of queries" % args.dataset)
    try:
        dev, test = split_queries(queries, args.dev_size, args.seed)
    except ValueError as exc:
        parser.error(str(exc))
    write_splits(args.out_dir, dev, test)
    print("wrote %d Development and %d Test queries under %s" % (len(dev), len(test), args.out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
