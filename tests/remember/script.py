"""A scripted conversation in three sessions, with what each extractor should make of it.

For each session: its turns, the facts the rule extractor must produce (all of them and nothing
else), and the answer an LLM would plausibly give in our extraction schema. `fake_chat_reply` plugs
that answer into `tests/fake_openai.FakeOpenAI` (`FakeOpenAIConfig(chat_reply=fake_chat_reply)`).

What the script covers: a preference stated twice in different sessions ("I love hiking" /
"I really love hiking"), a residence that changes ("I live in Prague" in session 1, "I moved to
Berlin last month" in session 3), the assistant's self-introduction, plans and events with
relative dates, and small talk, questions, hypotheticals, negations and third parties that must
yield nothing.
"""

import json
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from app.models import MemoryType
from app.remember.facts import ExtractedFact, Turn

AGENT_ID = "ava"


@dataclass(frozen=True)
class Expected:
    """A fact the rule extractor must produce: subject, slot/value and content fragments."""

    contains: str
    subject: str = "user"
    slot: str | None = None
    value: str | None = None
    type: MemoryType | None = None
    event_day: date | None = None

    def matches(self, fact: ExtractedFact) -> bool:
        day = fact.event_time.date() if fact.event_time else None
        checks = [
            self.contains in fact.content,
            fact.subject == self.subject,
            self.slot is None or fact.slot == self.slot,
            self.value is None or fact.value == self.value,
            self.type is None or fact.type == self.type,
            self.event_day is None or day == self.event_day,
        ]
        return all(checks)


@dataclass
class Session:
    session_id: str
    turns: list[Turn]
    expected: list[Expected]
    llm_answer: dict[str, Any] = field(default_factory=dict)


def _turns(session: str, start: datetime, lines: list[tuple[str, str]]) -> list[Turn]:
    return [
        Turn(role, content, start, f"{session}-{index:02d}")
        for index, (role, content) in enumerate(lines)
    ]


def _fact(content: str, index: int, **fields: Any) -> dict[str, Any]:
    """One item of an LLM answer, with every property of the schema."""
    item = {
        "content": content,
        "subject": "user",
        "type": "Fact",
        "categories": ["personal"],
        "importance": 0.6,
        "confidence": 0.9,
        "ttl_days": None,
        "event_time": None,
        "slot": None,
        "value": None,
        "message_index": index,
    }
    return item | fields


SESSION_1 = Session(
    "s1",
    _turns(
        "s1",
        datetime(2024, 3, 4, 9, 0, tzinfo=UTC),  # a Monday
        [
            ("user", "Hi! I'm new here."),
            ("assistant", "Hello! I'm Ava, your assistant. How can I help you today?"),
            ("user", "Nice to meet you, Ava. My name is Tom and I live in Prague."),
            ("assistant", "Great to meet you, Tom! What do you like to do in your free time?"),
            ("user", "I love hiking, especially in the mountains."),
            ("user", "I work as a nurse at the city hospital."),
            ("assistant", "That sounds rewarding. Hiking in the Alps must be lovely."),
            ("user", "What's the weather like in Prague today?"),
            ("user", "If I had more time, I would go climbing every weekend."),
        ],
    ),
    [
        Expected("Assistant's name is Ava", subject="assistant", slot="name", value="Ava"),
        Expected("User's name is Tom", slot="name", value="Tom"),
        Expected("User lives in Prague", slot="residence", value="Prague"),
        Expected("User loves hiking", slot="likes:hiking", value="likes"),
        Expected("User works as a nurse at the city hospital", slot="job_title", value="nurse"),
    ],
)
SESSION_1.llm_answer = {
    "facts": [
        _fact("Assistant's name is Ava.", 1, subject="assistant", slot="name", value="Ava"),
        _fact("User's name is Tom.", 2, importance=0.8, slot="name", value="Tom"),
        _fact(
            "User lives in Prague.",
            2,
            categories=["personal", "location"],
            slot="residence",
            value="Prague",
        ),
        _fact(
            "User loves hiking, especially in the mountains.",
            4,
            type="Preference",
            categories=["preferences"],
            slot="likes:hiking",
            value="likes",
        ),
        _fact(
            "User works as a nurse at the city hospital.",
            5,
            categories=["work"],
            slot="job_title",
            value="nurse",
        ),
    ]
}

