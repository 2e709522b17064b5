"""Kinds of chat construction the reading generalises over (not single sentences): each case
below is a construction with its own wording, read by the real spaCy pipeline (app.nlp)."""

from datetime import UTC, datetime

import pytest

from app.remember.attributes import ACTIVE, ENDED, slot_for, supersedes
from app.remember.facts import Turn
from app.remember.rules import extract_facts_by_rules
from app.remember.rules.habits import habit_slot
from app.remember.rules.normalise import normalise

NOW = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)


def facts(text: str) -> list[tuple[str, str | None, str | None]]:
    return [(f.content, f.slot, f.value) for f in extract_facts_by_rules([Turn("user", text, NOW)])]


def slots(text: str) -> dict[str | None, str | None]:
    return {slot: value for _, slot, value in facts(text)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("update: migrated off Heroku to Render", "Migrated off Heroku to Render"),
        ("Quick context: my wife and I have two boys", "My wife and I have two boys"),
        ("ok so about me: I'm Marek, 35", "I'm Marek, 35"),
        ("wait sorry, I'm 30 now", "I'm 30 now"),
        ("haha ok, I live in Hull", "I live in Hull"),
        ("Name's Grace, I teach", "My name is Grace, I teach"),
        ("goal for next year: learn Welsh", "Goal for next year: learn Welsh"),  # a goal's label
    ],
)
def test_labels_interjections_and_name_fragments_are_normalised(text: str, expected: str) -> None:
    assert normalise(text) == expected


@pytest.mark.parametrize(
    ("text", "title", "employer"),
    [
        ("I'm a designer at Canva, been there 2 yrs", "designer", "Canva"),
        ("im a nurse at St Mary's", "nurse", "St Mary's"),
        ("I'm Ola, 31, I'm a data engineer at Monzo", "data engineer", "Monzo"),
    ],
)
def test_a_copula_job_at_an_organisation_gives_the_employer_too(
    text: str, title: str, employer: str
) -> None:
    found = slots(text)
    assert found["job_title"] == title and found["employer"] == employer
    title_fact = next(c for c, slot, _ in facts(text) if slot == "job_title")
    assert employer not in title_fact  # a later employer leaves the title alone


def test_im_now_at_an_organisation_is_an_employer_only_when_the_talk_is_of_a_job() -> None:
    assert slots("got the offer and I'm now at Duolingo!")["employer"] == "Duolingo"
    assert "employer" not in slots("I'm at Tesco, what should I cook tonight")


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        ("I have coeliac disease so no gluten for me", "condition:coeliac"),
        ("I've got type 2 diabetes", "condition:diabete"),
        ("I've got type 2 diabetes.", "condition:diabete"),  # read by the parse: the same key
        ("I was diagnosed with ADHD last year", "condition:adhd"),
        ("I'm also lactose intolerant fwiw", "condition:lactose intolerant"),
        ("I have asthma too", "condition:asthma"),
    ],
)
def test_medical_conditions(text: str, slot: str) -> None:
    assert slot in slots(text)


@pytest.mark.parametrize(
    ("habit", "ending", "slot"),
    [
        ("I usually have a glass of wine every evening", "I don't drink anymore", "activity:drink"),
        ("I go for a run every morning before work", "I don't run any more", "activity:run"),
        ("I smoke about ten a day", "I don't smoke anymore", "activity:smoke"),
        ("I go swimming every Sunday", "I don't swim anymore", "activity:swim"),
    ],
)
def test_a_habit_is_ended_by_a_negation(habit: str, ending: str, slot: str) -> None:
    started, ended = slots(habit), slots(ending)
    assert started[slot] == ACTIVE and ended[slot] == ENDED
    assert supersedes(slot, ENDED, slot, ACTIVE)


@pytest.mark.parametrize(
    ("rest", "lemma"),
    [("swimming every Sunday", "swim"), ("hiking most weekends", "hike"), ("fishing", "fish")],
)
def test_going_with_a_gerund_is_the_pastime_of_its_verb(rest: str, lemma: str) -> None:
    assert habit_slot("go", rest) == slot_for("activity", lemma)


def test_a_habit_with_a_soft_drink_is_not_drinking() -> None:
    assert "activity:drink" not in slots("I usually drink coffee in the morning")


