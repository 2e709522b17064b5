"""The scale benchmark's text generator: deterministic, varied, well-formed, queries on target."""

import re
from datetime import datetime, timedelta

import pytest

from bench import textgen
from bench.textgen import END, SPAN_DAYS, TEMPLATES, Draw, Slots, render

TYPES = {
    "Decision",
    "Pattern",
    "Preference",
    "Style",
    "Habit",
    "Insight",
    "Context",
    "Fact",
    "Event",
}


@pytest.fixture(scope="module")
def people() -> list[textgen.Persona]:
    return textgen.personas(10, seed=7)


@pytest.fixture(scope="module")
def items(people: list[textgen.Persona]) -> list[textgen.GenMemory]:
    return textgen.memories(people, 20_000, seed=7)


def test_same_seed_same_output(people: list[textgen.Persona]) -> None:
    first = textgen.memories(people, 500, seed=3)
    again = textgen.memories(textgen.personas(10, seed=7), 500, seed=3)
    assert first == again
    assert textgen.queries(people, first, 50, seed=3) == textgen.queries(people, again, 50, seed=3)


def test_other_seed_other_output(people: list[textgen.Persona]) -> None:
    assert textgen.memories(people, 200, seed=1) != textgen.memories(people, 200, seed=2)


def test_personas_are_distinct_users() -> None:
    people = textgen.personas(10, seed=7)
    assert len({p.user_id for p in people}) == 10
    assert len({p.name for p in people}) == 10
    assert all(len(p.contacts) == 60 and len(p.projects) == 6 for p in people)


def test_texts_are_mostly_unique(items: list[textgen.GenMemory]) -> None:
    assert textgen.stats(items).unique_fraction >= 0.97


def test_every_template_is_used_and_renders(items: list[textgen.GenMemory]) -> None:
    used = {m.template for m in items}
    assert used == {t.name for t in TEMPLATES}
    for item in items:
        assert "{" not in item.content and "}" not in item.content
        assert "{" not in item.question
        assert not item.content[0].islower() and item.question[0].isupper()
        assert "  " not in item.content and " the the " not in item.content.lower()


def test_fields_are_valid_for_the_api(items: list[textgen.GenMemory]) -> None:
    earliest = END - timedelta(days=SPAN_DAYS)
    for item in items:
        body = item.body()
        assert 0 < len(body["content"]) <= 2000
        assert body["type"] in TYPES
        assert 0.0 <= body["importance"] <= 1.0
        assert 1 <= len(body["tags"]) <= 50 and all(len(t) <= 128 for t in body["tags"])
        moment = datetime.fromisoformat(body["timestamp"].replace("Z", "+00:00"))
        assert earliest <= moment <= END


def test_timestamps_span_about_three_years(items: list[textgen.GenMemory]) -> None:
    years = {m.timestamp[:4] for m in items}
    assert {"2022", "2023", "2024", "2025"} <= years


def test_users_share_the_memories_evenly(items: list[textgen.GenMemory]) -> None:
    counts = [sum(m.user == u for m in items) for u in range(10)]
    assert counts == [2000] * 10


def test_project_tags_name_a_project_of_the_user(
    people: list[textgen.Persona], items: list[textgen.GenMemory]
) -> None:
    for item in items:
        for tag in item.tags:
            if tag.startswith("project:"):
                name = tag.removeprefix("project:")
                assert name in people[item.user].projects
                assert name.capitalize() in item.content


def test_related_slots_are_drawn_together(people: list[textgen.Persona]) -> None:
    persona = people[0]
    for seed in range(200):
        slots = Slots(Draw(textgen.random.Random(seed), persona, END))
        render("{relation} {person} {cuisine} {dish} {city} {city2}", slots)
        contact = next(c for c in persona.contacts if c.name == slots["person"])
        assert contact.relation == slots["relation"]
        assert (slots["cuisine"], slots["dish"]) in textgen.CUISINE_DISHES
        assert slots["city"] != slots["city2"]


def test_queries_target_a_memory_of_the_same_user(
    people: list[textgen.Persona], items: list[textgen.GenMemory]
) -> None:
    queries = textgen.queries(people, items, 500, seed=7)
    assert len(queries) == 500
    by_index = {m.index: m for m in items}
    targeted = [q for q in queries if q.kind == "targeted"]
    assert 0.7 <= len(targeted) / len(queries) <= 0.9
    for query in targeted:
        target = by_index[query.target]
        assert target.user == query.user and query.text == target.question
    assert all(q.target is None for q in queries if q.kind == "generic")
    assert {q.user for q in queries} == set(range(10))


def test_questions_mostly_share_words_with_their_memory(
    items: list[textgen.GenMemory],
) -> None:
    word = re.compile(r"[A-Za-z]{3,}")
    stop = {"what", "how", "the", "did", "does", "when", "where", "which", "like", "with"}
    sharing = 0
    for item in items[:2000]:
        asked = {w.lower() for w in word.findall(item.question)} - stop
        said = {w.lower() for w in word.findall(item.content)}
        sharing += bool(asked & said)
    assert sharing / 2000 >= 0.9


def test_questions_ask_only_about_what_the_memory_says(people: list[textgen.Persona]) -> None:
    persona = people[0]
    for seed in range(100):
        slots = Slots(Draw(textgen.random.Random(seed), persona, END))
        render("{tool_a} {version}", slots)
        questions = ("Which {tool_a} version should {project} use?", "Bug in {tool_a} {version}?")
        assert textgen.answerable(questions, slots) == (questions[1],)
