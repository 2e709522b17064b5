"""The parse-based reading on chat-style sentences: one case per attribute kind, the chat
normalisation, and every kind of distractor. Real spaCy pipeline (app.nlp)."""

from datetime import UTC, datetime

import pytest

from app.remember.attributes import (
    ENDED,
    Cardinality,
    cardinality,
    item_key,
    same_fact,
    supersedes,
)
from app.remember.facts import Turn
from app.remember.rules import extract_facts_by_rules
from app.remember.rules.normalise import is_sarcastic, looks_lower_case, normalise

NOW = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)  # a Monday


def facts(text: str, role: str = "user") -> list[tuple[str, str | None, str | None]]:
    found = extract_facts_by_rules([Turn(role, text, NOW, "m1")])
    return [(f.content, f.slot, f.value) for f in found]


@pytest.mark.parametrize(
    ("text", "content", "slot", "value"),
    [
        ("Hi there! I'm Pia, data analyst", "User's name is Pia.", "name", "Pia"),
        ("heyy im tom, i live in cork", "User's name is Tom.", "name", "Tom"),
        ("I'm Marek, 35, originally from Poland", "User is 35 years old.", "age", "35"),
        (
            "my birthday is on the 14th of March btw",
            "User's birthday is 14 March.",
            "birthday",
            "03-14",
        ),
        ("I'm based in Edinburgh", "User is based in Edinburgh.", "residence", "Edinburgh"),
        (
            "so we relocated to York last month",
            "User moved to York in February 2026.",
            "residence",
            "York",
        ),
        (
            "I'm a primary school teacher",
            "User is a primary school teacher.",
            "job_title",
            "primary school teacher",
        ),
        ("I've joined Figma!", "User joined Figma.", "employer", "Figma"),
        (
            "I'm doing a master's in marine biology at the University of Plymouth",
            "User studies at University of Plymouth.",
            "school",
            "University of Plymouth",
        ),
        ("my husband Karim is a chef", "User's husband is Karim.", "spouse", "Karim"),
        (
            "I've got twin boys, Ollie and Finn",
            "User has twin boys named Ollie and Finn.",
            "family:children",
            "twin boy",
        ),
        (
            "I have a beagle called Biscuit",
            "User has a beagle named Biscuit.",
            "pet:biscuit",
            "active",
        ),
        ("I have two sisters", "User has two sisters.", "family:sister", "2"),
        (
            "I have a sister named Anna",
            "User has a sister named Anna.",
            "family:sister",
            "Anna",
        ),
        ("I own a 3D printer", "User owns a 3D printer.", "possession:3d printer", "active"),
        (
            "I drive a 2012 Honda Civic",
            "User drives a 2012 Honda Civic.",
            "vehicle",
            "2012 honda civic",
        ),
        ("I have asthma", "User has asthma.", "condition:asthma", "active"),
        ("I'm vegetarian", "User is vegetarian.", "diet", "vegetarian"),
        ("I can't stand coriander", "User can't stand coriander.", "likes:coriander", "dislikes"),
        ("fav band atm is Wet Leg", "User's favorite band is Wet Leg.", "favorite:band", "Wet Leg"),
        (
            "I swim every morning before work",
            "User swims every morning before work.",
            "activity:swim",
            "active",
        ),
        ("I speak Polish", "User speaks Polish.", "language:polish", "active"),
        ("I play the guitar", "User plays the guitar.", "skill:guitar", "active"),
        (
            "I'm building a habit tracker app in Flutter",
            "User is building a habit tracker app in Flutter.",
            "project:habit tracker app",
            "active",
        ),
        (
            "we host everything on Heroku",
            "User's team host everything on Heroku.",
            "tool:hosting",
            "heroku",
        ),
        (
            "goal for next year: run the London marathon",
            "User's goal for next year is to run the London marathon.",
            "goal:run london marathon",
            "active",
        ),
        (
            "we got married on Saturday",
            "User got married on 28 February 2026.",
            "relationship_status",
            "married",
        ),
    ],
)
def test_each_attribute_kind(text: str, content: str, slot: str, value: str) -> None:
    assert (content, slot, value) in facts(text)


