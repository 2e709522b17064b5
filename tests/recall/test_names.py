"""People named in a query, and the query without them (what the dense channel embeds)."""

import pytest

from app.recall.names import name_phrases, query_names, without_names


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("What did Caroline research?", ["Caroline"]),
        ("Caroline's hobbies?", ["Caroline"]),
        ("Who is Tim and John's favorite player? Did John say?", ["Tim", "John"]),
        ("When did Melanie paint a sunrise in May?", ["Melanie"]),  # months are not names
        ("What LGBTQ events did she attend?", []),  # acronyms are keywords, not names
        ("Where does she work? Anna knows.", []),  # opens a sentence: not taken for a name
        ("Caroline", []),
        ("what does alice drink", []),
        ("", []),
    ],
)
def test_query_names(query: str, names: list[str]):
    assert query_names(query) == names


def test_without_names_keeps_what_is_asked():
    assert without_names("What did Caroline research?", ["Caroline"]) == "What did research?"
    assert without_names("Is Tim's dog older than John's?", ["Tim", "John"]) == (
        "Is dog older than ?"
    )
    assert without_names("Caroline's?", ["Caroline"]) == ""  # nothing left: the caller keeps it
    assert without_names("What did she say?", []) == "What did she say?"


@pytest.mark.parametrize(
    ("query", "phrases"),
    [
        ("Did I camp in the United States this year?", ["United States"]),
        ("Did Caroline and Melanie visit New York City?", ["Caroline", "Melanie", "New York City"]),
        ("How often do I see Dr Johnson?", ["Dr", "Johnson"]),
        ("What did Emily Watson tell Jon?", ["Emily Watson", "Jon"]),
    ],
)
def test_consecutive_names_are_one_phrase_except_after_a_title(query: str, phrases: list[str]):
    assert name_phrases(query, query_names(query)) == phrases
