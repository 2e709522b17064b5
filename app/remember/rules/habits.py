"""Which pastime a habit is about, so that a later ending ("I don't drink any more", "I don't run
any more") ends it: "I usually have a glass of wine every evening" is drinking, "I go for a run
every morning" running, "I smoke about ten a day" smoking.

The key is the verb's lemma, as the parse-based reader writes it (`activity:run`, `activity:drink`,
`activity:smoke`): an ending matches a habit by its key (app/remember/attributes.py).
"""

import re

from app import lexicon as lex
from app.lexicon import word_set
from app.remember.attributes import slot_for

DRINKS = word_set(
    "wine beer beers pint pints alcohol cocktail cocktails whisky whiskey gin vodka cider "
    "prosecco booze drink drinks lager ale rum tequila champagne"
)
SOFT_DRINKS = word_set("coffee tea water milk juice smoothie smoothies soda coke kombucha")
SMOKES = word_set("cigarette cigarettes cig cigs fag fags cigar cigars joint joints")
# "go for a run", "go for a swim", "have a jog": the activity is the noun after the light verb.
LIGHT_ACTIVITY = re.compile(r"^(?:go|went|have|do)\s+for\s+an?\s+(?P<noun>[a-z]+)|^have\s+an?\s+")


def _gerunds(verb: str) -> tuple[str, ...]:
    """The -ing forms a verb may take: fishing, swimming (doubled), hiking (its e dropped)."""
    forms = (f"{verb}ing", f"{verb}{verb[-1]}ing")
    return (*forms, f"{verb[:-1]}ing") if verb.endswith("e") else forms


GERUNDS = {noun: verb for verb in lex.ACTIVITY_VERBS for noun in _gerunds(verb)}


def habit_slot(verb: str, rest: str) -> str | None:
    """`activity:<lemma>` for a habit about drinking, smoking or a known pastime; else None."""
    verb = verb.lower()
    words = re.findall(r"[a-z']+", rest.lower())
    if verb == "drink" and SOFT_DRINKS.intersection(words):
        return None  # "I drink coffee every morning" is not drinking
    if verb == "drink" or (verb == "have" and DRINKS.intersection(words)):
        return slot_for("activity", "drink")
    if verb == "smoke" or SMOKES.intersection(words):
        return slot_for("activity", "smoke")
    if verb in lex.ACTIVITY_VERBS:
        return slot_for("activity", verb)
    light = LIGHT_ACTIVITY.match(f"{verb} {' '.join(words)}")
    if light and light["noun"] in lex.ACTIVITY_VERBS:
        return slot_for("activity", light["noun"])
    if verb == "go" and words and words[0] in GERUNDS:
        return slot_for("activity", GERUNDS[words[0]])
    return None
