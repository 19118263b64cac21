"""Generate the eHealth-KD 2019 sample reference data: invented Spanish health sentences with key phrases and
relations, in the three-scenario layout of the 2019 test collection.

    python3 bundles/ehealth-kd/sample_data.py [--out OUT_DIR]     (default: reference_data/ehealth-kd)

Writes OUT_DIR/<split>/scenario1-main/, scenario2-taskA/, scenario3-taskB/, each with input_scenarioN.txt,
output_a_scenarioN.txt and output_b_scenarioN.txt, for the splits trial, development and test. Scenario 1 mixes
the annotated sentences with unannotated distractor sentences (never scored), as the real test did. Trial and
development also get gold_is_public.txt, which lets the scoring program show per-sentence examples (their gold
was published during the competition; the test gold was not).

Every sentence is written here from templates; none is taken from the real collections. Template markup:
``<IDS:Label:text>`` marks a key phrase (IDS like ``3`` or ``3,4``: a word shared by two key phrases); an ID
used several times gathers its pieces, which gives discontinuous key phrases such as "cáncer ... de colon".
Relations name the template's IDs. ``{slot}`` fields are filled from the lexicon below.
"""
import argparse
import os
import random
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_OUT = os.path.join(ROOT, "reference_data", "ehealth-kd")
SCENARIOS = ((1, "scenario1-main"), (2, "scenario2-taskA"), (3, "scenario3-taskB"))
PUBLIC_GOLD_MARKER = "gold_is_public.txt"

# split -> (annotated sentences per scenario, unannotated distractors in scenario 1, seed, gold is public)
SPLITS = {
    "trial": (8, 16, 20190211, True),
    "development": (15, 30, 20190401, True),
    "test": (20, 60, 20190430, False),
}

# Lexicon. Every entry is a dict of slot values; a template draws one entry per group it names.
def _disease(name, organ_det, organ, treatment, other_treatment):
    return dict(d=name, o_det=organ_det, o=organ, t=treatment, t2=other_treatment)


