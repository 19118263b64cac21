#!/usr/bin/env python3
"""Generate the CHEERS sample data: humanitarian report sentences labelled for relevance and sector.

The real CHEERS data may not be re-hosted, so the project ships this invented stand-in. All texts are written
from templates here; nothing comes from the real dataset. Seeded and standard library only, so a rerun gives
byte-identical files.

Writes, for each split (train, val, test), OUT/<split>/:
  sentences_<split>_en.csv     doc_id, sentence_id, sentence_text, is_relevant, sector_ids
  documents_<split>_en.csv     project_name, country_code, doc_id, doc_text, doc_url
  immap_sector_name_to_id.json sector name -> id

Usage: python3 bundles/cheers/sample_data.py [--out reference_data/cheers] [--seed 2021]
"""
import argparse
import csv
import io
import json
import os
import random

# Project name, country code, places named in its reports, affected groups.
PROJECTS = [
    ("IMMAP/DFS Syria", "SYR",
     ["Idleb", "Aleppo", "Ar-Raqqa", "Deir-ez-Zor", "Al-Hasakeh", "Homs", "Rural Damascus", "Dar'a"],
     ["IDPs", "returnees", "host community members"]),
    ("IMMAP/DFS Bangladesh", "BGD",
     ["Cox's Bazar", "Ukhiya", "Teknaf", "Kutupalong", "camp 15", "camp 26", "Bhasan Char"],
     ["Rohingya refugees", "host community members"]),
    ("IMMAP/DFS Nigeria", "NGA",
     ["Borno", "Adamawa", "Yobe", "Maiduguri", "Bama", "Gwoza", "Monguno", "Dikwa"],
     ["IDPs", "returnees", "host community members"]),
    ("IMMAP/DFS Burkina Faso", "BFA",
     ["the Sahel region", "Centre-Nord", "Djibo", "Kaya", "Dori", "Boucle du Mouhoun", "the Est region"],
     ["displaced persons", "host families"]),
    ("IMMAP/DFS RDC", "COD",
     ["North Kivu", "South Kivu", "Ituri", "Kasai", "Tanganyika", "Beni territory", "Djugu territory"],
     ["IDPs", "returnees", "refugees"]),
    ("IMMAP/DFS Colombia", "COL",
     ["La Guajira", "Norte de Santander", "Cúcuta", "Arauca", "Nariño", "Chocó", "Antioquia"],
     ["Venezuelan migrants and refugees", "Colombian returnees", "host communities"]),
]

SECTORS = ["Agriculture", "Cross", "Education", "Food Security", "Health", "Livelihoods", "Logistics",
           "Nutrition", "Protection", "Shelter", "WASH"]
SECTOR_ID = dict((name, i + 1) for i, name in enumerate(SECTORS))

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
CROPS = ["maize", "sorghum", "wheat", "rice", "millet", "cassava"]
ORGS = ["the information management unit", "the inter-sector coordination group", "the assessment working group",
        "partner organisations", "the field coordination team"]