@pytest.mark.parametrize(
    ("text", "content", "slot"),
    [
        ("I don't smoke any more!", "User no longer smokes.", "activity:smoke"),
        (
            "gave up football after my knee op",
            "User gave up football after User's knee op.",
            "activity:football",
        ),
        ("I'm not vegan anymore", "User is no longer vegan.", "diet"),
        ("Biscuit passed away on Sunday.", "Biscuit passed away on 1 March 2026.", "*:biscuit"),
        ("finally sold the Civic!!", "User sold the Civic.", "*:civic"),
        (
            "sophie and i broke up last week",
            "User and Sophie broke up in the week of 23 February 2026.",
            "partner",
        ),
    ],
)
def test_each_explicit_ending(text: str, content: str, slot: str) -> None:
    assert facts(text) == [(content, slot, ENDED)]


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        ("question", "should I learn Rust or Go next?"),
        ("question", "do you think a Tesla is worth it?"),
        ("hypothetical", "If I ever retire I'd move to Spain"),
        ("hypothetical", "if I got a dog it would have to be a greyhound"),
        ("wish", "I wish I could speak Japanese"),
        ("wish", "one day I'd love to live on a boat"),
        ("daydream", "sometimes I imagine quitting and opening a bakery in Cornwall"),
        ("reported speech", "my doctor said I might be pre-diabetic"),
        ("reported speech", "my boss told me I'm getting promoted to team lead"),
        ("sarcasm", "oh yeah I just LOVE being stuck on the M25 for two hours /s"),
        ("sarcasm", "yeah sure I'm a millionaire, that's why I'm asking about pasta"),
        ("other person", "my sister just moved to Toronto for a job at Shopify"),
        ("other person", "my neighbour has three huskies"),
        ("past", "I used to live in Prague"),
    ],
)
def test_distractors_state_nothing_about_the_user(kind: str, text: str) -> None:
    assert facts(text) == []


def test_the_assistants_suggestions_are_not_the_users_facts() -> None:
    assert facts("You could try meditation before bed.", role="assistant") == []
    assert facts("Have you considered bouldering?", role="assistant") == []


def test_another_persons_name_is_kept_as_who_they_are_and_what_they_do_as_theirs() -> None:
    assert facts("my brother Luis works in Seville as an architect") == [
        ("User's brother is Luis.", "family:brother luis", "active"),
        ("User's brother Luis works in Seville as an architect.", None, None),
    ]


@pytest.mark.parametrize(
    ("text", "normalised"),
    [
        ("heyy im tom, i live in cork", "Hey I'm tom, I live in cork"),
        (
            "WE ADOPTED A KITTEN 😻😻 a tabby called Pickle!!!",
            "We adopted a kitten, a tabby called Pickle!",
        ),
        ("I QUIT THE CAFE. starting monday", "I quit the cafe. Starting monday"),
        ("our stack runs on AWS ECS", "Our stack runs on AWS ECS"),
        ("I'm 41 — no wait, 42", "I'm 42"),
        ("me and Priya got engaged!!! 💍", "Priya and I got engaged!"),
        ("gonna be sooo late", "Going to be soo late"),
    ],
)
def test_chat_text_is_normalised(text: str, normalised: str) -> None:
    assert normalise(text) == normalised


def test_lower_case_and_sarcasm_are_recognised() -> None:
    assert looks_lower_case("heyy im tom") and not looks_lower_case("I live in a village")
    assert is_sarcastic("great, love that for me") and not is_sarcastic("I LOVE IT SO MUCH")


def test_cardinality_and_supersession_rules() -> None:
    assert cardinality("residence") is Cardinality.SINGLE
    assert cardinality("pet:rex") is Cardinality.MULTI
    assert cardinality("unknown") is None
    assert supersedes("residence", "Bristol", "residence", "Manchester")
    assert not supersedes("residence", "bristol", "residence", "Bristol")  # the same value
    assert not supersedes("pet:pickle", "active", "pet:biscuit", "active")  # another item
    assert supersedes("pet:biscuit", ENDED, "pet:biscuit", "active")
    assert supersedes("*:biscuit", ENDED, "pet:biscuit", "active")
    assert supersedes("*:civic", ENDED, "vehicle", "2012 honda civic")
    assert not supersedes("*:civic", ENDED, "likes:civic", "likes")
    assert same_fact(
        "likes:" + item_key("Studio Ghibli films"),
        "likes",
        "likes:" + item_key("studio ghibli movies"),
        "likes",
    )