DISEASES = [  # feminine names, so that "la" and adjectives agree; each with the organ it affects and two treatments
    _disease("gripe", "las", "vías respiratorias", "reposo", "líquidos"),
    _disease("diabetes", "el", "páncreas", "insulina", "ejercicio"),
    _disease("hipertensión", "los", "vasos sanguíneos", "diuréticos", "dieta baja en sal"),
    _disease("anemia", "la", "sangre", "hierro", "vitamina C"),
    _disease("artritis", "las", "articulaciones", "antiinflamatorios", "fisioterapia"),
    _disease("neumonía", "los", "pulmones", "antibióticos", "oxígeno"),
    _disease("bronquitis", "los", "bronquios", "broncodilatadores", "reposo"),
    _disease("migraña", "el", "sistema nervioso", "analgésicos", "descanso"),
    _disease("osteoporosis", "los", "huesos", "calcio", "vitamina D"),
    _disease("insuficiencia renal", "los", "riñones", "diálisis", "dieta"),
    _disease("enfermedad celíaca", "el", "intestino delgado", "dieta sin gluten", "suplementos"),
    _disease("conjuntivitis", "los", "ojos", "colirios", "compresas frías"),
]
SYMPTOMS = [
    dict(s="fiebre", s_det="la"), dict(s="tos seca", s_det="la"), dict(s="cansancio", s_det="el"),
    dict(s="mareos", s_det="los"), dict(s="náuseas", s_det="las"), dict(s="dolor de cabeza", s_det="el"),
    dict(s="pérdida de peso", s_det="la"), dict(s="sed excesiva", s_det="la"), dict(s="hinchazón", s_det="la"),
    dict(s="dificultad para respirar", s_det="la"),
]
PEOPLE = [
    dict(p="niños", p_det="los"), dict(p="adultos mayores", p_det="los"), dict(p="mujeres embarazadas", p_det="las"),
    dict(p="pacientes", p_det="los"), dict(p="fumadores", p_det="los"), dict(p="deportistas", p_det="los"),
    dict(p="bebés", p_det="los"), dict(p="trabajadores", p_det="los"),
]
SYNONYMS = [  # two names of one condition (feminine) and a symptom of it: same-as relations
    dict(n1="hipertensión", n2="presión arterial alta", s2="mareos"),
    dict(n1="varicela", n2="viruela loca", s2="fiebre"),
    dict(n1="rubéola", n2="sarampión alemán", s2="erupciones en la piel"),
    dict(n1="cefalea", n2="cefalalgia", s2="náuseas"),
    dict(n1="gastroenteritis", n2="gripe estomacal", s2="diarrea"),
    dict(n1="diabetes juvenil", n2="diabetes tipo 1", s2="sed excesiva"),
]
ACRONYMS = [  # a long name, its acronym (same-as relations) and what it damages
    dict(long="virus de inmunodeficiencia humana", acr="VIH", long_det="el", hit="sistema inmunitario", hit_det="el"),
    dict(long="enfermedad pulmonar obstructiva crónica", acr="EPOC", long_det="la", hit="pulmones", hit_det="los"),
    dict(long="síndrome de ovario poliquístico", acr="SOP", long_det="el", hit="ovarios", hit_det="los"),
    dict(long="accidente cerebrovascular", acr="ACV", long_det="el", hit="cerebro", hit_det="el"),
    dict(long="insuficiencia cardíaca congestiva", acr="ICC", long_det="la", hit="corazón", hit_det="el"),
    dict(long="virus del papiloma humano", acr="VPH", long_det="el", hit="cuello uterino", hit_det="el"),
]
CANCERS = [  # two organs after one shared "cáncer": a discontinuous key phrase
    dict(c1="mama", c2="útero"), dict(c1="pulmón", c2="garganta"), dict(c1="colon", c2="estómago"),
    dict(c1="piel", c2="boca"), dict(c1="próstata", c2="vejiga"),
]
GLANDS = [
    dict(g="glándulas sudoríparas", of="de la", w="piel", x="sudor"),
    dict(g="células beta", of="del", w="páncreas", x="insulina"),
    dict(g="glándulas lagrimales", of="de los", w="ojos", x="lágrimas"),
    dict(g="glándulas salivales", of="de la", w="boca", x="saliva"),
    dict(g="células", of="de la", w="médula ósea", x="glóbulos rojos"),
]
BODY_PARTS = [dict(b="cabeza"), dict(b="espalda"), dict(b="estómago"), dict(b="garganta"), dict(b="oído")]
SEASONS = [dict(when="otoño"), dict(when="invierno"), dict(when="año"), dict(when="primavera")]

