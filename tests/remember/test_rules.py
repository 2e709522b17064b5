"""The rule extractor on the scripted conversation, on single sentences, and on dates.

Uses the real spaCy pipeline (app.nlp), loaded once per process.
"""

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from app.models import MemoryType
from app.remember.facts import Turn
from app.remember.rules import extract_facts_by_rules
from app.remember.rules.dates import find_date
from app.remember.rules.values import third_person, third_person_verb
from tests.remember.script import SESSIONS, Session

NOW = datetime(2024, 3, 15, 10, 0, tzinfo=UTC)  # a Friday


def contents(text: str, role: str = "user", now: datetime = NOW) -> list[str]:
    return [f.content for f in extract_facts_by_rules([Turn(role, text, now, "m1")])]


# --- The scripted conversation ----------------------------------------------------------------


@pytest.mark.parametrize("session", SESSIONS, ids=lambda s: s.session_id)
def test_each_session_yields_exactly_its_expected_facts(session: Session) -> None:
    facts = extract_facts_by_rules(session.turns)

    unmatched = [e for e in session.expected if sum(e.matches(f) for f in facts) != 1]
    assert unmatched == []
    assert len(facts) == len(session.expected)


def test_facts_carry_the_id_of_the_message_that_states_them() -> None:
    facts = extract_facts_by_rules(SESSIONS[0].turns)

    by_content = {f.content: f.message_id for f in facts}
    assert by_content["Assistant's name is Ava."] == "s1-01"
    assert by_content["User lives in Prague."] == "s1-02"
    assert by_content["User loves hiking."] == "s1-04"


def test_the_preference_stated_twice_reads_the_same_in_both_sessions() -> None:
    first, second = (extract_facts_by_rules(s.turns) for s in SESSIONS[:2])

    hiking = [f for f in first + second if f.slot == "likes:hiking"]
    assert [f.content for f in hiking] == ["User loves hiking.", "User loves hiking."]


def test_the_residence_changes_between_sessions() -> None:
    facts = [f for s in SESSIONS for f in extract_facts_by_rules(s.turns)]

    residences = [(f.value, f.type) for f in facts if f.slot == "residence"]
    assert residences == [("Prague", MemoryType.FACT), ("Berlin", MemoryType.EVENT)]


# --- Single sentences -------------------------------------------------------------------------

POSITIVE = [
    ("I live in Prague.", "User lives in Prague."),
    ("Oh, I really love hiking!", "User loves hiking."),
    ("I enjoy baking bread on Sundays.", "User enjoys baking bread on Sundays."),
    ("I hate mushrooms.", "User hates mushrooms."),
    ("Honestly, I prefer tea.", "User prefers tea."),
    ("I'm a huge fan of jazz.", "User is a huge fan of jazz."),
    ("My favorite color is green.", "User's favorite color is green."),
    ("Pizza is my favorite food.", "User's favorite food is pizza."),
    ("My name is Tom.", "User's name is Tom."),
    ("I'm 34 years old.", "User is 34 years old."),
    ("I work at Google.", "User works at Google."),
    ("I'm a software engineer.", "User is a software engineer."),
    ("I'm originally from Italy.", "User is from Italy."),
    ("I'm allergic to peanuts.", "User is allergic to peanuts."),
    ("I am vegetarian.", "User is vegetarian."),
    ("I'm married.", "User is married."),
    ("I have a dog named Rex.", "User has a dog named Rex."),
    ("My wife's name is Anna.", "User's wife is named Anna."),
    ("I usually drink coffee in the morning.", "User usually drinks coffee in the morning."),
    ("Every morning I go running.", "User goes running every morning."),
    ("I moved to Berlin last month.", "User moved to Berlin in February 2024."),
    ("I went to the zoo yesterday.", "User went to the zoo on 14 March 2024."),
    ("Last Friday, I ran a 10k race.", "User ran a 10k race on 8 March 2024."),
    ("I'm going to Rome next week.", "User is going to Rome in the week of 18 March 2024."),
    ("I'm going to visit Rome tomorrow.", "User plans to visit Rome on 16 March 2024."),
    ("I'll fly to Tokyo on March 20.", "User will fly to Tokyo on 20 March 2024."),
    ("I have a job interview tomorrow.", "User has a job interview on 16 March 2024."),
    ("I plan to learn Spanish.", "User plans to learn Spanish."),
    ("My mom and I baked a cake last night!", "User and User's mom baked a cake on 14 March 2024."),
    (
        "I just adopted this cute pup last week.",
        "User adopted a cute pup in the week of 4 March 2024.",
    ),
    ("I have a cat named Tom.", "User has a cat named Tom."),
    ("😀 I love hiking 😀", "User loves hiking."),
    # Read by one reading alone, so both stay (docs/remember.md): the templates read a move
    # "back" and an employer that is no name, the parse a condition someone "has had".
    ("I moved back to Cork.", "User moved to Cork."),
    ("I work at a bakery.", "User works at a bakery."),
    ("I've had asthma since I was a kid.", "User has asthma."),
]

