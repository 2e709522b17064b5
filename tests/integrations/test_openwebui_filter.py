"""The Open WebUI filter against a live Engram, driven with Open WebUI's request shapes: the
outlet sends each exchange to /remember, the inlet puts what is recalled in the system prompt."""

import asyncio
import copy
import importlib.util
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from tests.conftest import ALICE_KEY, BOB_KEY, auth, free_port, test_settings
from tests.live import live_server

PLUGIN = Path(__file__).resolve().parents[2] / "integrations/openwebui/engram_filter.py"
ALICE = {"id": "owui-alice", "name": "Alice", "role": "user"}
CAROL = {"id": "owui-carol", "name": "Carol", "role": "user"}
DAVE = {"id": "owui-dave", "name": "Dave", "role": "user"}


def load_plugin() -> ModuleType:
    spec = importlib.util.spec_from_file_location("engram_filter", PLUGIN)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
async def base_url(
    falkordb_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[str]:
    # The local model, as an Open WebUI user runs it: relevance needs real vectors.
    settings = test_settings(
        tmp_path_factory.mktemp("owui"),
        falkordb_url=falkordb_url,
        workers=1,
        embedding_provider="local",
        embedding_dimensions=None,
        reflection_every=1,  # a reflection of the key's user after one shared /remember
    )
    async with live_server(settings) as url:
        yield url


def make_filter(base_url: str, key: str = ALICE_KEY, **valves: Any):
    plugin = load_plugin().Filter()
    plugin.valves = plugin.Valves(engram_url=base_url, api_key=key, **valves)
    return plugin


def outlet_body(chat_id: str, user_text: str, answer: str) -> dict[str, Any]:
    """What Open WebUI passes to a filter's outlet after a completion."""
    return {
        "model": "llama3.1:8b",
        "messages": [
            {"id": str(uuid.uuid4()), "role": "user", "content": user_text, "timestamp": 1},
            {"id": str(uuid.uuid4()), "role": "assistant", "content": answer, "timestamp": 2},
        ],
        "chat_id": chat_id,
        "session_id": "socket-session-1",
        "id": str(uuid.uuid4()),
    }


def inlet_body(chat_id: str, text: str, system: str | None = None) -> dict[str, Any]:
    """What Open WebUI passes to a filter's inlet before a completion."""
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": [{"type": "text", "text": text}]})
    return {
        "model": "llama3.1:8b",
        "stream": True,
        "messages": messages,
        "metadata": {"chat_id": chat_id, "message_id": str(uuid.uuid4()), "user_id": "u"},
    }


async def wait_for_memory(base_url: str, key: str, agent: str, words: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base_url) as client:
        for _ in range(600):  # bounded: the in-process worker runs the remember job
            found = await client.get(
                "/recall", params={"query": words}, headers=auth(key, agent=agent)
            )
            results = found.json()["results"]
            if results:
                return results[0]["memory"]
            await asyncio.sleep(0.1)
    raise AssertionError(f"nothing about {words!r} was remembered")


async def test_outlet_remembers_and_inlet_recalls(base_url: str):
    plugin = make_filter(base_url)
    sent = outlet_body("chat-42", "I am allergic to peanuts.", "Thanks, I will keep that in mind.")
    assert await plugin.outlet(sent, __user__=ALICE) == sent  # the answer shown is unchanged

    memory = await wait_for_memory(base_url, ALICE_KEY, "openwebui:owui-alice", "peanuts")
    assert "peanut" in memory["content"].lower()
    assert memory["session_id"] == "chat-42"

    body = await plugin.inlet(
        inlet_body("chat-43", "Which snacks contain peanuts?", system="You are helpful."),
        __user__=ALICE,
    )
    system = body["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("You are helpful.")
    assert "peanut" in system["content"].lower() and "<engram-memories>" in system["content"]
    assert body["messages"][1]["content"][0]["text"] == "Which snacks contain peanuts?"

    again = await plugin.inlet(body, __user__=ALICE)  # a regenerated answer: one block only
    assert again["messages"][0]["content"].count("<engram-memories>") == 1


async def test_nothing_is_injected_when_nothing_is_relevant(base_url: str):
    plugin = make_filter(base_url, include_core=False)
    sent = outlet_body("chat-7", "I am allergic to shellfish.", "Noted.")
    await plugin.outlet(sent, __user__=ALICE)
    await wait_for_memory(base_url, ALICE_KEY, "openwebui:owui-alice", "shellfish")
    original = inlet_body("chat-8", "Explain quicksort step by step")
    body = await plugin.inlet(copy.deepcopy(original), __user__=ALICE)
    assert body == original


async def test_users_sharing_a_key_do_not_see_each_other(base_url: str):
    plugin = make_filter(base_url)
    sent = outlet_body("chat-9", "I am allergic to penicillin.", "Got it.")
    await plugin.outlet(sent, __user__=ALICE)
    await wait_for_memory(base_url, ALICE_KEY, "openwebui:owui-alice", "penicillin")
    question = "Am I allergic to penicillin?"
    body = await plugin.inlet(inlet_body("chat-10", question), __user__=ALICE)
    assert "penicillin" in body["messages"][0]["content"]  # the owner gets it
    body = await plugin.inlet(inlet_body("chat-10", question), __user__=CAROL)
    assert len(body["messages"]) == 1  # Carol's sub-agent sees nothing of Alice's
    other_key = make_filter(base_url, key=BOB_KEY)
    body = await other_key.inlet(inlet_body("chat-11", question), __user__=ALICE)
    assert len(body["messages"]) == 1  # nor does another Engram user


async def test_the_chat_goes_on_when_engram_is_unreachable():
    plugin = make_filter(f"http://127.0.0.1:{free_port()}", timeout_s=2)
    body = inlet_body("chat-1", "Hello?")
    assert await plugin.inlet(copy.deepcopy(body), __user__=ALICE) == body
    sent = outlet_body("chat-1", "Hello?", "Hi!")
    assert await plugin.outlet(sent, __user__=ALICE) == sent


async def test_a_wrong_key_changes_nothing(base_url: str):
    plugin = make_filter(base_url, key="not-a-key")
    body = inlet_body("chat-1", "peanuts")
    assert await plugin.inlet(copy.deepcopy(body), __user__=ALICE) == body


class Statuses:
    """What the filter shows under a chat's answer (Open WebUI's `__event_emitter__`)."""

    def __init__(self) -> None:
        self.shown: list[str] = []

    async def __call__(self, event: dict[str, Any]) -> None:
        assert event["type"] == "status" and event["data"]["done"] is True
        self.shown.append(event["data"]["description"])


async def shared_memories_of_the_key(base_url: str, key: str) -> None:
    """What the key's user holds outside any agent: a pinned memory, and the facts and the
    reflection of a conversation remembered without an agent."""
    async with httpx.AsyncClient(base_url=base_url, headers=auth(key)) as client:
        pinned = {"content": "The team wifi password is tulip-42", "pinned": True, "type": "Fact"}
        assert (await client.post("/memory", json=pinned)).status_code == 201
        said = [{"role": "user", "content": "I live in Porto and I work as a baker."}]
        accepted = await client.post("/remember", json={"messages": said, "session_id": "s1"})
        assert accepted.status_code == 202, accepted.text
        for _ in range(600):  # bounded: the in-process worker runs the remember and reflect jobs
            profile = (await client.get("/profile")).json()
            if profile.get("reflection"):
                return
            await asyncio.sleep(0.1)
    raise AssertionError("no reflection was written")


async def test_two_users_on_one_key_see_nothing_of_each_other_nor_of_the_key(base_url: str):
    await shared_memories_of_the_key(base_url, BOB_KEY)
    plugin = make_filter(base_url, key=BOB_KEY)
    sent = outlet_body("chat-20", "My cat is called Miso.", "What a lovely name.")
    await plugin.outlet(sent, __user__=ALICE)
    await wait_for_memory(base_url, BOB_KEY, "openwebui:owui-alice", "Miso")

    statuses = Statuses()
    asked = inlet_body("chat-21", "What is my cat called, where do I live, and the wifi password?")
    body = await plugin.inlet(copy.deepcopy(asked), __user__=ALICE, __event_emitter__=statuses)
    prompt = body["messages"][0]["content"]
    assert "Miso" in prompt  # her own
    for shared in ("tulip", "Porto", "baker"):  # the key's shared memories and reflection
        assert shared not in prompt
    assert statuses.shown and statuses.shown[-1].startswith("Recalled ")

    body = await plugin.inlet(copy.deepcopy(asked), __user__=DAVE)
    assert body == asked  # the other user: nothing of Alice's, nothing of the key's

    sharing = make_filter(base_url, key=BOB_KEY, shared_memories=True)
    body = await sharing.inlet(copy.deepcopy(asked), __user__=DAVE)
    prompt = body["messages"][0]["content"]
    assert "tulip-42" in prompt and "Porto" in prompt  # the admin turned sharing on
    assert "Miso" not in prompt


async def test_a_user_can_turn_memory_off_and_see_what_was_stored(
    base_url: str, caplog: pytest.LogCaptureFixture
):
    plugin = make_filter(base_url)
    statuses = Statuses()
    sent = outlet_body("chat-30", "I collect vinyl records.", "Nice hobby.")
    await plugin.outlet(sent, __user__=CAROL, __event_emitter__=statuses)
    assert statuses.shown == ["Sent to memory: what is worth keeping will be stored"]

    off = {**CAROL, "valves": plugin.UserValves(enabled=False)}
    unreachable = make_filter(f"http://127.0.0.1:{free_port()}", timeout_s=2)
    quiet = Statuses()
    body = inlet_body("chat-31", "What do I collect?")
    assert (
        await unreachable.inlet(copy.deepcopy(body), __user__=off, __event_emitter__=quiet) == body
    )
    assert await unreachable.outlet(sent, __user__=off, __event_emitter__=quiet) == sent
    assert quiet.shown == [] and "Engram" not in caplog.text  # not even tried

    hidden = {**CAROL, "valves": {"enabled": True, "show_status": False}}
    await wait_for_memory(base_url, ALICE_KEY, "openwebui:owui-carol", "vinyl")
    answered = await plugin.inlet(copy.deepcopy(body), __user__=hidden, __event_emitter__=quiet)
    assert "vinyl" in answered["messages"][0]["content"] and quiet.shown == []
