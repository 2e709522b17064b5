"""The load of bench/soak.py: clients that write, patch, delete, recall and post conversation
turns, and an eraser that fills throwaway users and erases them, all recording what Engram
acknowledged in one ledger that the end-of-run checks compare with what Engram holds.

Every write is retried with its Idempotency-Key on a connection error, a 503 or a 429 until it
is acknowledged: what a careful client does while the server is killed and restarted.
"""

import random
import re
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

RETRYABLE = {429, 503}
RETRY_S = 0.25
ACK_DEADLINE_S = 300.0
MARKER = re.compile(r"soakmark[0-9a-f]{16}")
OPS = {"write": 45, "patch": 10, "delete": 8, "recall": 25, "remember": 12}


@dataclass
class Kill:
    kind: str  # "engram" or "falkordb"
    at: float
    recovered_at: float | None = None

    @property
    def recovery_s(self) -> float | None:
        return None if self.recovered_at is None else self.recovered_at - self.at


@dataclass
class Acked:
    key: str
    memory_id: str
    marker: str
    content: str


@dataclass
class Erased:
    user: str
    how: str
    texts: list[str]
    disk_clean: bool | None


@dataclass
class Ledger:
    """What the load sent and what Engram acknowledged (shared by every thread, under a lock)."""

    acked: dict[str, Acked] = field(default_factory=dict)
    deleted: set[str] = field(default_factory=set)
    delete_unanswered: set[str] = field(default_factory=set)  # neither side of the check holds
    patched: set[str] = field(default_factory=set)
    unacknowledged: int = 0
    remembered: int = 0
    statuses: Counter = field(default_factory=Counter)
    connection_errors: Counter = field(default_factory=Counter)
    unexpected: list[str] = field(default_factory=list)
    kills: list[Kill] = field(default_factory=list)
    erased: list[Erased] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answered(self, op: str, response: httpx.Response, expected: set[int]) -> None:
        with self.lock:
            self.statuses[response.status_code] += 1
            if response.status_code not in expected | RETRYABLE:
                self.unexpected.append(f"{op} → {response.status_code}: {response.text[:300]}")

    def dropped(self, exc: Exception) -> None:
        with self.lock:
            self.connection_errors[type(exc).__name__] += 1

    def acknowledged_write(self, started: float, done: float) -> None:
        """A write acknowledged: the first one begun after a kill ends that kill's outage."""
        with self.lock:
            for kill in self.kills:
                if kill.recovered_at is None and kill.at <= started:
                    kill.recovered_at = done

    def killed(self, kind: str) -> None:
        with self.lock:
            self.kills.append(Kill(kind, time.monotonic()))


def call(
    ledger: Ledger,
    client: httpx.Client,
    op: str,
    method: str,
    url: str,
    expected: set[int],
    **kwargs: Any,
) -> httpx.Response | None:
    """One request; None when the connection failed (refused, reset, timed out)."""
    started = time.monotonic()
    try:
        response = client.request(method, url, **kwargs)
    except httpx.TransportError as exc:
        ledger.dropped(exc)
        return None
    ledger.answered(op, response, expected)
    if op == "POST /memory" and response.status_code == 201:
        ledger.acknowledged_write(started, time.monotonic())
    return response


def until_acknowledged(
    ledger: Ledger,
    client: httpx.Client,
    op: str,
    method: str,
    url: str,
    expected: set[int],
    **kwargs: Any,
) -> httpx.Response | None:
    """Repeats the request (same headers, so the same Idempotency-Key) until it gets an answer
    that is not a retry-later; None if none came within ACK_DEADLINE_S."""
    deadline = time.monotonic() + ACK_DEADLINE_S
    while time.monotonic() < deadline:
        response = call(ledger, client, op, method, url, expected, **kwargs)
        if response is not None and response.status_code not in RETRYABLE:
            return response
        time.sleep(RETRY_S)
    return None


def new_marker() -> str:
    return f"soakmark{uuid.uuid4().hex[:16]}"


