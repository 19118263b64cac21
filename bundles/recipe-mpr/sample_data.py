"""Generate the sample Recipe-MPR gold shipped with the project (our own synthetic queries, not the real dataset).

    python3 bundles/recipe-mpr/sample_data.py [--out reference_data/recipe-mpr]

Each query asks for a dish (named, which makes it Specific, or only by a main ingredient) with one or two
requirements; the five options are the correct recipe and four near misses, each failing one part of the query.
Like the released dataset, the correct option comes first and the fields are query, query_type, options, answer
and correctness_explanation. The queries are split into dev/ and test/ with the same seeded split as the real data
(bundles/recipe-mpr/split_data.py). Same seed, same bytes.
"""
import argparse
import collections
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from split_data import split_queries, write_splits  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_OUT = os.path.join(ROOT, "reference_data", "recipe-mpr")
SEED = 4071
QUERY_COUNT = 50
DEV_SIZE = 10
TYPES = ("Specific", "Commonsense", "Negated", "Analogical", "Temporal")

# Named dishes: (as asked in a query, as written in an option).
DISHES = [
    ("a lasagna", "Lasagna"), ("a pot of chili", "Chili"), ("some tacos", "Tacos"), ("a curry", "Curry"),
    ("a stir-fry", "Stir-fry"), ("a risotto", "Risotto"), ("a frittata", "Frittata"), ("a casserole", "Casserole"),
    ("a pasta bake", "Pasta bake"), ("a soup", "Soup"), ("a quiche", "Quiche"), ("some skewers", "Skewers"),
    ("a shepherd's pie", "Shepherd's pie"), ("a burrito bowl", "Burrito bowl"), ("a noodle salad", "Noodle salad"),
]
INGREDIENTS = ["salmon", "chicken thighs", "mushrooms", "lentils", "sweet potatoes", "shrimp", "tofu", "zucchini",
               "eggplant", "black beans", "cauliflower", "pork tenderloin", "spinach", "chickpeas"]
MEAT = {"salmon", "chicken thighs", "shrimp", "pork tenderloin"}
GENERAL_ASKS = ["something with %s", "a dish with %s", "a main course using %s", "a meal built around %s"]

# Requirements: key, the words of the query, "that" clause (True) or phrase after the dish (False), flags,
# what the correct option says, and two ways an option fails it.
Requirement = collections.namedtuple("Requirement", "key words clause flags good fails")
REQUIREMENTS = [Requirement(*r) for r in [
    ("weight", "that fits a diet to lose weight", True, {"Commonsense"},
     "made with lean turkey and half the usual oil", ["topped with bacon and double cream", "fried in butter"]),
    ("weeknight", "for a busy weeknight", False, {"Commonsense", "Temporal"},
     "ready in 20 minutes in one pan", ["marinated overnight before cooking", "slow-roasted for four hours"]),
    ("quick", "that takes under half an hour", True, {"Temporal"},
     "cooked in 25 minutes", ["baked slowly for three hours", "left to rise for a day"]),
    ("dairy", "without any dairy", False, {"Negated"},
     "made with coconut milk instead of cream", ["finished with parmesan and butter", "made with sour cream"]),
    ("mild", "that is not spicy at all", True, {"Negated", "Commonsense"},
     "seasoned only with garlic and parsley", ["with habanero peppers", "tossed in hot chili flakes"]),
    ("pizza", "that tastes like a pizza", True, {"Analogical"},
     "with tomato sauce, oregano and melted mozzarella", ["with soy sauce and ginger", "with a maple glaze"]),
    ("thai", "reminiscent of a Thai green curry", False, {"Analogical", "Commonsense"},
     "flavoured with lemongrass, basil and green curry paste", ["seasoned with cumin and chili powder",
                                                                "in a creamy mushroom sauce"]),
    ("vegetarian", "for my vegetarian sister", False, {"Commonsense"},
     "with beans instead of meat", ["made with ground beef", "with chicken stock and bacon"]),
    ("toddler", "that my two-year-old can eat", True, {"Commonsense"},
     "cut into soft bite-sized pieces with no added salt", ["with whole peanuts", "in a fiery chili sauce"]),
    ("eggs", "that has no eggs in it", True, {"Negated"},
     "bound with mashed chickpeas", ["bound with three beaten eggs", "topped with a fried egg"]),
    ("breakfast", "to eat before a morning run", False, {"Temporal", "Commonsense"},
     "with oats and banana for steady energy", ["deep-fried and heavy", "with a rich cream sauce"]),
    ("budget", "that is cheap to make", True, {"Commonsense"},
     "made from pantry staples for under five dollars", ["with saffron and lobster", "with wagyu beef"]),
    ("crunchy", "topped with something crunchy", False, set(),
     "under a layer of toasted breadcrumbs", ["with a smooth mashed topping", "with a soft custard top"]),
    ("grill", "cooked on the grill", False, set(),
     "charred on an outdoor grill", ["steamed in a bamboo basket", "boiled in salted water"]),
    ("slowcooker", "made in the slow cooker", False, set(),
     "simmered for six hours in a slow cooker", ["made in a pressure cooker", "baked in a hot oven"]),
    ("herbs", "full of fresh herbs", False, set(),
     "finished with basil, dill and parsley", ["seasoned with dried spices only", "with no herbs at all"]),
    ("sheetpan", "made on a single sheet pan", False, set(),
     "roasted together on one sheet pan", ["cooked in three separate pots", "deep-fried in a wok"]),
]]
# Requirements whose correct options would contradict each other.
CONFLICTS = {frozenset(p) for p in [
    ("weight", "vegetarian"), ("weight", "pizza"), ("dairy", "pizza"), ("weeknight", "slowcooker"),
    ("quick", "slowcooker"), ("weeknight", "quick"), ("mild", "thai"), ("pizza", "thai"), ("eggs", "vegetarian"),
    ("breakfast", "pizza"), ("budget", "weight"), ("crunchy", "grill"), ("grill", "slowcooker"),
    ("sheetpan", "slowcooker"), ("sheetpan", "grill"), ("sheetpan", "weeknight"),
    ("toddler", "mild"), ("breakfast", "thai")]}
