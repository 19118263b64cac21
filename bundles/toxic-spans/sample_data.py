"""Generate the toxic-spans sample reference data: invented news comments with character-offset gold spans.

    python3 bundles/toxic-spans/sample_data.py [--out OUT_DIR]     (default: reference_data/toxic-spans)

Writes OUT_DIR/trial/tsd_trial_sample.csv and OUT_DIR/test/tsd_test_sample.csv in the released layout: header `spans,text`,
`spans` a Python list literal of character offsets ("[10, 11, 12]" or "[]"), LF record ends, quotes only where
needed (multi-line texts, commas, quotes). Every text is written here from templates; none is taken from the real
data. A fifth of the posts are toxic as a whole but have no span, as in the real task.

Templates mark toxic spans with [[...]]. Upper-case slots ({N}, {NS}, {AN}, {ADJ}, {ADJ_CAP}) are filled with a
marked insult; lower-case slots ({n}, {ns}, {adj}) with an unmarked one, for use inside a larger marked phrase.
"""
import argparse
import csv
import os
import random
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_OUT = os.path.join(ROOT, "reference_data", "toxic-spans")

# split -> (file name, number of posts, seed)
SPLITS = {
    "trial": ("tsd_trial_sample.csv", 60, 20200731),
    "test": ("tsd_test_sample.csv", 120, 20210110),
}
EMPTY_SHARE = 0.2

NOUNS = ["idiot", "moron", "clown", "fool", "buffoon", "imbecile", "dimwit", "nitwit", "halfwit", "jerk"]
PLURALS = ["idiots", "morons", "clowns", "fools", "buffoons", "imbeciles", "dimwits", "jerks", "losers"]
ADJECTIVES = ["stupid", "pathetic", "ignorant", "dumb", "idiotic", "moronic", "clueless", "brainless",
              "foolish", "laughable"]

NEUTRAL = [
    "The council approved the new budget on Tuesday without any public debate.",
    "Property taxes in this town have gone up three years in a row.",
    "I read the whole article and it still doesn't explain where the money went.",
    "My neighbour waited six months for a building permit.",
    "The ferry schedule changes every winter and nobody tells the riders.",
    "Ridership on the new light rail line is half of what was promised.",
    "We pay more for gas here than anywhere else on the coast.",
    "The school board meets again next week, so show up and say something.",
    "Fishing quotas were cut again this season.",
    "That bridge has needed repairs since 2009.",
    "Housing prices doubled in a decade while wages stayed flat.",
    "The senator voted against the bill twice before voting for it.",
    "Thanks to the reporter for actually following up on this story.",
    "Read the report before you comment; it's linked at the bottom.",
    "The pipeline hearings were postponed until spring.",
    "Nobody I know can afford childcare on one income anymore.",
    "Last winter the road to the airport was closed for four days.",
    "The state already has a surplus, so why raise fees?",
    "Tourism numbers were up 12% last summer according to the article.",
    "Our hospital still doesn't have enough nurses.",
    "The editorial board endorsed the same candidate last time too.",
    "There are two sides to this, but the numbers speak for themselves.",
    "I\u2019ve lived here for 30 years and never seen traffic this bad.",
    "The mayor\u2019s office says the audit will be public in March.",
    "Ask any teacher what they spend on supplies out of pocket.",
    "Recycling pickup is now every other week \u2014 and the fee went up.",
    "The university cut two programs and added three administrators.",
    "Minimum wage goes up again in January.",
    "The police chief promised more patrols downtown after the break-ins.",
    "It\u2019s the same story every election: big promises, no follow-through.",
    "Voter turnout was under 30 percent in the primary.",
    "The caf\u00e9 on Main Street closed after twenty years.",
    "The governor will sign it anyway, so this debate is mostly theater.",
    "Rents near the campus are out of reach for most students.",
    "The dam relicensing has dragged on for almost a decade.",
    "Where was this \u201cfiscal responsibility\u201d when they bought the new stadium?",
]

TOXIC = [
    "Only {AN} would believe a word of this.",
    "The mayor is {AN} and everyone at city hall knows it.",
    "What an utterly {ADJ} thing to say.",
    "These {NS} in the legislature couldn't run a lemonade stand.",
    "You are {AN}, plain and simple.",
    "Anyone who voted for this plan is {AN}.",
    "Stop posting your {ADJ} conspiracy theories.",
    "The council is run by a bunch of {NS}.",
    "Just another {ADJ} column from a writer who never leaves the office.",
    "He's {AN}, and his staff are {NS}.",
    "How {ADJ} can people be?",
    "{ADJ_CAP} idea from {ADJ} people.",
    "Listen to yourself, you [[{adj} {n}]].",
    "[[Shut up]] and read the article, {N}.",
    "Typical {ADJ} response from the usual {NS}.",
    "The board members are {ADJ} and lazy.",
    "Keep embarrassing yourself, {N}.",
    "Your comment is the most {ADJ} thing I've read all week.",
    "That is {ADJ}. Utterly {ADJ}.",
    "Only {NS} still defend this project.",
    "Is the editor {AN} or just asleep?",
    "These [[{adj} {ns}]] will bankrupt us.",
    "What {AN}.",
    "Go back to your {ADJ} talk radio.",
    "Sorry, but that's the most {ADJ} plan I have ever heard.",
    "Classic {N} behaviour from the premier.",
    "The man is {AN} in a suit.",
    "Both parties are full of {NS}.",
    "Nobody cares what some [[{adj} troll]] thinks.",
    "LOL, what {AN}!!",
    "The people running this ferry system are {NS}, every last one.",
    "You must be {ADJ} if you think rents will come down.",
]

