"""Whose words a query asks for: the user's, the assistant's, or no one's in particular."""

import pytest

from app.recall.asking import wanted_speaker
from app.recall.candidates import BestMatch, _of_wanted_speakers
from app.recall.rank import Candidate


@pytest.mark.parametrize(
    ("query", "speaker"),
    [
        ("What is my dog's name?", "user"),
        ("Where does the user live?", "user"),
        ("How often do I see my therapist?", "user"),
        ("How many dozen eggs do we currently have stocked up in our refrigerator?", "user"),
        ("What was the name of the restaurant you recommended?", "assistant"),
        ("Can you remind me what you suggested for the trip to Kyoto?", "assistant"),
        ("I forgot the third tip you gave me about sourdough", "assistant"),
        ("What was your recommendation for a budget laptop?", "assistant"),
        ("What was the second verse of the poem you composed for me?", "assistant"),
        ("Which dates were in the itinerary you put together?", "assistant"),
        ("What is the capital of Peru?", None),
        ("How do I reverse a list in Python?", None),
        ("What did Caroline paint last summer?", None),
        # an amount, a duration or a past doing of the asker: about the user, not a method
        ("How much did I pay for the concert tickets?", "user"),
        ("How long have I been learning the cello?", "user"),
        ("How many books did we read this year?", "user"),
        ("How did you cook the rice?", None),
        ("How long should I boil an egg for a soft yolk?", None),
        ("What is the total I spent on concert tickets this spring?", "user"),
        ("How many pottery classes that I attended were on weekends?", "user"),
        # the conversation itself, or a hedge, says nothing of whose words are wanted
        ("Can you remind me of the bakery in Lyon we talked about?", None),
        ("In our last conversation, what was the third step of the plan?", None),
        ("I was wondering what the boiling point of ethanol is", None),
        ("I was wondering where my sister lives now", "user"),
    ],
)
def test_wanted_speaker(query: str, speaker: str | None):
    assert wanted_speaker(query) == speaker


def test_a_question_about_the_user_lifts_only_the_user_s_neighbouring_turns():
    about_user, about_caroline = "Where do I work now?", "Where does Caroline work?"
    best = {
        "u1": BestMatch(Candidate("u1"), about_user, ["dense"]),
        "c1": BestMatch(Candidate("c1"), about_caroline, ["dense"]),
    }
    roles = {"reply": {"role": "assistant"}, "next": {"role": "user"}, "other": {}}
    pairs = [("u1", "reply"), ("u1", "next"), ("c1", "reply"), ("c1", "other")]
    kept = _of_wanted_speakers(pairs, best, roles)
    assert kept == [("u1", "next"), ("c1", "reply"), ("c1", "other")]
