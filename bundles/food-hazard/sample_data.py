#!/usr/bin/env python3
"""Generate the food-hazard sample reference data: invented food-recall notices with SemEval-2025 Task 9 labels.

    python3 bundles/food-hazard/sample_data.py [--out reference_data/food-hazard]

writes <out>/valid/incidents_valid_sample.csv and <out>/test/incidents_test_sample.csv in the layout of the real release: a
leading unnamed index column, then year, month, day, country, title, text and the four label columns. Texts are
quoted and span several lines, some labels contain commas, and labels are case-sensitive ("Fishes not identified").
Every brand, place and notice is made up here; the output depends only on the seed. Standard library only.
"""
import argparse
import csv
import io
import os
import random

COLUMNS = ["", "year", "month", "day", "country", "title", "text",
           "hazard-category", "product-category", "hazard", "product"]
SPLITS = (("valid", "incidents_valid_sample.csv", 60, 9025), ("test", "incidents_test_sample.csv", 100, 9110))

# hazard-category: (weight, [(hazard label, how a notice names it)]); weights follow the real class imbalance.
HAZARDS = {
    "allergens": (36, [
        ("milk and products thereof", "undeclared milk"),
        ("peanuts and products thereof", "undeclared peanut"),
        ("eggs and products thereof", "undeclared egg"),
        ("soybeans and products thereof", "undeclared soy"),
        ("cereals containing gluten and products thereof", "undeclared wheat (gluten)"),
        ("sesame seeds and products thereof", "undeclared sesame"),
        ("mustard and products thereof", "undeclared mustard"),
        ("sulphur dioxide and sulphites", "undeclared sulphites"),
        ("almond", "undeclared almond"),
        ("fish and products thereof", "undeclared fish"),
        ("crustaceans and products thereof", "undeclared shrimp"),
    ]),
    "biological": (34, [
        ("listeria monocytogenes", "Listeria monocytogenes"),
        ("salmonella", "Salmonella"),
        ("escherichia coli", "E. coli O157:H7"),
        ("listeria spp", "Listeria"),
        ("clostridium botulinum", "Clostridium botulinum"),
        ("moulds", "mould growth"),
        ("bacillus spp.", "Bacillus cereus"),
    ]),
    "foreign bodies": (11, [
        ("plastic fragment", "pieces of hard plastic"),
        ("metal fragment", "small metal pieces"),
        ("glass fragment", "glass fragments"),
        ("rubber fragments", "bits of rubber seal"),
        ("bone fragment", "bone fragments"),
        ("other", "an extraneous object"),
    ]),
    "fraud": (8, [
        ("labelling/misdescription", "a labelling error"),
        ("incorrect labeling", "incorrect labels"),
        ("inspection issues", "production without inspection"),
        ("undeclared additive", "an undeclared colouring"),
        ("false marketing claims", "an unsupported health claim"),
        ("insufficient labelling/documentation", "missing English labelling"),
    ]),
    "chemical": (5, [
        ("unauthorised substance ethylene oxide", "ethylene oxide"),
        ("heavy metals", "high levels of lead"),
        ("polycyclic aromatic hydrocarbons", "polycyclic aromatic hydrocarbons"),
        ("antibiotics, vet drugs", "residues of veterinary drugs"),
        ("toxin", "histamine"),
        ("other", "a cleaning agent"),
    ]),
    "other hazard": (3, [
        ("processing", "a processing deviation"),
        ("improper conditions", "storage at the wrong temperature"),
        ("other not classified", "a possible health risk"),
        ("poor or insufficient controls", "inadequate process controls"),
    ]),
    "organoleptic aspects": (1, [
        ("spoilage", "spoilage"),
        ("abnormal smell", "an unusual smell"),
        ("taste disturbance", "an off taste"),
    ]),
    "packaging defect": (1, [
        ("bulging packaging", "swollen containers"),
        ("damaged packaging", "faulty seals"),
        ("packaging defect", "a packaging fault"),
    ]),
    "food additives and flavourings": (0.5, [
        ("e 425 - konjac unauthorised", "konjac, which is not permitted in jelly sweets"),
        ("other", "an excess of a permitted preservative"),
    ]),
    "migration": (0.3, [
        ("other", "chemical migration from the packaging"),
    ]),
}

