#!/usr/bin/env python3
"""A keyword baseline for the Food Hazard Detection Challenge: reads the titles, writes submission.csv.

    python3 baseline.py incidents.csv submission.csv

It looks for a few telling words in each title (a pathogen, an allergen, a material, a food) and falls back to
the most common labels otherwise. It needs no training data; any trained classifier should beat it easily.
Standard library only; the output has the same unnamed index column as incidents.csv.
"""
import csv
import sys

# (word in the lower-cased title, hazard-category, hazard); the first match wins.
HAZARD_WORDS = (
    ("listeria", "biological", "listeria monocytogenes"),
    ("salmonella", "biological", "salmonella"),
    ("coli", "biological", "escherichia coli"),
    ("botulinum", "biological", "clostridium botulinum"),
    ("mould", "biological", "moulds"),
    ("peanut", "allergens", "peanuts and products thereof"),
    ("milk", "allergens", "milk and products thereof"),
    ("dairy", "allergens", "milk and products thereof"),
    ("egg", "allergens", "eggs and products thereof"),
    ("soy", "allergens", "soybeans and products thereof"),
    ("wheat", "allergens", "cereals containing gluten and products thereof"),
    ("gluten", "allergens", "cereals containing gluten and products thereof"),
    ("sesame", "allergens", "sesame seeds and products thereof"),
    ("mustard", "allergens", "mustard and products thereof"),
    ("sulphite", "allergens", "sulphur dioxide and sulphites"),
    ("sulfite", "allergens", "sulphur dioxide and sulphites"),
    ("almond", "allergens", "almond"),
    ("plastic", "foreign bodies", "plastic fragment"),
    ("metal", "foreign bodies", "metal fragment"),
    ("glass", "foreign bodies", "glass fragment"),
    ("ethylene oxide", "chemical", "unauthorised substance ethylene oxide"),
    ("label", "fraud", "labelling/misdescription"),
    ("inspection", "fraud", "inspection issues"),
)
FALLBACK_HAZARD = ("allergens", "milk and products thereof")

# (word in the lower-cased title, product-category, product); the first match wins.
PRODUCT_WORDS = (
    ("ice cream", "ices and desserts", "ice cream"),
    ("chocolate", "cocoa and cocoa preparations, coffee and tea", "chocolate bars"),
    ("coffee", "cocoa and cocoa preparations, coffee and tea", "instant coffee"),
    ("chicken", "meat, egg and dairy products", "chicken based products"),
    ("beef", "meat, egg and dairy products", "ground beef"),
    ("pork", "meat, egg and dairy products", "pork sausage"),
    ("sausage", "meat, egg and dairy products", "pork sausage"),
    ("ham", "meat, egg and dairy products", "ham"),
    ("cheese", "meat, egg and dairy products", "cheese"),
    ("cookie", "cereals and bakery products", "cookies"),
    ("biscuit", "cereals and bakery products", "biscuits"),
    ("bread", "cereals and bakery products", "bread"),
    ("cake", "cereals and bakery products", "cakes"),
    ("salad", "fruits and vegetables", "salads"),
    ("salmon", "seafood", "salmon"),
    ("fish", "seafood", "Fishes not identified"),
    ("peanut", "nuts, nut products and seeds", "peanuts"),
    ("soup", "soups, broths, sauces and condiments", "soup"),
    ("sandwich", "prepared dishes and snacks", "sandwiches"),
    ("chips", "prepared dishes and snacks", "potato chips"),
    ("wine", "alcoholic beverages", "wine"),
    ("water", "non-alcoholic beverages", "bottled water"),
)
FALLBACK_PRODUCT = ("meat, egg and dairy products", "chicken based products")

COLUMNS = ("hazard-category", "product-category", "hazard", "product")


def first_match(title, table, fallback):
    title = title.lower()
    for word, category, label in table:
        if word in title:
            return category, label
    return fallback


def predict(title):
    """The four labels for one title, in the order of COLUMNS."""
    hazard_category, hazard = first_match(title, HAZARD_WORDS, FALLBACK_HAZARD)
    product_category, product = first_match(title, PRODUCT_WORDS, FALLBACK_PRODUCT)
    return [hazard_category, product_category, hazard, product]


def write_submission(incidents_path, submission_path):
    with open(incidents_path, encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        title = header.index("title")
        rows = [(record[0], predict(record[title])) for record in reader if record]
    with open(submission_path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(("",) + COLUMNS)  # the unnamed index column, as DataFrame.to_csv writes it
        for row_id, labels in rows:
            writer.writerow([row_id] + labels)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    write_submission(sys.argv[1], sys.argv[2])