# Toxic as a whole, but no single span to point at (the gold is []).
NO_SPAN = [
    "People like you are the reason nothing gets done in this state.",
    "Maybe read a book before you open your mouth next time.",
    "Of course you would say that. Your kind always does.",
    "Go ahead and keep voting against your own interests, see where it gets you.",
    "Nobody asked for your opinion, and nobody ever will.",
    "Call me stupid, but I thought the budget was supposed to balance.",
    "Enjoy your little echo chamber.",
    "You clearly have no idea what you are talking about, as usual.",
    "If you can't handle the facts, stay off the comment section.",
    "Typical. Take the money and run.",
    "Some of us actually work for a living.",
    "Get a life and stop trolling every article.",
    "The whole lot of them should be run out of town.",
    "I made a stupid mistake once and paid the fine. He should too.",
    "Spare us the lecture, we have heard it all before.",
]

_SLOT = re.compile(r"\{(N|NS|AN|ADJ|ADJ_CAP|n|ns|adj)\}")


def _fill(template, rng):
    """Replace the slots; marked slots come back wrapped in [[...]]."""
    def word(match):
        slot = match.group(1)
        if slot.lower() == "n" or slot == "AN":
            value = rng.choice(NOUNS)
        elif slot.lower() == "ns":
            value = rng.choice(PLURALS)
        else:
            value = rng.choice(ADJECTIVES)
        if slot == "ADJ_CAP":
            value = value.capitalize()
        elif slot.isupper() and rng.random() < 0.06:
            value = value.upper()  # commenters shout now and then
        if slot.islower():
            return value
        marked = "[[%s]]" % value
        if slot == "AN":
            return ("an " if value[0].lower() in "aeiou" else "a ") + marked
        return marked
    return _SLOT.sub(word, template)


def _strip_marks(marked):
    """(text, offsets): the text without [[ ]] and the character offsets of everything that was inside them."""
    text, offsets = [], []
    inside = False
    i = 0
    while i < len(marked):
        pair = marked[i:i + 2]
        if pair in ("[[", "]]"):
            inside = pair == "[["
            i += 2
            continue
        if inside:
            offsets.append(len(text))
        text.append(marked[i])
        i += 1
    return "".join(text), offsets


def _post(rng, with_span):
    """One post as (text, offsets): a few sentences, joined on one line or spread over several."""
    if with_span:
        main = [_fill(t, rng) for t in rng.sample(TOXIC, rng.choice([1, 1, 1, 2]))]
    else:
        main = rng.sample(NO_SPAN, rng.choice([1, 1, 2]))
    head = rng.sample(NEUTRAL, rng.choice([0, 1, 1, 2, 3]))
    # The insult usually closes the comment, sometimes opens it.
    sentences = main + head if rng.random() < 0.25 else head + main
    marked = sentences[0]
    for sentence in sentences[1:]:
        r = rng.random()
        separator = "\n\n" if r < 0.08 else "\n" if r < 0.18 else "  " if r < 0.24 else " "
        marked += separator + sentence
    return _strip_marks(marked)


def generate(n_posts, seed):
    """n_posts distinct (text, offsets) pairs; exactly round(EMPTY_SHARE * n_posts) of them have no span."""
    rng = random.Random(seed)
    empty = set(rng.sample(range(n_posts), int(round(EMPTY_SHARE * n_posts))))
    posts, seen = [], set()
    for index in range(n_posts):
        while True:
            text, offsets = _post(rng, index not in empty)
            if text not in seen:
                break
        seen.add(text)
        posts.append((text, offsets))
    return posts


def write_split(out_dir, split):
    name, n_posts, seed = SPLITS[split]
    folder = os.path.join(out_dir, split)
    if not os.path.isdir(folder):
        os.makedirs(folder)
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["spans", "text"])
        for text, offsets in generate(n_posts, seed):
            writer.writerow([str(offsets), text])
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description="Write the toxic-spans sample reference data.")
    parser.add_argument("--out", dest="out_dir", default=DEFAULT_OUT,
                        help="folder that gets trial/ and test/ (default: reference_data/toxic-spans)")
    args = parser.parse_args(argv)
    for split in SPLITS:
        print("wrote %s" % write_split(args.out_dir, split))
    return 0


if __name__ == "__main__":
    sys.exit(main())
