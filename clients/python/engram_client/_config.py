"""What both clients are made with: where Engram is, the key, the agent scope, the timeouts."""

import os
from dataclasses import dataclass, replace

from engram_client import __version__
from engram_client._retry import RetryPolicy
from engram_client.errors import EngramError

DEFAULT_URL = "http://127.0.0.1:8001"


@dataclass(frozen=True)
class Config:
    base_url: str
    api_key: str
    agent_id: str | None
    timeout_s: float
    retry: RetryPolicy

    @classmethod
    def make(
        cls,
        base_url: str | None,
        api_key: str | None,
        agent_id: str | None,
        timeout_s: float,
        max_retries: int,
    ) -> "Config":
        key = api_key or os.environ.get("ENGRAM_API_KEY")
        if not key:
            raise EngramError("No API key: pass api_key= or set ENGRAM_API_KEY")
        return cls(
            base_url=(base_url or os.environ.get("ENGRAM_URL") or DEFAULT_URL).rstrip("/"),
            api_key=key,
            agent_id=agent_id,
            timeout_s=timeout_s,
            retry=RetryPolicy(max_retries=max_retries),
        )

    def for_agent(self, agent_id: str | None) -> "Config":
        return replace(self, agent_id=agent_id)

    @property
    def headers(self) -> dict[str, str]:
        headers = {
            "Authorization": f"Bearer {self.api_key}",
            "User-Agent": f"engram-client-python/{__version__}",
        }
        if self.agent_id:
            headers["X-Agent-Id"] = self.agent_id
        return headers