# Sentences an analyst would tag, by sector. Slots: {place} {group} {n} {k} {k2} {pct} {month} {day} {crop}.
SECTOR_SENTENCES = {
    "Agriculture": [
        "Farmers in {place} reported losing up to {pct}% of the {crop} harvest to late rains and crop pests.",
        "Access to farmland remains limited in {place}, where {n} households could not plant this season.",
        "The price of seeds and fertiliser in {place} has nearly doubled since {month}, so many farmers are "
        "cultivating smaller plots.",
        "Livestock deaths were reported in {place} after pasture and water points dried up.",
    ],
    "Cross": [
        "A multi-sector needs assessment in {place} found that {pct}% of {group} households face at least two "
        "severe needs.",
        "{group} in {place} list cash, food and shelter as their three priority needs.",
        "Needs are highest in {place}, where access constraints have limited every type of assistance since "
        "{month}.",
    ],
    "Education": [
        "{k} schools in {place} remain closed, leaving about {n} children without formal education.",
        "Teachers in {place} have not been paid for several months and attendance has dropped sharply.",
        "Only {pct}% of school-age {group} children in {place} attended distance learning sessions in {month}.",
        "Girls in {place} are more likely than boys to drop out of school after the age of twelve.",
    ],
    "Food Security": [
        "{pct}% of {group} households in {place} had poor or borderline food consumption in {month}.",
        "The cost of the minimum food basket in {place} rose by {pct}% compared with the previous month.",
        "Families in {place} report skipping meals and buying food on credit to cope with rising prices.",
        "Food distributions in {place} reached {n} people in {month}, fewer than half of those in need.",
    ],
    "Health": [
        "Health partners recorded {n} suspected cholera cases in {place} in the week ending {day} {month}.",
        "Only {k} of the {k2} health facilities in {place} are fully functional, according to the latest "
        "assessment.",
        "Measles vaccination coverage in {place} remains below {pct}%, raising fears of new outbreaks.",
        "{group} in {place} have to walk more than two hours to reach the nearest clinic.",
    ],
    "Livelihoods": [
        "Daily labour opportunities in {place} have fallen since movement restrictions began in {month}.",
        "{pct}% of surveyed households in {place} said they had lost their main source of income.",
        "Many {group} in {place} depend on informal work and remittances that have become irregular.",
    ],
    "Logistics": [
        "Heavy rains damaged the main road to {place}, delaying humanitarian supplies by {k} days.",
        "Fuel shortages in {place} have pushed up transport costs for humanitarian convoys.",
        "Road access to {place} is possible only with armed escorts, which limits the number of missions.",
    ],
    "Nutrition": [
        "Screening in {place} identified {n} children under five with severe acute malnutrition.",
        "Admissions to outpatient therapeutic feeding sites in {place} rose in {month}.",
        "Global acute malnutrition among children in {place} has passed the emergency threshold of 15%.",
    ],
    "Protection": [
        "Protection monitors in {place} documented {n} incidents of gender-based violence in {month}.",
        "Many {group} in {place} lack civil documentation, which restricts their movement and access to services.",
        "Cases of child recruitment by armed groups were reported in {place}.",
        "Explosive ordnance in farmland around {place} continues to cause civilian casualties.",
    ],
    "Shelter": [
        "About {n} shelters were damaged or destroyed by strong winds in {place}.",
        "Displaced families in {place} live in overcrowded collective centres with little privacy.",
        "Many tents in {place} need replacing before the winter season.",
    ],
    "WASH": [
        "Households in {place} receive on average {k} litres of water per person per day, below the minimum "
        "standard.",
        "Latrines in {place} overflowed after heavy rains, raising the risk of waterborne disease.",
        "The water pumping station serving {place} has been out of service since {month}.",
    ],
}

# Sentences touching several sectors at once.
MULTI_SECTOR_SENTENCES = [
    (("Food Security", "Nutrition"),
     "Rising food prices in {place} are forcing families to cut meals, and more children are being admitted "
     "for malnutrition treatment."),
    (("WASH", "Health"),
     "Contaminated water sources in {place} are linked to a rise in acute watery diarrhoea at health facilities."),
    (("Shelter", "Protection"),
     "Women and girls in overcrowded shelters in {place} say they feel unsafe at night because there is no "
     "lighting and doors cannot be locked."),
    (("Education", "Shelter"),
     "{k} schools in {place} are being used as collective shelters, so classes have been suspended."),
    (("Agriculture", "Food Security", "Livelihoods"),
     "The poor {crop} harvest in {place} has cut household income and food stocks, and farmers cannot afford "
     "seeds for the next season."),
    (("Health", "Nutrition", "WASH"),
     "Cholera, poor hygiene and high malnutrition rates in {place} together put young children at severe risk."),
    (("Livelihoods", "Protection"),
     "Without work permits, many {group} in {place} take informal jobs where they face exploitation."),
    (("Logistics", "Food Security"),
     "Road closures around {place} have held up food distributions for more than {k} days."),
]

# Relevant to the analyst, yet tagged with no sector: context, displacement, overall figures.
CONTEXT_SENTENCES = [
    "The security situation in {place} remained volatile throughout {month}.",
    "About {n} people were newly displaced in {place} during the reporting period.",
    "Humanitarian partners estimate that {n} people in {place} need assistance this year.",
    "Clashes between armed groups near {place} forced several families to flee to nearby villages.",
    "An estimated {n} {group} returned to {place} in {month}, although many found their homes damaged.",
]

# Not relevant: report furniture, methodology, meetings, disclaimers.
NOISE_SENTENCES = [
    "This update was prepared by {org} with contributions from partners in the field.",
    "For further information, please contact {org}.",
    "The boundaries and names shown on the maps do not imply official endorsement or acceptance.",
    "Figures in this update are provisional and may be revised as more information becomes available.",
    "Photo: a distribution site in {place}, {month} 2020.",
    "The next edition of this bulletin will be published in {month}.",
    "Data were collected between {day} and {day2} {month} through telephone interviews.",
    "Sources: partner reports, government figures and media monitoring.",
    "We thank the enumerators and key informants who took part in this exercise.",
    "The methodology is described in the annex.",
    "All figures are rounded to the nearest hundred.",
    "Situation Report No. {k} | {month} 2020",
    "Map produced on {day} {month} 2020.",
    "The Health Sector coordination meeting took place in {place} on {day} {month}.",
    "A training on data collection tools was held for {k} partner staff in {month}.",
    "This document covers the period from {day} {month} to the end of the month.",
]