NEGATIVE = [
    "Do you like hiking?",  # a question
    "Do you think I should live in Prague?",
    "If I lived in Paris, I would love it.",  # hypothetical
    "I would love to visit Japan.",
    "I'd love to visit Japan.",
    "Maybe I'll move to Lisbon next year.",  # hedged
    "I think I'm allergic to cats.",
    "My friend likes hiking.",  # a third party
    "My brother works at Google.",
    "She said I love hiking.",  # reported speech
    '"I love hiking," he said.',  # a quote
    "I don't like hiking.",  # negated
    "I'm not from Italy.",
    "I no longer live in Prague.",
    "I never went to Paris last year.",
    "I used to live in Prague.",  # no longer true
    "I love it!",  # needs context
    "I love you.",
    "I love the colors in this photo!",  # a reaction, not a preference
    "I love all the yellow leaves!",
    "I bought this yesterday.",  # "this" alone needs the photo
    '"I love hiking."',
    "I'm fine, thanks.",  # small talk
    "I'm tired today.",
    "I live in a small village.",  # not a place name we can keep
    "I was bored yesterday.",  # a passing state
    "I'm going to check.",  # a plan without a date
]


@pytest.mark.parametrize(("sentence", "expected"), POSITIVE)
def test_a_first_person_statement_becomes_one_fact(sentence: str, expected: str) -> None:
    assert contents(sentence) == [expected]


@pytest.mark.parametrize("sentence", NEGATIVE)
def test_not_a_fact(sentence: str) -> None:
    assert contents(sentence) == []


def test_two_clauses_give_two_facts() -> None:
    assert contents("I'm 34 and I live in Prague.") == [
        "User is 34 years old.",
        "User lives in Prague.",
    ]


def test_lines_are_clauses() -> None:
    assert contents("I live in Prague\nI love hiking") == [
        "User lives in Prague.",
        "User loves hiking.",
    ]


def test_a_statement_with_a_question_tagged_on_is_still_a_statement() -> None:
    assert contents("I live in Prague, you?") == ["User lives in Prague."]
    assert contents("I have a dentist appointment next Monday, remind me?") == [
        "User has a dentist appointment on 18 March 2024."
    ]


def test_each_named_pet_is_a_fact_of_its_own() -> None:
    # Pets are multi-valued: each can end on its own ("Tom died" leaves Jerry).
    assert contents("I have two cats named Tom and Jerry.") == [
        "User has a cat named Tom.",
        "User has a cat named Jerry.",
    ]


def test_names_that_do_not_add_up_are_left_out() -> None:
    # The list goes on past the comma, so "named Tom" alone would mislead.
    assert contents("I have two cats named Tom, Jerry and Spike.") == ["User has two cats."]


def test_a_date_belongs_to_its_own_clause() -> None:
    text = "I got some great news - I joined a gym last week!"
    assert contents(text) == ["User joined a gym in the week of 4 March 2024."]


def test_only_the_assistants_name_is_taken_from_assistant_turns() -> None:
    ava = ["Assistant's name is Ava."]
    assert contents("Hi, I'm Ava, your assistant.", role="assistant") == ava
    assert contents("My name is Ava.", role="assistant") == ava
    assert contents("I love helping you. I live in the cloud.", role="assistant") == []


