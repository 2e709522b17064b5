"""The attributes a remembered fact can fill, and how a new fact changes an old one.

A fact's slot is `<attribute>` or `<attribute>:<key>`:
- a single-valued attribute holds one value at a time, so the slot is the attribute (with a
  qualifier where the attribute is per thing: `favorite:season`, `tool:database`), and a new
  value supersedes the current one (moving, changing jobs or diet, a corrected age);
- a multi-valued attribute holds many items, so the slot names the item (`pet:biscuit`,
  `language:portuguese`, `activity:yoga`): a second pet or another hobby adds a slot, and the
  value is the item's state (`active` or `ended`, or a polarity such as `likes` / `dislikes`).
In both cases two current facts with the same slot and different values cannot both hold: the
newer one supersedes the older (its history is kept: t_invalid and INVALIDATED_BY). Two with
the same slot and the same value say the same thing: the newer reinforces the older.

An ending ("passed away", "quit", "sold", "broke up", "I don't smoke any more") is a fact with
the value `ended`; for a multi-valued attribute it supersedes the current facts whose item shares
a word with it ("sold the Civic" ends "drives a 2012 Honda Civic"), and `*` as the attribute
("Biscuit died") matches the item in any multi-valued attribute.
"""

import re
from dataclasses import dataclass
from enum import StrEnum

from app.lexicon import word_set


class Cardinality(StrEnum):
    SINGLE = "single"
    MULTI = "multi"


@dataclass(frozen=True)
class Attribute:
    name: str
    cardinality: Cardinality
    description: str


SINGLE, MULTI = Cardinality.SINGLE, Cardinality.MULTI
ATTRIBUTES = {
    a.name: a
    for a in (
        Attribute("name", SINGLE, "what the person is called"),
        Attribute("age", SINGLE, "age in years"),
        Attribute("birthday", SINGLE, "day and month of birth"),
        Attribute("birth_date", SINGLE, "full date of birth"),
        Attribute("birthplace", SINGLE, "where they were born"),
        Attribute("origin", SINGLE, "where they are from"),
        Attribute("hometown", SINGLE, "where they grew up"),
        Attribute("nationality", SINGLE, "nationality"),
        Attribute("residence", SINGLE, "the city or country they live in now"),
        Attribute("employer", SINGLE, "the organisation they work for"),
        Attribute("job_title", SINGLE, "their occupation or role"),
        Attribute("school", SINGLE, "the school or university they attend"),
        Attribute("study", SINGLE, "the subject or degree they study"),
        Attribute("major", SINGLE, "their major"),
        Attribute("relationship_status", SINGLE, "single, engaged, married, divorced…"),
        Attribute("spouse", SINGLE, "husband or wife"),
        Attribute("partner", SINGLE, "girlfriend, boyfriend, partner, fiancé(e)"),
        Attribute("diet", SINGLE, "vegetarian, vegan, pescatarian…"),
        Attribute("vehicle", SINGLE, "the car or motorbike they drive"),
        Attribute("favorite", SINGLE, "favorite:<thing>: their favourite of a kind"),
        Attribute("tool", SINGLE, "tool:<area>: the tool used for an area (database, editor…)"),
        Attribute("family", MULTI, "family:<relation>:<name>: relatives, children"),
        Attribute("pet", MULTI, "pet:<name or kind>: pets"),
        Attribute("possession", MULTI, "possession:<thing>: things they own"),
        Attribute("condition", MULTI, "condition:<name>: health conditions"),
        Attribute("allergy", MULTI, "allergy:<thing>: allergies"),
        Attribute("likes", MULTI, "likes:<thing>: likes and dislikes (value: the polarity)"),
        Attribute("activity", MULTI, "activity:<name>: hobbies, sports, habits, routines"),
        Attribute("skill", MULTI, "skill:<name>: skills and instruments"),
        Attribute("language", MULTI, "language:<name>: languages spoken or learnt"),
        Attribute("programming_language", MULTI, "programming_language:<name>: languages used"),
        Attribute("project", MULTI, "project:<name>: things they build or work on"),
        Attribute("goal", MULTI, "goal:<what>: goals and plans"),
        Attribute("event", MULTI, "event:<what>: important events"),
    )
}
ACTIVE, ENDED = "active", "ended"
ANY = "*"
KEY_STOPWORDS = word_set(
    "a an the my our your some his her their of to in on at for and with used new old own "
    "films movies music food books shows series games songs cuisine stuff"
)


def attribute_name(slot: str) -> str:
    return slot.split(":", 1)[0]


def cardinality(slot: str) -> Cardinality | None:
    """The cardinality of a slot's attribute; None for a slot outside the taxonomy."""
    found = ATTRIBUTES.get(attribute_name(slot))
    return found.cardinality if found else None


def is_multi_valued(slot: str) -> bool:
    return attribute_name(slot) == ANY or cardinality(slot) == MULTI


def slot_for(attribute: str, key: str | None = None) -> str:
    """`attribute` or `attribute:<key>`, the key reduced to its comparable words."""
    return f"{attribute}:{item_key(key)}" if key else attribute


def item_key(text: str) -> str:
    """The comparable form of an item: lower case, stems of its content words, one space."""
    words = re.findall(r"[\w.+#-]+", text.lower())
    kept = [_stem(w) for w in words if w not in KEY_STOPWORDS] or [_stem(w) for w in words]
    return " ".join(kept)


def _stem(word: str) -> str:
    """movies → movie, classes → class, puppies → puppy: only what chat paraphrases need."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "shes", "ches")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def item_of(slot: str) -> str:
    return slot.split(":", 1)[1] if ":" in slot else ""


def ends(slot: str, old_slot: str, old_value: str | None) -> bool:
    """Whether an ending fact filling `slot` ends the current fact (old_slot, old_value)."""
    if old_slot == slot:
        return True
    attribute = attribute_name(slot)
    if attribute not in (ANY, attribute_name(old_slot)) or attribute_name(old_slot) == "likes":
        return False
    mine = set(item_of(slot).split())
    theirs = set(item_of(old_slot).split()) | set(item_key(old_value or "").split())
    return bool(mine & theirs) and (attribute == ANY or is_multi_valued(old_slot))


def same_value(value: str | None, other: str | None) -> bool:
    """Values compared by their comparable form ("Prague" = "prague", "the Civic" = "Civic")."""
    return item_key(value or "") == item_key(other or "")


def supersedes(slot: str, value: str | None, old_slot: str | None, old_value: str | None) -> bool:
    """Whether a new fact (slot, value) ends the current fact (old_slot, old_value)."""
    if not old_slot:
        return False
    if value == ENDED:
        return ends(slot, old_slot, old_value)
    return old_slot == slot and not same_value(value, old_value)


def same_fact(
    slot: str | None, value: str | None, old_slot: str | None, old_value: str | None
) -> bool:
    """The same attribute and the same value: a repeat that reinforces the old fact."""
    return bool(old_slot) and old_slot == slot and same_value(value, old_value)
