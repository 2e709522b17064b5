import pytest

from app.llm import LLMCallFailed, LLMUnavailable
from app.remember import attributes
from app.remember.contradiction import (
    CONTRADICTION_SCHEMA,
    contradicts_by_llm,
    contradicts_by_rules,
    first_person_verb,
    parse_claim,
    to_first_person,
)
from tests.remember.fakes import FakeLLM


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("User lives in Prague.", "User moved to Berlin in March 2024.", True),
        ("I live in Prague", "I live in Berlin", True),  # raw first-person sentences
        ("User lives in Prague.", "I moved to Berlin last month.", True),
        ("User works at Google.", "User works at Siemens.", True),
        ("User is 34 years old.", "User is 35 years old.", True),
        ("User's name is Tom.", "User's name is Thomas.", True),
        ("User's favorite food is pizza.", "User's favorite food is sushi.", True),
        ("User is vegetarian.", "User is vegan.", True),
        ("User is married.", "User got divorced in 2023.", True),
        ("User loves hiking.", "User hates hiking.", True),  # reversed preference
        ("User is a big fan of jazz.", "User can't stand jazz.", True),
        ("Assistant's name is Ava.", "Assistant's name is Bob.", True),
        ("User loves hiking.", "User really loves hiking.", False),  # the same fact
        ("User loves hiking.", "User likes hiking.", False),
        ("User loves hiking.", "User loves swimming.", False),  # different things
        ("User hates hiking.", "User hates swimming.", False),
        ("User lives in Prague.", "User lives in Prague.", False),
        ("User lives in Prague, Czech Republic.", "The user lives in Prague.", False),
        ("User's name is Tom.", "Assistant's name is Ava.", False),  # different subjects
        ("User has a dog named Rex.", "User has a dog named Max.", False),  # not single-valued
        ("User is allergic to peanuts.", "User is allergic to shellfish.", False),
        ("User lives in Prague.", "User works at Google.", False),  # different slots
        ("User went to the zoo on 14 March 2024.", "User lives in Prague.", False),  # no slot
        ("The weather is nice.", "User lives in Prague.", False),  # unreadable
        ("", "", False),
    ],
)
def test_contradicts_by_rules(old: str, new: str, expected: bool) -> None:
    assert contradicts_by_rules(old, new) is expected


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("User lives in Prague.", ("user", "I live in Prague.")),
        ("User's favorite food is pizza.", ("user", "my favorite food is pizza.")),
        ("User is vegetarian.", ("user", "I am vegetarian.")),
        ("User has a dog named Rex.", ("user", "I have a dog named Rex.")),
        ("User usually goes running.", ("user", "I usually go running.")),
        ("User watches films with User's wife.", ("user", "I watch films with my wife.")),
        ("The user moved to Berlin.", ("user", "I moved to Berlin.")),
        ("Assistant's name is Ava.", ("assistant", "my name is Ava.")),
        ("I live in Prague", ("user", "I live in Prague")),
    ],
)
def test_to_first_person(content: str, expected: tuple[str, str]) -> None:
    assert to_first_person(content) == expected


@pytest.mark.parametrize(
    ("verb", "base"),
    [
        ("lives", "live"),
        ("watches", "watch"),
        ("tries", "try"),
        ("uses", "use"),
        ("misses", "miss"),
        ("is", "am"),
        ("has", "have"),
        ("goes", "go"),
        ("moved", "moved"),
    ],
)
def test_first_person_verb(verb: str, base: str) -> None:
    assert first_person_verb(verb) == base


def test_the_taxonomy_says_which_slots_hold_one_value() -> None:
    single = ["residence", "employer", "favorite:food", "tool:database"]
    assert all(attributes.cardinality(slot) == attributes.SINGLE for slot in single)
    multi = ["pet:dog", "allergy:peanuts", "family:son", "likes:tea"]
    assert all(attributes.cardinality(slot) == attributes.MULTI for slot in multi)
    # a likes:<thing> slot holds its polarity: hating what was loved supersedes it
    assert attributes.supersedes("likes:tea", "dislikes", "likes:tea", "likes")


def test_a_claim_is_the_slot_and_its_comparable_value() -> None:
    claim = parse_claim("User moved to Berlin in March 2024.")
    assert (claim.subject, claim.slot, claim.value) == ("user", "residence", "berlin")


# --- By LLM -----------------------------------------------------------------------------------


async def test_contradicts_by_llm_asks_one_small_question() -> None:
    llm = FakeLLM({"contradicts": True, "reason": "a new city"})
    budget = object()

    assert await contradicts_by_llm(llm, "User lives in Prague.", "User lives in Berlin.", budget)

    [call] = llm.calls
    assert call["schema"] == CONTRADICTION_SCHEMA and call["schema_name"] == "contradiction"
    assert call["max_tokens"] <= 100 and call["temperature"] == 0 and call["budget"] is budget
    assert "Prague" in call["user"] and "Berlin" in call["user"]


@pytest.mark.parametrize(
    "answer",
    [
        {"contradicts": False, "reason": "both can be true"},
        {"contradicts": "yes", "reason": "a string is not a verdict"},
        {"reason": "no verdict"},
        {},
    ],
)
async def test_anything_but_true_is_no_contradiction(answer: dict) -> None:
    assert not await contradicts_by_llm(FakeLLM(answer), "a", "b")


async def test_llm_unavailable_reaches_the_caller() -> None:
    with pytest.raises(LLMUnavailable):
        await contradicts_by_llm(FakeLLM(LLMCallFailed("no JSON")), "a", "b")
