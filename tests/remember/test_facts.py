import pytest

from app.models import MemoryType, Role
from app.remember.facts import ExtractedFact, allowed_subjects, filter_by_attribution


def fact(subject: str) -> ExtractedFact:
    return ExtractedFact(f"{subject} fact", subject, MemoryType.FACT, 0.5, 0.7, [])


FACTS = [fact("user"), fact("assistant"), fact("user")]


@pytest.mark.parametrize(
    ("role", "agent_id", "kept"),
    [
        (None, None, ["user", "user"]),  # automatic; assistant facts need an agent
        (None, "ava", ["user", "assistant", "user"]),
        ("user", None, ["user", "user"]),
        ("user", "ava", ["user", "user"]),
        ("assistant", None, []),
        ("assistant", "ava", ["assistant"]),
    ],
)
def test_filter_by_attribution(role: str | None, agent_id: str | None, kept: list[str]) -> None:
    assert [f.subject for f in filter_by_attribution(FACTS, role, agent_id)] == kept


def test_allowed_subjects_accepts_the_role_enum() -> None:
    assert allowed_subjects(Role.ASSISTANT, "ava") == {"assistant"}
    assert allowed_subjects(Role.USER, None) == {"user"}
