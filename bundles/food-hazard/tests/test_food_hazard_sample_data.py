"""food-hazard sample reference data: reproducible from its generator, and shaped like the real release."""
import csv
from codalab_bundles.loading import load_file

import pandas as pd
import pytest

from conftest import ROOT, shared_path

GENERATOR = ROOT / "bundles" / "food-hazard" / "sample_data.py"
SAMPLE = ROOT / "reference_data" / "food-hazard"
FILES = {"valid": ("incidents_valid_sample.csv", 60), "test": ("incidents_test_sample.csv", 100)}
HEADER = ["", "year", "month", "day", "country", "title", "text",
          "hazard-category", "product-category", "hazard", "product"]
# The label sets of the task (seed document: 10 hazard categories, 22 product categories).
HAZARD_CATEGORIES = {"allergens", "biological", "chemical", "food additives and flavourings", "foreign bodies",
                     "fraud", "migration", "organoleptic aspects", "other hazard", "packaging defect"}
PRODUCT_CATEGORIES = {
    "alcoholic beverages", "cereals and bakery products", "cocoa and cocoa preparations, coffee and tea",
    "confectionery", "dietetic foods, food supplements, fortified foods", "fats and oils", "feed materials",
    "food additives and flavourings", "food contact materials", "fruits and vegetables", "herbs and spices",
    "honey and royal jelly", "ices and desserts", "meat, egg and dairy products", "non-alcoholic beverages",
    "nuts, nut products and seeds", "other food product / mixed", "pet feed", "prepared dishes and snacks",
    "seafood", "soups, broths, sauces and condiments", "sugars and syrups"}


def load_generator():
    return load_file(GENERATOR)


def test_generator_depends_on_the_seed():
    generator = load_generator()
    assert generator.incidents(20, 1) == generator.incidents(20, 1)
    assert generator.incidents(20, 1) != generator.incidents(20, 2)


@pytest.mark.parametrize("split", sorted(FILES))
def test_layout_and_quirks_of_the_real_files(split):
    name, rows = FILES[split]
    path = SAMPLE / split / name
    raw = path.read_text(encoding="utf-8")
    assert raw.startswith(",year,month,day,") and "\r" not in raw
    with path.open(encoding="utf-8", newline="") as handle:
        records = list(csv.reader(handle))
    assert records[0] == HEADER
    assert [r[0] for r in records[1:]] == [str(i) for i in range(rows)]
    frame = pd.read_csv(path, index_col=0, keep_default_na=False)
    assert frame.shape == (rows, 10)
    assert (frame["text"].str.count("\n") >= 2).mean() > 0.9          # quoted multi-line texts
    assert frame["text"].str.contains('"').any()                      # quotes escaped inside a quoted cell
    assert frame["product-category"].str.contains(",").any()           # labels with commas
    assert set(frame["hazard-category"]) <= HAZARD_CATEGORIES
    assert set(frame["product-category"]) <= PRODUCT_CATEGORIES
    assert frame["hazard-category"].value_counts().index[0] in ("allergens", "biological")  # imbalance, as real
    assert frame["year"].between(1994, 2022).all() and frame["month"].between(1, 12).all()


def test_label_quirks_across_splits():
    frames = [pd.read_csv(SAMPLE / s / n, index_col=0, keep_default_na=False) for s, (n, _) in FILES.items()]
    products = set().union(*(set(f["product"]) for f in frames))
    assert "Fishes not identified" in products                            # case-sensitive label
    assert any("," in p for p in products)                               # fine labels with commas too
    # the same fine label under two categories
    pairs = pd.concat(frames)[["hazard-category", "hazard"]].drop_duplicates()
    assert pairs["hazard"].value_counts()["other"] > 1


def test_sample_texts_are_not_copied_from_the_real_data():
    real = pd.read_csv(shared_path("food-hazard", "incidents_test.csv"), index_col=0, keep_default_na=False)
    real_titles = set(real["title"])
    for split, (name, _) in FILES.items():
        sample = pd.read_csv(SAMPLE / split / name, index_col=0, keep_default_na=False)
        assert not real_titles & set(sample["title"])