# product-category: (weight, [(product label, how a notice names it)]).
PRODUCTS = {
    "meat, egg and dairy products": (28, [
        ("chicken based products", "Chicken Nuggets"),
        ("ground beef", "Ground Beef"),
        ("ham", "Smoked Ham"),
        ("pork sausage", "Pork Sausages"),
        ("cheese", "Cheddar Cheese"),
        ("feta cheese", "Feta Cheese in Brine"),
        ("yoghurt", "Greek Style Yoghurt"),
        ("milk", "Semi-Skimmed Milk"),
        ("eggs", "Free Range Eggs"),
        ("turkey and turkey preparations", "Sliced Turkey Breast"),
        ("fully cooked, frozen chicken wings", "Buffalo Chicken Wings"),
    ]),
    "cereals and bakery products": (12, [
        ("bread", "Sourdough Bread"),
        ("cookies", "Chocolate Chip Cookies"),
        ("cakes", "Carrot Cake"),
        ("biscuits", "Oat Biscuits"),
        ("crackers", "Rye Crackers"),
        ("breakfast cereals", "Honey Granola"),
    ]),
    "fruits and vegetables": (10, [
        ("salads", "Garden Salad Kit"),
        ("corn", "Sweet Corn"),
        ("golden raisins/sultanas", "Golden Sultanas"),
        ("frozen berries", "Frozen Mixed Berries"),
        ("enoki mushrooms", "Enoki Mushrooms"),
    ]),
    "prepared dishes and snacks": (9, [
        ("sandwiches", "Egg Mayo Sandwiches"),
        ("potato chips", "Sea Salt Potato Chips"),
        ("ready to eat - cook meals", "Chicken Tikka Ready Meal"),
        ("snacks (various)", "Party Snack Mix"),
    ]),
    "seafood": (6, [
        ("salmon", "Smoked Salmon"),
        ("Fishes not identified", "Dried Fish"),
        ("shrimps", "Cooked Prawns"),
        ("tuna", "Tuna in Oil"),
    ]),
    "nuts, nut products and seeds": (5, [
        ("peanuts", "Roasted Peanuts"),
        ("pistachio nuts", "Pistachio Kernels"),
        ("nuts, nut products and seeds", "Mixed Nuts and Seeds"),
    ]),
    "soups, broths, sauces and condiments": (5, [
        ("soup", "Lentil Soup"),
        ("pesto", "Basil Pesto"),
        ("soy sauce", "Light Soy Sauce"),
        ("salad dressing", "Caesar Dressing"),
    ]),
    "ices and desserts": (5, [
        ("ice cream", "Vanilla Ice Cream"),
        ("puddings", "Sticky Toffee Pudding"),
    ]),
    "cocoa and cocoa preparations, coffee and tea": (4, [
        ("dark chocolates", "70% Dark Chocolate"),
        ("chocolate bars", "Hazelnut Chocolate Bar"),
        ("instant coffee", "3 in 1 Instant Coffee"),
    ]),
    "confectionery": (3, [
        ("candies", "Fruit Candies"),
        ("jellies", "Mini Fruit Jelly Cups"),
    ]),
    "dietetic foods, food supplements, fortified foods": (3, [
        ("dietary supplement", "Vitamin D Capsules"),
        ("protein powder", "Whey Protein Powder"),
    ]),
    "herbs and spices": (2, [
        ("spices", "Curry Powder"),
        ("black pepper", "Ground Black Pepper"),
    ]),
    "non-alcoholic beverages": (2, [
        ("bottled water", "Spring Water"),
        ("fruit juice", "Apple Juice"),
    ]),
    "alcoholic beverages": (1.5, [
        ("wine", "Red Wine"),
        ("beer", "Pale Ale"),
    ]),
    "other food product / mixed": (1.3, [
        ("other food product", "Assorted Hamper"),
    ]),
    "fats and oils": (0.6, [
        ("olive oil", "Olive Pomace Oil"),
    ]),
    "honey and royal jelly": (0.3, [
        ("honey", "Raw Honey"),
    ]),
    "sugars and syrups": (0.2, [
        ("maple syrup", "Maple Syrup"),
    ]),
    "pet feed": (0.2, [
        ("dog food", "Dog Treats"),
    ]),
}

