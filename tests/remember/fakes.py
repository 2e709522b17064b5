"""A stand-in for app.llm.LLMClient: scripted `chat_json` answers or errors, calls recorded."""

from typing import Any


class FakeLLM:
    """Answers each `chat_json` call with the next scripted dict, or raises it if it's an error."""

    def __init__(self, *answers: dict[str, Any] | BaseException) -> None:
        self.answers = list(answers)
        self.calls: list[dict[str, Any]] = []

    async def chat_json(
        self,
        system: str,
        user: str,
        *,
        schema: dict[str, Any],
        schema_name: str,
        max_tokens: int,
        temperature: float | None = None,
        budget: object | None = None,
    ) -> dict[str, Any]:
        self.calls.append(
            {
                "system": system,
                "user": user,
                "schema": schema,
                "schema_name": schema_name,
                "max_tokens": max_tokens,
                "temperature": temperature,
                "budget": budget,
            }
        )
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer
