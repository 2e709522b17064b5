"""Who is asking: the tenancy boundary every storage call carries."""

import re
from dataclasses import dataclass

SUBAGENT_SEPARATOR = ":"
# An agent id: up to 8 levels of sub-agents, each 1-64 characters of a safe set.
AGENT_ID = re.compile(r"^[A-Za-z0-9_.@-]{1,64}(:[A-Za-z0-9_.@-]{1,64}){0,7}$")


@dataclass(frozen=True, slots=True)
class Scope:
    """A caller's scope: a user, and optionally the agent acting for them.

    Visibility rule (mnemory's sub-agent rule):
    - memories with no agent are shared by every agent of the user;
    - a memory written by agent ``a`` is visible to ``a`` and to its ancestors
      (``openwebui`` sees ``openwebui:bob``), never to siblings or to sub-agents of ``a``'s
      parent (``openwebui:bob`` does not see ``openwebui``'s own memories).
    - with no agent in scope, only shared (agent-less) memories are visible.
    """

    user_id: str
    agent_id: str | None = None


def agent_lineage(agent_id: str | None) -> list[str]:
    """The agent and its ancestors: ``a:b:c`` -> ``["a", "a:b", "a:b:c"]``; none -> ``[]``.

    Stored on every memory (graph and vector payload) so that "visible to agent X" is a single
    exact-match test: X is in the memory's lineage.
    """
    if not agent_id:
        return []
    parts = agent_id.split(SUBAGENT_SEPARATOR)
    return [SUBAGENT_SEPARATOR.join(parts[: i + 1]) for i in range(len(parts))]