COUNTRIES = (("us", 42), ("au", 17), ("ca", 16), ("uk", 14), ("ie", 6), ("hk", 2), ("na", 1.5), ("sg", 0.5))
BRANDS = ("Harrow Lane", "Blue Kettle", "Mama Rosa\u2019s", "Northfield Farms", "Golden Acre", "Kiwa Foods",
          "Tideline", "Old Mill Bakery", "Sunny Orchard", "Pak Hing Trading", "Willowbrook Dairy",
          "Casa Verde", "Ridgeback Meats", "Little Sparrow", "Maple & Oak", "Crest Valley", "Lotus Garden",
          "Brannigan\u2019s", "Alpenhof", "Seaspray Fisheries", "Highgate Deli", "Café Arômes")
SHOPS = ("Aldi", "Tesco", "Coles", "Woolworths", "Lidl", "SuperValu", "Walmart", "Loblaws", "Sainsbury\u2019s")
STATES = ("Ohio", "Texas", "New Jersey", "California", "Illinois", "Georgia", "Oregon", "New York")
SIZES = ("150g", "200g", "250g", "300g", "400g", "500g", "1kg")
LIQUID_SIZES = ("250ml", "330ml", "500ml", "750ml", "1L")
LIQUIDS = ("Milk", "Water", "Juice", "Wine", "Ale", "Sauce", "Syrup", "Oil", "Soup", "Dressing")


def _size(rng, product):
    return rng.choice(LIQUID_SIZES if product.endswith(LIQUIDS) else SIZES)


def _weighted(rng, table):
    """A key of ``table`` (key -> (weight, ...)) drawn by weight."""
    keys = list(table)
    return rng.choices(keys, weights=[table[k][0] for k in keys])[0]


def _date(rng):
    year = rng.choice(range(1994, 2023)) if rng.random() < 0.15 else rng.choice(range(2012, 2023))
    return year, rng.randint(1, 12), rng.randint(1, 28)


def _title(rng, country, year, brand, product, hazard):
    if country == "us" and year < 2000:
        return "Recall Notification: FSIS-%03d-%02d" % (rng.randint(1, 120), year % 100)
    patterns = {
        "us": ("%(brand)s Recalls %(product)s Because of Possible Health Risk",
               "%(brand)s Issues Voluntary Recall of %(product)s Due to %(hazard_cap)s",
               "%(brand)s Recalls %(product)s Products Due to %(hazard_cap)s"),
        "au": ("%(brand)s\u2014%(product)s %(size)s",
               "%(brand)s %(product)s"),
        "ca": ("%(brand)s brand %(product)s recalled due to %(hazard)s",
               "Certain %(brand)s %(product)s may contain %(hazard)s"),
        "uk": ("%(brand)s recalls %(product)s because of %(hazard)s",
               "%(shop)s recalls %(brand)s %(product)s due to %(hazard)s"),
        "ie": ("Recall of a Batch of %(brand)s %(product)s Due to %(hazard_cap)s",
               "%(hazard_cap)s in %(brand)s %(product)s Sold by %(shop)s"),
        "hk": ("Recall of %(product)s suspected of containing %(hazard)s",),
        "na": ("%(shop)s recalls %(brand)s %(product)s due to %(hazard)s",),
        "sg": ("Recall of %(brand)s %(product)s due to %(hazard)s",),
    }
    values = {"brand": brand, "product": product, "hazard": hazard, "hazard_cap": hazard[:1].upper() + hazard[1:],
              "size": _size(rng, product), "shop": rng.choice(SHOPS)}
    return rng.choice(patterns[country]) % values


def _fsis_form(rng, year, month, day, brand, product, hazard):
    """Old US notices are forms with padded fields; kept as line breaks and spaces."""
    lines = ["Recall number:  %03d-%02d   " % (rng.randint(1, 120), year % 100),
             "            Opened:  %02d/%02d/%d" % (month, day, year),
             "            Class:  %s   " % rng.choice(("I", "II")),
             "    ",
             "            Establishment:  %s" % brand.upper(),
             "            State:  %s" % rng.choice(STATES),
             "    ",
             "            Product:  %s" % product.upper(),
             "            Reason:  %s" % hazard.upper(),
             "    ",
             "            Pounds recalled:  %d" % rng.randint(200, 90000)]
    return "\n".join(lines)


