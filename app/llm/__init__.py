"""The LLM client every LLM use shares; see client.py for its guards and retries."""

from app.llm.client import LLMClient, create_llm_client
from app.llm.errors import BudgetExhausted, CircuitOpen, LLMCallFailed, LLMUnavailable
from app.llm.guards import CallBudget

__all__ = [
    "BudgetExhausted",
    "CallBudget",
    "CircuitOpen",
    "LLMCallFailed",
    "LLMClient",
    "LLMUnavailable",
    "create_llm_client",
]
