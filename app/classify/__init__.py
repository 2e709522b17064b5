"""Memory types from content: patterns first, then an LLM, then a Context fallback."""

from app.classify.llm import classify, classify_with_llm
from app.classify.patterns import classify_by_patterns
from app.classify.result import Classification, ClassificationStats

__all__ = [
    "Classification",
    "ClassificationStats",
    "classify",
    "classify_by_patterns",
    "classify_with_llm",
]