@pytest.mark.parametrize(
    ("text", "slot", "value"),
    [
        ("fav film of all time is Paddington 2", "favorite:film", "Paddington 2"),
        ("goal for this year is to read 30 books", "goal:read 30", ACTIVE),
        ("I've got two teenagers", "family:children", "two teenager"),
        ("I live just outside Glasgow", "residence", "Glasgow"),
        ("I'm Dev, I'm a physiotherapist", "job_title", "physiotherapist"),
        ("I work as a radiologist", "job_title", "radiologist"),
        ("I knit a lot, mostly jumpers", "activity:knit", ACTIVE),
        ("can also play the banjo", "skill:banjo", ACTIVE),
        ("I rent a flat in Brighton with two housemates", "residence", "Brighton"),
        ("we rent a tiny house in Leith", "residence", "Leith"),
        ("I'm doing a masters in marine biology at Exeter", "study", "marine biology"),
        ("We got a puppy! A spaniel called Rosie", "pet:rosie", ACTIVE),
        ("I manage a bakery in Clifton", "job_title", "bakery manager"),
        ("I'm Siobhan, 44, from Cork originally", "name", "Siobhan"),
        ("it's my 40th on the 2nd of August, trying not to think about it", "birthday", "08-02"),
        ("I'm fluent in Mandarin, grew up in Hong Kong", "hometown", "Hong Kong"),
    ],
)
def test_other_constructions(text: str, slot: str, value: str) -> None:
    assert slots(text).get(slot) == value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("flying to Tokyo on Friday", "I'm flying to Tokyo on Friday"),
        ("Morning! heading to Paris on Friday", "Morning! I'm heading to Paris on Friday"),
        ("Swimming in the sea is the best", "Swimming in the sea is the best"),
        ("Nothing to report", "Nothing to report"),
    ],
)
def test_a_plan_told_as_a_gerund_fragment_gets_its_speaker(text: str, expected: str) -> None:
    assert normalise(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "play some jazz",  # a request, not a skill
        "My sister's dog called Max.",  # someone else's pet
        "A dog called Max lives next door",
        "I rented a flat in Paris in 2019",  # a past home is not the current one
        "I think I live in Leeds now",  # hedged by the speaker
        "my kids grew up in Leeds",
    ],
)
def test_constructions_that_state_no_current_fact_of_the_user(text: str) -> None:
    found = slots(text)
    kinds = ("skill", "pet", "residence", "hometown")
    assert not {s for s in found if s and s.split(":")[0] in kinds}


@pytest.mark.parametrize(
    ("text", "content"),
    [
        (
            "my brother Luis works in Seville as an architect",
            "User's brother Luis works in Seville",
        ),
        ("my mate Ollie just got a job at Google, so jealous", "User's mate Ollie just got a job"),
        ("my friend Anna lives in Vienna", "User's friend Anna lives in Vienna"),
    ],
)
def test_a_fact_about_another_person_is_stored_about_them(text: str, content: str) -> None:
    found = facts(text)
    about = [(c, slot) for c, slot, _ in found if c.startswith(content)]
    assert about and all(slot is None for _, slot in about)  # no attribute of the user's
    assert not any(
        s and s.split(":")[0] in ("residence", "employer", "job_title") for s in slots(text)
    )
    assert "jealous" not in " ".join(c for c, _ in about)


def test_an_unnamed_other_person_is_not_kept() -> None:
    assert facts("my sister just moved to Toronto for a job at Shopify") == []


@pytest.mark.parametrize(
    "text",
    ["my husband Karim and I have three daughters", "Morning! my wife Laura and I have twin boys"],
)
def test_the_users_own_fact_with_a_partner_is_the_users(text: str) -> None:
    found = facts(text)
    assert not any(" and I " in c for c, _, _ in found)  # not a memory about the partner
    assert any(slot == "family:children" for _, slot, _ in found)


def test_an_emoji_before_a_gerund_plan_breaks_the_sentence() -> None:
    found = slots("GOT THE JOB 🎉🎉 starting at the BBC as a sound engineer in March!!")
    assert found.get("employer") == "BBC" and found.get("job_title") == "sound engineer"