def test_system_and_tool_turns_are_ignored() -> None:
    assert contents("My name is Root.", role="system") == []
    assert contents("I live in Prague.", role="tool") == []


def test_a_repeated_statement_gives_one_fact() -> None:
    turns = [Turn("user", "I love hiking.", NOW, "a"), Turn("user", "I LOVE hiking!", NOW, "b")]
    assert [f.message_id for f in extract_facts_by_rules(turns)] == ["a"]


# --- What a fact says about itself ------------------------------------------------------------


def only_fact(text: str):
    [fact] = extract_facts_by_rules([Turn("user", text, NOW, "m1")])
    return fact


def test_a_preference() -> None:
    fact = only_fact("I love hiking.")
    assert (fact.type, fact.categories, fact.slot, fact.value) == (
        MemoryType.PREFERENCE,
        ["preferences"],
        "likes:hiking",
        "likes",
    )
    assert 0.4 <= fact.importance <= 0.8 and 0.7 <= fact.confidence <= 0.8
    assert fact.ttl_days is None and fact.event_time is None and fact.subject == "user"


def test_a_dislike_fills_the_same_slot_with_the_other_polarity() -> None:
    fact = only_fact("I can't stand hiking.")
    assert (fact.content, fact.slot, fact.value) == (
        "User can't stand hiking.",
        "likes:hiking",
        "dislikes",
    )


def test_a_plan_is_a_short_lived_event() -> None:
    fact = only_fact("I'm going to visit Rome next week.")
    assert fact.type == MemoryType.EVENT and fact.categories == ["plans"]
    assert fact.event_time == datetime(2024, 3, 18, tzinfo=UTC)
    assert fact.ttl_days == 9 + 30  # until the end of that week, plus a grace period


def test_a_habit() -> None:
    fact = only_fact("I go to the gym on weekends.")
    assert (fact.type, fact.content) == (MemoryType.HABIT, "User goes to the gym on weekends.")


def test_health_facts() -> None:
    fact = only_fact("I'm allergic to peanuts.")
    assert (fact.categories, fact.slot, fact.importance) == (["health"], "allergy:peanuts", 0.8)


def test_a_birthday_is_not_an_event() -> None:
    fact = only_fact("My birthday is June 5.")
    assert (fact.content, fact.slot, fact.value, fact.event_time) == (
        "User's birthday is 5 June.",
        "birthday",
        "06-05",
        None,
    )


# --- Third person -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("verb", "third"),
    [
        ("live", "lives"),
        ("go", "goes"),
        ("watch", "watches"),
        ("miss", "misses"),
        ("try", "tries"),
        ("play", "plays"),
        ("have", "has"),
        ("am", "is"),
        ("can't stand", "can't stand"),
    ],
)
def test_third_person_verb(verb: str, third: str) -> None:
    assert third_person_verb(verb) == third


def test_third_person_rewrites_first_person_words() -> None:
    assert third_person("with my sister and me", "User") == "with User's sister and User"
    assert third_person("my own studio", "Assistant") == "Assistant's own studio"


def test_the_rest_of_a_clause_is_rewritten_too() -> None:
    assert contents("I went to a concert with my sister yesterday.") == [
        "User went to a concert with User's sister on 14 March 2024."
    ]


# --- Dates ------------------------------------------------------------------------------------

D = date