def _notice(rng, country, year, brand, product, hazard, hazard_category):
    """A few paragraphs in the style of an agency notice, separated by line breaks."""
    size = _size(rng, product)
    best_before = "%02d/%02d/%d" % (rng.randint(1, 28), rng.randint(1, 12), year + rng.randint(0, 1))
    opening = rng.choice((
        "%(brand)s is recalling %(product)s (%(size)s) because of %(hazard)s.",
        "%(brand)s has taken %(product)s, %(size)s, off the shelves as a precaution: %(hazard)s was found.",
        "As a precaution, %(brand)s is withdrawing %(product)s %(size)s because of %(hazard)s.",
    )) % {"brand": brand, "product": product, "size": size, "hazard": hazard}
    advice = {
        "allergens": "People with an allergy or intolerance to this ingredient should not eat the product.",
        "biological": "Eating food contaminated with this organism can cause serious illness, especially in "
                      "young children, older people and pregnant women.",
        "foreign bodies": "The pieces could cause injury if swallowed.",
    }.get(hazard_category, "Consumers should not use the product.")
    details = "Affected lot: %s%05d, \"best before\" %s." % (rng.choice("ABCKLMT"), rng.randint(0, 99999), best_before)
    where = rng.choice((
        "The product was sold in %s stores and online." % rng.choice(SHOPS),
        "It was distributed to retailers in %s." % rng.choice(STATES),
        "No illnesses have been reported so far.",
    ))
    ending = rng.choice((
        "Return it to the place of purchase for a full refund.",
        "Throw it away or take it back to the shop; questions can go to the company\u2019s customer line.",
        "The recall was started after a routine check by the company.",
    ))
    paragraphs = [opening, advice, details + " " + where, ending]
    if country in ("au", "ie") and rng.random() < 0.5:
        paragraphs.insert(1, "Date published: %d %s" % (rng.randint(1, 28), rng.choice(("March", "July", "June"))))
    return "\n".join(paragraphs)


def incident(rng):
    """One labeled incident as a dict keyed by COLUMNS[1:]."""
    hazard_category = _weighted(rng, HAZARDS)
    hazard, hazard_words = rng.choice(HAZARDS[hazard_category][1])
    product_category = _weighted(rng, PRODUCTS)
    product, product_words = rng.choice(PRODUCTS[product_category][1])
    country = rng.choices([c for c, _ in COUNTRIES], weights=[w for _, w in COUNTRIES])[0]
    year, month, day = _date(rng)
    brand = rng.choice(BRANDS)
    title = _title(rng, country, year, brand, product_words, hazard_words)
    if title.startswith("Recall Notification"):
        text = _fsis_form(rng, year, month, day, brand, product_words, hazard_words)
    else:
        text = _notice(rng, country, year, brand, product_words, hazard_words, hazard_category)
    return {"year": year, "month": month, "day": day, "country": country, "title": title, "text": text,
            "hazard-category": hazard_category, "product-category": product_category,
            "hazard": hazard, "product": product}


def incidents(count, seed):
    rng = random.Random(seed)
    return [incident(rng) for _ in range(count)]


def to_csv(rows):
    """The CSV text as pandas' DataFrame.to_csv writes it: unnamed index column, minimal quoting, LF line ends."""
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for i, row in enumerate(rows):
        writer.writerow([i] + [row[c] for c in COLUMNS[1:]])
    return out.getvalue()


def write(out_dir):
    for split, name, count, seed in SPLITS:
        folder = os.path.join(out_dir, split)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, name), "w", encoding="utf-8", newline="") as handle:
            handle.write(to_csv(incidents(count, seed)))


def main(argv=None):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(root, "reference_data", "food-hazard"),
                        help="output folder (default: reference_data/food-hazard of the repository)")
    write(parser.parse_args(argv).out)


if __name__ == "__main__":
    main()