OPENERS = [("I would like ", ""), ("Can I have a recipe for ", "?"), ("What's a good recipe for ", "?"),
           ("I'm looking for ", ""), ("Could you suggest ", "?"), ("I want to make ", "")]


def _pick_requirements(rng):
    count = 1 if rng.random() < 0.4 else 2
    while True:
        chosen = rng.sample(REQUIREMENTS, count)
        if count == 1 or frozenset((chosen[0].key, chosen[1].key)) not in CONFLICTS:
            return chosen


def _ask(requirements):
    """The requirements as words after the dish: phrases first, then "that" clauses joined by "and"."""
    phrases = [r.words for r in requirements if not r.clause]
    clauses = [r.words for r in requirements if r.clause]
    if len(clauses) == 2:
        clauses = [clauses[0] + " and " + clauses[1][len("that "):]]
    return ", ".join(phrases + clauses)


def _describe(dish, parts):
    return ", ".join([dish] + list(parts))


def make_query(rng):
    requirements = _pick_requirements(rng)
    specific = rng.random() < 0.35
    if specific:
        (asked, dish), (_, other_dish) = rng.sample(DISHES, 2)
        term, target = asked.split(" ", 1)[1], dish
    else:
        vegetarian = any(r.key == "vegetarian" for r in requirements)
        ingredient, other = rng.sample([i for i in INGREDIENTS if not (vegetarian and i in MEAT)], 2)
        (_, base), (_, other_base) = rng.sample(DISHES, 2)
        asked = rng.choice(GENERAL_ASKS) % ingredient
        dish, other_dish = "%s with %s" % (base, ingredient), "%s with %s" % (base, other)
        term, target = ingredient, ingredient
    opener, end = rng.choice(OPENERS)
    text = opener + asked + " " + _ask(requirements) + end

    good = [r.good for r in requirements]
    fails = [rng.sample(r.fails, 2) for r in requirements]
    if len(requirements) == 2:
        near = [[fails[0][0], good[1]], [good[0], fails[1][0]], good, [fails[0][1], fails[1][1]]]
        dishes = [dish, dish, other_dish, dish]
    else:
        near = [[fails[0][0]], [fails[0][1]], good, [fails[0][0]]]
        dishes = [dish, dish, other_dish, other_dish]
    descriptions = [_describe(dish, good)] + [_describe(d, p) for d, p in zip(dishes, near)]

    ids = []
    while len(ids) < 5:
        oid = "%010x" % rng.getrandbits(40)
        if oid not in ids:
            ids.append(oid)
    flags = set().union(*(r.flags for r in requirements))
    if specific:
        flags.add("Specific")
    explanation = {term: target}
    explanation.update((r.words, r.good) for r in requirements)
    return {
        "query": text,
        "query_type": dict((t, 1 if t in flags else 0) for t in TYPES),
        "options": dict(zip(ids, descriptions)),
        "answer": ids[0],
        "correctness_explanation": explanation,
    }


def generate(count=QUERY_COUNT, seed=SEED):
    rng = random.Random(seed)
    queries, texts = [], set()
    while len(queries) < count:
        query = make_query(rng)
        if query["query"] not in texts and len(set(query["options"].values())) == 5:
            texts.add(query["query"])
            queries.append(query)
    return queries


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", dest="out_dir", default=DEFAULT_OUT, help="default: %(default)s")
    args = parser.parse_args(argv)
    dev, test = split_queries(generate(), DEV_SIZE)
    write_splits(args.out_dir, dev, test)
    print("wrote %d dev and %d test queries under %s" % (len(dev), len(test), args.out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