# (template, relations as "label source target" with template IDs, lexicon groups)
TEMPLATES = [
    ("la <1:Concept:{d}> es una <2:Concept:enfermedad> que <3:Action:afecta> {o_det} <4:Concept:{o}>.",
     "is-a 1 2; subject 3 2; target 3 4", (DISEASES,)),
    ("{s_det} <1:Concept:{s}> puede ser un <2:Concept:síntoma> de la <3:Concept:{d}>.",
     "is-a 1 2; causes 3 1", (SYMPTOMS, DISEASES)),
    ("{p_det} <1:Concept:{p}> con <2:Concept:{d}> deben <3:Action:consultar> a un <4:Concept:médico> si "
     "<5:Action:presentan> <6:Concept:{s}>.",
     "subject 3 1; target 3 4; in-context 1 2; subject 5 1; target 5 6; in-context 3 5",
     (PEOPLE, DISEASES, SYMPTOMS)),
    ("el <1:Action:tratamiento> de la <2:Concept:{d}> <3:Action:incluye> <4:Concept:{t}> y <5:Concept:{t2}>.",
     "target 1 2; subject 3 1; target 3 4; target 3 5", (DISEASES,)),
    ("{long_det} <1:Concept:{long}> (<2:Concept:{acr}>) <3:Action:daña> {hit_det} <4:Concept:{hit}>.",
     "same-as 2 1; subject 3 1; target 3 4", (ACRONYMS,)),
    ("la <1:Concept:{n1}>, también conocida como <2:Concept:{n2}>, puede <3:Action:provocar> <4:Concept:{s2}>.",
     "same-as 1 2; subject 3 1; target 3 4", (SYNONYMS,)),
    ("<1:Action:fumar> <2:Action:aumenta> el <3:Predicate:riesgo> de <4,5:Concept:cáncer> <4:Concept:de {c1}> y "
     "<5:Concept:de {c2}>.",
     "subject 2 1; target 2 3; arg 3 4; arg 3 5", (CANCERS,)),
    ("un <1:Concept:dolor> <2:Concept:intenso> <1:Concept:de {b}> <3:Action:requiere> una <4:Action:evaluación> "
     "<5:Concept:médica>.",
     "has-property 1 2; subject 3 1; target 3 4; has-property 4 5", (BODY_PARTS,)),
    ("cuando <1:Action:aparezcan> <2:Reference:estas> <3:Concept:molestias>, <4:Action:acuda> a un "
     "<5:Concept:centro de salud>.",
     "is-a 2 3; subject 1 2; target 4 5; in-context 4 1", ()),
    ("la <1:Predicate:mayoría> de {p_det} <2:Concept:{p}> con <3:Concept:{d}> <4:Action:mejora> con "
     "<5:Concept:{t}>.",
     "domain 1 2; in-context 2 3; subject 4 1; causes 5 4", (PEOPLE, DISEASES)),
    ("{p_det} <1:Concept:{p}> deben <2:Action:vacunarse> contra la <3:Concept:gripe> cada <4:Concept:{when}>.",
     "subject 2 1; target 2 3; in-time 2 4", (PEOPLE, SEASONS)),
    ("en los <1:Concept:hospitales>, el <2:Action:lavado> de <3:Concept:manos> <4:Action:previene> "
     "<5:Concept:infecciones>.",
     "target 2 3; subject 4 2; target 4 5; in-place 4 1", ()),
    ("las <1:Concept:{g}> {of} <2:Concept:{w}> <3:Action:producen> <4:Concept:{x}>.",
     "part-of 1 2; subject 3 1; target 3 4", (GLANDS,)),
    ("si <1:Action:padece> <2:Concept:{d}>, <3:Action:necesitará> <4:Concept:{t}>.",
     "target 1 2; entails 1 3; target 3 4", (DISEASES,)),
    ("la <1:Concept:{d}> <2:Concept:crónica> <3:Action:exige> <4:Concept:controles> <5:Concept:periódicos> "
     "durante los <6:Predicate:primeros> <7:Concept:meses>.",
     "has-property 1 2; subject 3 1; target 3 4; has-property 4 5; in-time 3 6; arg 6 7", (DISEASES,)),
    ("{p_det} <1:Concept:{p}> a menudo <2:Action:ignoran> que <3:Reference:esta> <4:Concept:enfermedad> "
     "<5:Action:causa> <6:Concept:{s}>.",
     "subject 2 1; target 2 5; is-a 3 4; subject 5 3; target 5 6", (PEOPLE, SYMPTOMS)),
]
_MARK = re.compile(r"<([0-9,]+):(\w+):([^<>]*)>")


class Annotated(object):
    """A sentence with its key phrases {template id: (label, [spans])} and relations [(label, id, id)]."""

    def __init__(self, text, keyphrases, relations):
        self.text = text
        self.keyphrases = keyphrases
        self.relations = relations