# Share of each kind of sentence: about half relevant, some relevant without sector, some with several.
KINDS = [("noise", 0.48), ("context", 0.10), ("single", 0.32), ("multi", 0.10)]

SPLITS = [("train", 70), ("val", 30), ("test", 30)]


def _number(rng):
    return "{:,}".format(rng.choice([rng.randint(120, 990), rng.randint(1000, 48000)]))


def _fill(template, rng, places, groups):
    day = rng.randint(1, 20)
    return template.format(place=rng.choice(places), group=rng.choice(groups), n=_number(rng),
                           k=rng.randint(2, 14), k2=rng.randint(15, 60), pct=rng.randint(12, 78),
                           month=rng.choice(MONTHS), day=day, day2=day + rng.randint(3, 9),
                           crop=rng.choice(CROPS), org=rng.choice(ORGS))


def _pick(rng, options, used):
    """A template not yet used in this document (real reports do not repeat a sentence), if one is left."""
    fresh = [option for option in options if option not in used] or options
    choice = rng.choice(fresh)
    used.add(choice)
    return choice


def _sentence(rng, places, groups, used):
    """(text, is_relevant, sector ids) of one invented sentence."""
    roll, kind = rng.random(), KINDS[-1][0]
    for name, share in KINDS:
        if roll < share:
            kind = name
            break
        roll -= share
    if kind == "noise":
        return _fill(_pick(rng, NOISE_SENTENCES, used), rng, places, groups), 0, []
    if kind == "context":
        return _fill(_pick(rng, CONTEXT_SENTENCES, used), rng, places, groups), 1, []
    if kind == "single":
        sector = rng.choice(SECTORS)
        return _fill(_pick(rng, SECTOR_SENTENCES[sector], used), rng, places, groups), 1, [SECTOR_ID[sector]]
    sectors, template = _pick(rng, MULTI_SECTOR_SENTENCES, used)
    # Annotators list a sentence's sectors in no particular order.
    ids = [SECTOR_ID[s] for s in sectors]
    rng.shuffle(ids)
    return _fill(template, rng, places, groups), 1, ids


def _documents(rng, first_doc_id, count):
    documents = []
    for offset in range(count):
        project, country, places, groups = PROJECTS[(first_doc_id + offset) % len(PROJECTS)]
        used = set()
        sentences = []
        for _ in range(rng.randint(4, 11)):
            text, relevant, sectors = _sentence(rng, places, groups, used)
            sentences.append((text[0].upper() + text[1:], relevant, sectors))
        documents.append((first_doc_id + offset, project, country, sentences))
    rng.shuffle(documents)
    return documents


def _csv_text(header, rows):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def _write(path, text):
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)


def _sector_list(ids):
    return "[%s]" % ", ".join(str(i) for i in ids)


def generate(out_dir, seed=2021):
    rng = random.Random(seed)
    mapping = json.dumps(SECTOR_ID, indent=2, ensure_ascii=False) + "\n"
    first_doc_id = 0
    for split, count in SPLITS:
        documents = _documents(rng, first_doc_id, count)
        first_doc_id += count
        sentence_rows, document_rows = [], []
        for doc_id, project, country, sentences in documents:
            for sentence_id, (text, relevant, sectors) in enumerate(sentences):
                sentence_rows.append([doc_id, sentence_id, text, relevant, _sector_list(sectors)])
            document_rows.append([project, country, doc_id, " ".join(text for text, _, _ in sentences),
                                  "https://reports.example.org/%s/%s-%04d.pdf" % (country.lower(), split, doc_id)])
        folder = os.path.join(out_dir, split)
        if not os.path.isdir(folder):
            os.makedirs(folder)
        _write(os.path.join(folder, "sentences_%s_en.csv" % split),
               _csv_text(["doc_id", "sentence_id", "sentence_text", "is_relevant", "sector_ids"], sentence_rows))
        _write(os.path.join(folder, "documents_%s_en.csv" % split),
               _csv_text(["project_name", "country_code", "doc_id", "doc_text", "doc_url"], document_rows))
        _write(os.path.join(folder, "immap_sector_name_to_id.json"), mapping)


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(root, "reference_data", "cheers"),
                        help="output folder (default: reference_data/cheers)")
    parser.add_argument("--seed", type=int, default=2021)
    args = parser.parse_args()
    generate(args.out, args.seed)


if __name__ == "__main__":
    main()