@pytest.mark.parametrize(
    ("text", "future", "first", "last", "phrase"),
    [
        ("yesterday", False, D(2024, 3, 14), D(2024, 3, 14), "on 14 March 2024"),
        ("today", False, D(2024, 3, 15), D(2024, 3, 15), "on 15 March 2024"),
        ("tomorrow", True, D(2024, 3, 16), D(2024, 3, 16), "on 16 March 2024"),
        ("the day before yesterday", False, D(2024, 3, 13), D(2024, 3, 13), "on 13 March 2024"),
        ("last Friday", False, D(2024, 3, 8), D(2024, 3, 8), "on 8 March 2024"),
        ("last Monday", False, D(2024, 3, 11), D(2024, 3, 11), "on 11 March 2024"),
        ("next Monday", True, D(2024, 3, 18), D(2024, 3, 18), "on 18 March 2024"),
        ("next Friday", True, D(2024, 3, 22), D(2024, 3, 22), "on 22 March 2024"),
        ("this Sunday", True, D(2024, 3, 17), D(2024, 3, 17), "on 17 March 2024"),
        ("on Monday", True, D(2024, 3, 18), D(2024, 3, 18), "on 18 March 2024"),
        ("on Monday", False, D(2024, 3, 11), D(2024, 3, 11), "on 11 March 2024"),
        ("last week", False, D(2024, 3, 4), D(2024, 3, 10), "in the week of 4 March 2024"),
        ("next week", True, D(2024, 3, 18), D(2024, 3, 24), "in the week of 18 March 2024"),
        ("last weekend", False, D(2024, 3, 9), D(2024, 3, 10), "on the weekend of 9 March 2024"),
        ("this weekend", True, D(2024, 3, 16), D(2024, 3, 17), "on the weekend of 16 March 2024"),
        ("last month", False, D(2024, 2, 1), D(2024, 2, 29), "in February 2024"),
        ("next month", True, D(2024, 4, 1), D(2024, 4, 30), "in April 2024"),
        ("last year", False, D(2023, 1, 1), D(2023, 12, 31), "in 2023"),
        ("3 days ago", False, D(2024, 3, 12), D(2024, 3, 12), "on 12 March 2024"),
        ("two weeks ago", False, D(2024, 2, 26), D(2024, 3, 3), "in the week of 26 February 2024"),
        ("about five years ago", False, D(2019, 1, 1), D(2019, 12, 31), "around 2019"),
        ("in 2 days", True, D(2024, 3, 17), D(2024, 3, 17), "on 17 March 2024"),
        ("in three weeks", True, D(2024, 4, 1), D(2024, 4, 7), "in the week of 1 April 2024"),
        ("March 3", False, D(2024, 3, 3), D(2024, 3, 3), "on 3 March 2024"),
        ("March 3", True, D(2025, 3, 3), D(2025, 3, 3), "on 3 March 2025"),
        ("on the 3rd of March 2024", True, D(2024, 3, 3), D(2024, 3, 3), "on 3 March 2024"),
        ("December 25", False, D(2023, 12, 25), D(2023, 12, 25), "on 25 December 2023"),
        ("on 2024-02-29", False, D(2024, 2, 29), D(2024, 2, 29), "on 29 February 2024"),
        ("in May", False, D(2023, 5, 1), D(2023, 5, 31), "in May 2023"),
        ("in May", True, D(2024, 5, 1), D(2024, 5, 31), "in May 2024"),
        ("in 2019", False, D(2019, 1, 1), D(2019, 12, 31), "in 2019"),
        (
            "in the week of 11 March 2024",
            False,
            D(2024, 3, 11),
            D(2024, 3, 17),
            "in the week of 11 March 2024",
        ),
    ],
)
def test_find_date(text: str, future: bool, first: date, last: date, phrase: str) -> None:
    when = find_date(f"I did it {text} really", NOW, future=future)
    assert (when.first, when.last, when.phrase) == (first, last, phrase)


@pytest.mark.parametrize(
    "text", ["I may go", "February 30", "a few days ago", "on weekends", "in the week of 31 June"]
)
def test_no_date(text: str) -> None:
    assert find_date(text, NOW, future=False) is None


def test_days_are_counted_on_the_speakers_calendar() -> None:
    # 01:00 on 16 March in Moscow is still 15 March in UTC; the speaker's yesterday is the 15th.
    moscow = timezone(timedelta(hours=3))
    just_after_midnight = datetime(2024, 3, 16, 1, 0, tzinfo=moscow)
    assert find_date("yesterday", just_after_midnight, future=False).first == D(2024, 3, 15)


def test_next_month_from_the_end_of_a_month() -> None:
    when = find_date("next month", datetime(2024, 1, 31, tzinfo=UTC), future=True)
    assert (when.first, when.last) == (D(2024, 2, 1), D(2024, 2, 29))


def test_the_event_time_is_utc_midnight_of_the_first_day() -> None:
    fact = only_fact("I moved to Berlin last month.")
    assert fact.event_time == datetime(2024, 2, 1, tzinfo=UTC)