SESSION_2 = Session(
    "s2",
    _turns(
        "s2",
        datetime(2024, 3, 15, 18, 30, tzinfo=UTC),  # a Friday
        [
            ("user", "Hey Ava, quick question: can you recommend a good book?"),
            ("assistant", "Sure! Do you prefer fiction or non-fiction?"),
            ("user", "I prefer science fiction. My favorite author is Ursula Le Guin."),
            ("user", "I really love hiking, so I'm going to the Tatras next weekend."),
            ("assistant", "Sounds like a great trip! Remember to check the trail conditions."),
            ("user", "My friend Anna hates hiking though."),
            ("user", "I don't drink coffee."),
            ("user", "Thanks, that's all for now!"),
        ],
    ),
    [
        Expected("User prefers science fiction", slot="likes:science fiction", value="likes"),
        Expected("User's favorite author is Ursula Le Guin", slot="favorite:author"),
        Expected("User loves hiking", slot="likes:hiking", value="likes"),
        Expected(
            "User is going to the Tatras on the weekend of 23 March 2024",
            type=MemoryType.EVENT,
            event_day=date(2024, 3, 23),
        ),
        Expected("User's friend Anna hates hiking"),  # about Anna, not the user: no slot
    ],
)
SESSION_2.llm_answer = {
    "facts": [
        _fact(
            "User prefers science fiction.",
            2,
            type="Preference",
            categories=["preferences", "entertainment"],
            slot="likes:science fiction",
            value="likes",
        ),
        _fact(
            "User's favorite author is Ursula Le Guin.",
            2,
            type="Preference",
            categories=["preferences", "entertainment"],
            slot="favorite:author",
            value="Ursula Le Guin",
        ),
        _fact(
            "User really loves hiking.",
            3,
            type="Preference",
            categories=["preferences"],
            slot="likes:hiking",
            value="likes",
        ),
        _fact(
            "User is going hiking in the Tatras on the weekend of 23 March 2024.",
            3,
            type="Event",
            categories=["plans", "travel"],
            importance=0.5,
            ttl_days=10,
            event_time="2024-03-23",
        ),
    ]
}

SESSION_3 = Session(
    "s3",
    _turns(
        "s3",
        datetime(2024, 4, 20, 11, 0, tzinfo=UTC),  # a Saturday
        [
            ("user", "Hi Ava, I have some news: I moved to Berlin last month."),
            ("assistant", "Congratulations on the move! How are you settling in?"),
            ("user", "Pretty well. I started a new job at Siemens two weeks ago."),
            ("user", "I also adopted a cat named Luna yesterday."),
            ("assistant", "Luna is a lovely name! I'll remember that."),
            ("user", "I'm vegetarian now, by the way."),
            ("user", "Would I like Berlin's vegan restaurants?"),
            ("user", "I have a dentist appointment on Monday."),
            ("user", "My friend says I should try climbing."),
        ],
    ),
    [
        Expected(
            "User moved to Berlin in March 2024",
            slot="residence",
            value="Berlin",
            type=MemoryType.EVENT,
            event_day=date(2024, 3, 1),
        ),
        Expected(
            "User started a new job at Siemens in the week of 1 April 2024",
            type=MemoryType.EVENT,
            event_day=date(2024, 4, 1),
        ),
        Expected("User adopted a cat named Luna on 19 April 2024", event_day=date(2024, 4, 19)),
        Expected("User is vegetarian", slot="diet", value="vegetarian"),
        Expected(
            "User has a dentist appointment on 22 April 2024",
            type=MemoryType.EVENT,
            event_day=date(2024, 4, 22),
        ),
    ],
)
SESSION_3.llm_answer = {
    "facts": [
        _fact(
            "User moved to Berlin in March 2024.",
            0,
            type="Event",
            categories=["personal", "location"],
            importance=0.8,
            event_time="2024-03-01",
            slot="residence",
            value="Berlin",
        ),
        _fact(
            "User started a new job at Siemens in early April 2024.",
            2,
            categories=["work"],
            event_time="2024-04-06",
            slot="employer",
            value="Siemens",
        ),
        _fact(
            "User adopted a cat named Luna on 19 April 2024.",
            3,
            type="Event",
            event_time="2024-04-19",
            slot="pet:cat",
            value="Luna",
        ),
        _fact(
            "User is vegetarian.",
            5,
            categories=["health", "preferences"],
            importance=0.7,
            slot="diet",
            value="vegetarian",
        ),
        _fact(
            "User has a dentist appointment on 22 April 2024.",
            7,
            type="Event",
            categories=["plans", "health"],
            importance=0.4,
            ttl_days=3,
            event_time="2024-04-22T00:00:00Z",
        ),
    ]
}

SESSIONS = [SESSION_1, SESSION_2, SESSION_3]


def session_of(contents: list[str]) -> Session | None:
    """The scripted session these message contents come from."""
    return next((s for s in SESSIONS if contents[:1] == [s.turns[0].content]), None)


def fake_chat_reply(messages: list[dict[str, Any]]) -> str:
    """A FakeOpenAI `chat_reply`: reads the JSON lines of our extraction prompt, answers in JSON."""
    prompt = messages[-1]["content"]
    lines = [json.loads(line) for line in prompt.splitlines() if line.startswith("{")]
    session = session_of([line["content"] for line in lines])
    return json.dumps(session.llm_answer if session else {"facts": []})
