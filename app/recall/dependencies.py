"""Recall's own services as request dependencies."""

from typing import Annotated, Protocol

from fastapi import Depends, Request

from app.deps import runtime_dependency
from app.recall.access import AccessRecorder
from app.recall.outcome import RecallConfig


class RecallServed(Protocol):
    """The parts of the Runtime recall's routes read."""

    @property
    def recall_config(self) -> RecallConfig: ...
    @property
    def access(self) -> AccessRecorder: ...


def _served(request: Request) -> RecallServed:
    served: RecallServed = request.app.state.runtime  # app.main checks that the Runtime is one
    return served


@runtime_dependency
async def get_recall_config(request: Request) -> RecallConfig:
    return _served(request).recall_config


@runtime_dependency
async def get_access(request: Request) -> AccessRecorder:
    return _served(request).access


RecallConfigDep = Annotated[RecallConfig, Depends(get_recall_config)]
AccessDep = Annotated[AccessRecorder, Depends(get_access)]