def render(template, relations, values):
    """Fill the slots, strip the markup, and collect the spans of every template ID."""
    filled = template.format(**values)
    text = []
    length = 0
    keyphrases = {}
    position = 0
    for mark in _MARK.finditer(filled):
        plain = filled[position:mark.start()]
        text.append(plain)
        length += len(plain)
        words = mark.group(3)
        for kid in mark.group(1).split(","):
            label, spans = keyphrases.setdefault(int(kid), (mark.group(2), []))
            start = length
            for word in words.split(" "):  # one span per word, as the released collections write them
                spans.append((start, start + len(word)))
                start += len(word) + 1
        text.append(words)
        length += len(words)
        position = mark.end()
    text.append(filled[position:])
    sentence = "".join(text)
    sentence = sentence[0].upper() + sentence[1:]
    parsed = [tuple(r.split()) for r in relations.split(";")]
    return Annotated(sentence, keyphrases, [(label, int(a), int(b)) for label, a, b in parsed])


def _featured(entry):
    """Templates with a same-as relation, a discontinuous key phrase or a Reference: every scenario shows each."""
    ids = [kid for mark in _MARK.finditer(entry[0]) for kid in mark.group(1).split(",")]
    return "same-as" in entry[1] or len(ids) != len(set(ids)) or ":Reference:" in entry[0]


FEATURED = [entry for entry in TEMPLATES if _featured(entry)]


def make_sentence(rng, entry=None):
    template, relations, groups = entry or rng.choice(TEMPLATES)
    values = {}
    for group in groups:
        values.update(rng.choice(group))
    return render(template, relations, values)


def write_scenario(folder, number, sentences):
    """Write the three files; sentences are (Annotated, annotate?) in file order."""
    os.makedirs(folder, exist_ok=True)
    lines_in, lines_a, lines_b = [], [], []
    offset = 0
    next_id = 1
    for sentence, annotate in sentences:
        if annotate:
            ids = {}
            for kid in sorted(sentence.keyphrases):
                label, spans = sentence.keyphrases[kid]
                ids[kid] = next_id
                written = ";".join("%d %d" % (offset + s, offset + e) for s, e in spans)
                words = " ".join(sentence.text[s:e] for s, e in spans)
                lines_a.append("%d\t%s\t%s\t%s\n" % (next_id, written, label, words))
                next_id += 1
            for label, source, target in sentence.relations:
                lines_b.append("%s\t%d\t%d\n" % (label, ids[source], ids[target]))
        lines_in.append(sentence.text + "\n")
        offset += len(sentence.text) + 1
    for name, lines in (("input", lines_in), ("output_a", lines_a), ("output_b", lines_b)):
        with open(os.path.join(folder, "%s_scenario%d.txt" % (name, number)), "w", encoding="utf-8",
                  newline="\n") as handle:
            handle.writelines(lines)


def write_split(out_dir, split):
    annotated, distractors, seed, public = SPLITS[split]
    rng = random.Random(seed)
    split_dir = os.path.join(out_dir, split)
    for number, folder in SCENARIOS:
        sentences = [(make_sentence(rng, entry), True) for entry in FEATURED]
        sentences += [(make_sentence(rng), True) for _ in range(annotated - len(FEATURED))]
        if number == 1:
            sentences += [(make_sentence(rng), False) for _ in range(distractors)]
        rng.shuffle(sentences)
        write_scenario(os.path.join(split_dir, folder), number, sentences)
    marker = os.path.join(split_dir, PUBLIC_GOLD_MARKER)
    if public:
        with open(marker, "w", encoding="utf-8", newline="\n") as handle:
            handle.write("The gold annotations of this split are public: the scoring program may show "
                         "per-sentence examples in its detailed results.\n")
    elif os.path.exists(marker):
        os.remove(marker)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Write the eHealth-KD 2019 sample reference data.")
    parser.add_argument("--out", dest="out_dir", default=DEFAULT_OUT,
                        help="output folder (default: reference_data/ehealth-kd)")
    args = parser.parse_args(argv)
    for split in SPLITS:
        write_split(args.out_dir, split)
    return 0


if __name__ == "__main__":
    sys.exit(main())
