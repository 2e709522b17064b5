"""Recall's own services as request dependencies."""

from typing import Annotated

from fastapi import Depends

from app.deps import runtime_part
from app.recall.access import AccessRecorder
from app.recall.outcome import RecallConfig

RecallConfigDep = Annotated[RecallConfig, Depends(runtime_part("recall_config"))]
AccessDep = Annotated[AccessRecorder, Depends(runtime_part("access"))]
