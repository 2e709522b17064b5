from collections.abc import Iterator

import pytest

from tests.fake_openai import FakeOpenAI, FakeOpenAIConfig


class FakeClock:
    """A monotonic clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture(scope="module")
def server_module() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def server(server_module: FakeOpenAI) -> FakeOpenAI:
    server_module.reset(FakeOpenAIConfig(chat_reply='{"answer": "hi"}'))
    return server_module


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()
