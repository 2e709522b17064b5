"""Whose words a query asks for: the user's, the assistant's, or no one's in particular."""

import pytest

from app.recall.asking import wanted_speaker


@pytest.mark.parametrize(
    ("query", "speaker"),
    [
        ("What is my dog's name?", "user"),
        ("Where does the user live?", "user"),
        ("How often do I see my therapist?", "user"),
        ("What was the name of the restaurant you recommended?", "assistant"),
        ("Can you remind me what you suggested for the trip to Kyoto?", "assistant"),
        ("I forgot the third tip you gave me about sourdough", "assistant"),
        ("What was your recommendation for a budget laptop?", "assistant"),
        ("What is the capital of Peru?", None),
        ("How do I reverse a list in Python?", None),
        ("What did Caroline paint last summer?", None),
    ],
)
def test_wanted_speaker(query: str, speaker: str | None):
    assert wanted_speaker(query) == speaker
