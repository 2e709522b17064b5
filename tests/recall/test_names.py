"""People named in a query, and the query without them (what the dense channel embeds)."""

import pytest

from app.recall.names import query_names, without_names


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
