"""auto_decompose's sub-queries."""

import pytest

from app.recall.decompose import MAX_SUB_QUERIES, sub_queries


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            "What database did Theo pick for Lodestar's audit trails?",
            ["Theo", "Lodestar", "database pick audit trails"],
        ),
        ("When did Melanie move to New York City?", ["Melanie", "New York City", "move"]),
        ("Caroline's hobbies?", ["Caroline", "hobbies"]),  # a possessive opener is a name
        ("Recommend a good book", ["recommend good book"]),  # a plain opener is not
        ("hiking", []),  # nothing beyond the query itself
        ("", []),
        ("Did Alice and Bob meet in March?", ["Alice", "Bob", "meet march"]),  # months: not names
        ("Did José visit Zoë in Łódź?", ["José", "Zoë", "Łódź", "visit"]),
        ("I moved. Later Theo came", ["Theo", "moved later came"]),  # "Later" opens a sentence
        ("Let's ask Ann, Ben", ["Ann", "Ben", "ask"]),  # punctuation splits a run
    ],
)
def test_sub_queries(query: str, expected: list[str]):
    assert sub_queries(query) == expected


def test_at_most_a_few_sub_queries_and_the_topic_words_always_among_them():
    found = sub_queries("Did Ann, Ben, Cid, Dee and Eve meet Fay in Paris?")
    assert found == ["Ann", "Ben", "Cid", "dee eve meet fay paris"]
    assert len(found) == MAX_SUB_QUERIES