class Client(threading.Thread):
    """One client of the soak user: a random mix of OPS until `stop` is set, each after a think
    time of 0 to twice `pause_s`."""

    def __init__(
        self,
        n: int,
        base: str,
        keys: dict[str, str],
        ledger: Ledger,
        texts: Callable[[random.Random], dict[str, Any]],
        stop: threading.Event,
        seed: int,
        pause_s: float,
    ) -> None:
        super().__init__(name=f"client-{n}", daemon=True)
        self.n, self.base, self.keys, self.ledger = n, base, keys, ledger
        self.texts, self.stop, self.rng = texts, stop, random.Random(f"{seed}-client-{n}")
        self.pause_s = pause_s
        self.live: list[Acked] = []
        self.turns = 0

    def run(self) -> None:
        user = {"Authorization": f"Bearer {self.keys['soak']}"}
        chat = {"Authorization": f"Bearer {self.keys['chat']}"}
        with (
            httpx.Client(base_url=self.base, headers=user, timeout=30) as soak,
            httpx.Client(base_url=self.base, headers=chat, timeout=30) as talk,
        ):
            while not self.stop.wait(self.rng.uniform(0, 2 * self.pause_s)):
                op = self.rng.choices(list(OPS), weights=list(OPS.values()))[0]
                if op == "remember":
                    self.remember(talk)
                elif op == "recall":
                    self.recall(soak)
                elif op in ("patch", "delete") and self.live:
                    (self.patch if op == "patch" else self.delete)(soak)
                else:
                    self.write(soak)

    def write(self, client: httpx.Client) -> None:
        key, marker = str(uuid.uuid4()), new_marker()
        body = self.texts(self.rng)
        body["content"] = f"{body['content']} (ref {marker})"
        response = until_acknowledged(
            self.ledger,
            client,
            "POST /memory",
            "POST",
            "/memory",
            {201},
            json=body,
            headers={"Idempotency-Key": key},
        )
        if response is None or response.status_code != 201:
            with self.ledger.lock:
                self.ledger.unacknowledged += 1
            return
        acked = Acked(key, response.json()["memory_id"], marker, body["content"])
        with self.ledger.lock:
            self.ledger.acked[key] = acked
        self.live.append(acked)

    def patch(self, client: httpx.Client) -> None:
        target = self.rng.choice(self.live)
        content = f"{self.texts(self.rng)['content']} (ref {target.marker}, revised)"
        response = until_acknowledged(
            self.ledger,
            client,
            "PATCH /memory/{id}",
            "PATCH",
            f"/memory/{target.memory_id}",
            {200},
            json={"content": content},
        )
        if response is not None and response.status_code == 200:
            target.content = content
            with self.ledger.lock:
                self.ledger.patched.add(target.memory_id)

    def delete(self, client: httpx.Client) -> None:
        target = self.live.pop(self.rng.randrange(len(self.live)))
        url = f"/memory/{target.memory_id}"
        expected = {200}
        deadline = time.monotonic() + ACK_DEADLINE_S
        while time.monotonic() < deadline:
            response = call(self.ledger, client, "DELETE /memory/{id}", "DELETE", url, expected)
            if response is not None and response.status_code not in RETRYABLE:
                break
            # a 404 is right for a retry only: the first attempt may have deleted it
            expected = {200, 404}
            time.sleep(RETRY_S)
        else:
            response = None
        with self.ledger.lock:
            if response is None:
                self.ledger.delete_unanswered.add(target.memory_id)
            else:
                self.ledger.deleted.add(target.memory_id)

    def recall(self, client: httpx.Client) -> None:
        query = self.texts(self.rng)["content"][:120]
        call(
            self.ledger, client, "GET /recall", "GET", "/recall", {200},
            params={"query": query, "limit": 5},
        )  # fmt: skip

    def remember(self, client: httpx.Client) -> None:
        self.turns += 1
        body = {
            "session_id": f"soak-{self.n}-{self.turns // 10}",
            "messages": [{"role": "user", "content": self.texts(self.rng)["content"]}],
        }
        response = until_acknowledged(
            self.ledger,
            client,
            "POST /remember",
            "POST",
            "/remember",
            {202},
            json=body,
            headers={"Idempotency-Key": str(uuid.uuid4())},
        )
        if response is not None and response.status_code == 202:
            with self.ledger.lock:
                self.ledger.remembered += 1


class Eraser(threading.Thread):
    """Throwaway users, one at a time: a few memories and a conversation turn holding a secret,
    then the user's erasure (by turns `DELETE /me?erase=true` and the admin's
    `DELETE /admin/users/{id}`), retried until answered."""

    def __init__(
        self,
        base: str,
        keys: dict[str, str],
        admin_key: str,
        ledger: Ledger,
        every_s: float,
        stop: threading.Event,
    ) -> None:
        super().__init__(name="eraser", daemon=True)
        self.base, self.keys, self.admin_key, self.ledger = base, keys, admin_key, ledger
        self.every_s, self.stop = every_s, stop

    def run(self) -> None:
        users = sorted(user for user in self.keys if user.startswith("gone-"))
        for n, user in enumerate(users):
            if self.stop.wait(self.every_s):
                return
            self.erase_one(user, "me" if n % 2 == 0 else "admin")

    def erase_one(self, user: str, how: str) -> None:
        texts = [f"{user} secret {uuid.uuid4().hex} locker code {n}" for n in range(3)]
        own = {"Authorization": f"Bearer {self.keys[user]}"}
        with httpx.Client(base_url=self.base, headers=own, timeout=60) as client:
            for text in texts[:2]:
                until_acknowledged(
                    self.ledger, client, "POST /memory", "POST", "/memory", {201},
                    json={"content": text}, headers={"Idempotency-Key": str(uuid.uuid4())},
                )  # fmt: skip
            message = {"role": "user", "content": texts[2]}
            turn = {"session_id": f"{user}-chat", "messages": [message]}
            until_acknowledged(
                self.ledger, client, "POST /remember", "POST", "/remember", {202},
                json=turn, headers={"Idempotency-Key": str(uuid.uuid4())},
            )  # fmt: skip
            time.sleep(3)  # let the jobs start: the erasure must abort or outlive them
            response = self._erase(client, user, how)
        clean = None
        if response is not None and response.status_code == 200:
            clean = (response.json().get("disk") or {}).get("clean")
        with self.ledger.lock:
            self.ledger.erased.append(Erased(user, how, texts, clean))

    def _erase(self, client: httpx.Client, user: str, how: str) -> httpx.Response | None:
        if how == "me":
            return until_acknowledged(
                self.ledger, client, "DELETE /me?erase=true", "DELETE", "/me", {200},
                params={"erase": "true", "confirm": user},
            )  # fmt: skip
        admin = {"Authorization": f"Bearer {self.admin_key}"}
        return until_acknowledged(
            self.ledger, client, "DELETE /admin/users/{id}", "DELETE", f"/admin/users/{user}",
            {200}, headers=admin,
        )  # fmt: skip
