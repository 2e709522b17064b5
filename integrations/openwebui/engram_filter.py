"""
title: Engram memory
author: Engram
version: 0.2.0
license: MIT
requirements: httpx
description: Long-term memory for Open WebUI chats. Before the model answers, what Engram
  recalls about the user's message is added to the system prompt; after it answers, the
  exchange is sent to Engram, which keeps the durable facts.
"""

# An Open WebUI "filter" function: paste this file in Admin Panel → Functions, or import it,
# then enable it for the models that should remember. It depends on nothing from Engram.
# Give it an Engram key of its own (one per Open WebUI deployment): each Open WebUI user is a
# sub-agent of that key, and sees only their own memories (docs/integrations.md#open-webui).

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from pydantic import BaseModel, Field

log = logging.getLogger("engram_filter")

MARK_START = "<engram-memories>"
MARK_END = "</engram-memories>"
HEADER = (
    "What you remember about the user from earlier conversations (use it when it helps; "
    "do not mention this list):"
)


def message_text(message: dict[str, Any]) -> str:
    """A message's text: a plain string, or the text parts of a multimodal list."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        return "\n".join(part for part in parts if part)
    return ""


def last_index(messages: list[dict[str, Any]], role: str) -> int | None:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("role") == role and message_text(messages[index]).strip():
            return index
    return None


def without_block(text: str) -> str:
    """The text with an earlier injected block removed (a regenerated answer injects anew)."""
    start = text.find(MARK_START)
    end = text.find(MARK_END)
    if start == -1 or end == -1:
        return text
    return (text[:start] + text[end + len(MARK_END) :]).strip()


Emitter = Callable[[dict[str, Any]], Awaitable[None]] | None


def user_valves(user: dict[str, Any] | None) -> dict[str, Any]:
    """A user's own settings: Open WebUI passes them as `__user__["valves"]` (a UserValves
    instance, or a dict in some versions); absent = the defaults."""
    valves = (user or {}).get("valves")
    if isinstance(valves, BaseModel):
        return valves.model_dump()
    return dict(valves) if isinstance(valves, dict) else {}


async def show_status(emit: Emitter, text: str) -> None:
    """A status line under the chat's answer (Open WebUI's `status` event)."""
    if emit is None:
        return
    try:
        await emit({"type": "status", "data": {"description": text, "done": True}})
    except Exception as exc:  # a status line must never break the chat
        log.debug("Open WebUI did not take the status line: %s", exc)


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def chat_id_of(body: dict[str, Any], metadata: dict[str, Any] | None) -> str | None:
    """Where Open WebUI puts the chat's id: the body (`chat_id`), its `metadata`, or the
    `__metadata__` argument, depending on the version."""
    for source in (body, body.get("metadata") or {}, metadata or {}):
        if isinstance(source, dict) and source.get("chat_id"):
            return str(source["chat_id"])
    return None


class Filter:
    class Valves(BaseModel):
        engram_url: str = Field("http://localhost:8001", description="Engram's base URL.")
        api_key: str = Field(
            "",
            description="This Open WebUI deployment's own Engram key (made for it, bound to "
            "the agent prefix; never the admin key).",
        )
        agent_id: str = Field("openwebui", description="The agent scope (X-Agent-Id).")
        per_user_agent: bool = Field(
            True,
            description="Each Open WebUI user gets the sub-agent '<agent_id>:<user id>', so "
            "users sharing one key do not see each other's memories.",
        )
        shared_memories: bool = Field(
            False,
            description="Also give every user the key's shared memories (stored with no agent) "
            "and the key's user-level reflection. Off: each user sees only their own.",
        )
        max_tokens: int = Field(800, ge=50, le=32000, description="Budget of the memory block.")
        include_core: bool = Field(True, description="Pinned (core) memories in every prompt.")
        remember: bool = Field(True, description="Send each exchange to Engram to learn from.")
        timeout_s: float = Field(10.0, gt=0, description="Seconds to wait for Engram.")
        priority: int = Field(0, description="Order among filters (lower runs first).")

    class UserValves(BaseModel):
        enabled: bool = Field(
            True, description="Use my memory: recall before answers and remember after."
        )
        show_status: bool = Field(True, description="Show what was recalled and stored.")

    def __init__(self) -> None:
        self.valves = self.Valves()

    def _headers(self, user: dict[str, Any] | None) -> dict[str, str]:
        agent = self.valves.agent_id
        if self.valves.per_user_agent and user and user.get("id"):
            agent = f"{agent}:{user['id']}"
        return {"Authorization": f"Bearer {self.valves.api_key}", "X-Agent-Id": agent}

    async def _post(self, path: str, payload: dict[str, Any], user: dict[str, Any] | None) -> Any:
        url = self.valves.engram_url.rstrip("/") + path
        async with httpx.AsyncClient(timeout=self.valves.timeout_s) as client:
            answer = await client.post(url, json=payload, headers=self._headers(user))
        answer.raise_for_status()
        return answer.json()

    async def inlet(
        self,
        body: dict[str, Any],
        __user__: dict[str, Any] | None = None,
        __metadata__: dict[str, Any] | None = None,
        __event_emitter__: Emitter = None,
    ) -> dict[str, Any]:
        """Adds what Engram recalls for the last user message to the system prompt; nothing
        when nothing is relevant, and the chat goes on unchanged if Engram cannot be reached."""
        mine = user_valves(__user__)
        if not mine.get("enabled", True):
            return body
        emit = __event_emitter__ if mine.get("show_status", True) else None
        messages = body.get("messages") or []
        asked = last_index(messages, "user")
        if asked is None:
            return body
        query = {
            "query": message_text(messages[asked]),
            "max_tokens": self.valves.max_tokens,
            "include_core": self.valves.include_core,
            "shared": self.valves.shared_memories,
        }
        try:
            found = await self._post("/recall/context", query, __user__)
        except (httpx.HTTPError, ValueError) as exc:
            log.warning("Engram recall failed; answering without memories: %s", exc)
            await show_status(emit, "Memory unavailable: answering without it")
            return body
        if not found.get("memory_ids") or found.get("relevant") is False:
            await show_status(emit, "No memories recalled")
            return body
        await show_status(emit, f"Recalled {plural(len(found['memory_ids']), 'memory')}")
        block = f"{MARK_START}\n{HEADER}\n{found['context']}\n{MARK_END}"
        if messages and messages[0].get("role") == "system":
            earlier = without_block(message_text(messages[0]))
            messages[0] = {**messages[0], "content": f"{earlier}\n\n{block}".strip()}
        else:
            messages.insert(0, {"role": "system", "content": block})
        body["messages"] = messages
        return body

    async def outlet(
        self,
        body: dict[str, Any],
        __user__: dict[str, Any] | None = None,
        __metadata__: dict[str, Any] | None = None,
        __event_emitter__: Emitter = None,
    ) -> dict[str, Any]:
        """Sends the last exchange (the user's message and the answer) to Engram's /remember,
        with the chat's id as the session; the answer shown is never changed."""
        mine = user_valves(__user__)
        if not self.valves.remember or not mine.get("enabled", True):
            return body
        emit = __event_emitter__ if mine.get("show_status", True) else None
        messages = body.get("messages") or []
        answered, asked = last_index(messages, "assistant"), last_index(messages, "user")
        if answered is None or asked is None or asked > answered:
            return body
        turns = [
            {
                "role": messages[i]["role"],
                "content": message_text(messages[i]),
                **({"message_id": str(messages[i]["id"])} if messages[i].get("id") else {}),
            }
            for i in (asked, answered)
        ]
        chat_id = chat_id_of(body, __metadata__)
        exchange: dict[str, Any] = {
            "messages": turns,
            "session_id": chat_id or f"openwebui-{(__user__ or {}).get('id', 'anonymous')}",
            "source": {k: v for k, v in (("chat_id", chat_id), ("model", body.get("model"))) if v},
        }
        try:
            await self._post("/remember", exchange, __user__)
        except (httpx.HTTPError, ValueError) as exc:
            log.warning("Engram did not take the exchange: %s", exc)
            await show_status(emit, "Memory unavailable: this exchange was not stored")
            return body
        await show_status(emit, "Sent to memory: what is worth keeping will be stored")
        return body
