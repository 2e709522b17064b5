"""A /recall request answered: the tier first (a memoryless request reads nothing), then the
recall, the hits the tier shows, the reinforcement recorded, the response's body and what it
was asked to include besides (source turns, artifacts). Every step is charged to `timings_ms`
(app/recall/steps.py), so their sum is the response's query_time_ms."""

import time

from app.embeddings import Embedder
from app.errors import BadRequest
from app.metrics import observe_recall_steps
from app.recall import artifacts, response, service, source_turns, steps, tiers
from app.recall.access import AccessRecorder
from app.recall.outcome import RecallConfig, RecallOutcome
from app.recall.params import RecallRequest
from app.scope import Scope
from app.storage import Stores


async def answer(
    *,
    stores: Stores,
    embedder: Embedder,
    config: RecallConfig,
    access: AccessRecorder,
    scope: Scope,
    params: RecallRequest,
    artifact_budget: int,
) -> response.Body:
    """The response's body; `artifact_budget` bounds the artifact indexes one request builds."""
    if params.embedding is not None and len(params.embedding) != embedder.dimension:
        raise BadRequest(
            f"Invalid 'embedding': must contain exactly {embedder.dimension} values "
            f"({len(params.embedding)} provided)"
        )
    started = time.perf_counter()
    tier = await tiers.tier_of(
        stores.graph, scope, session_id=params.session_id, memoryless=params.memoryless
    )
    tier_ms = (time.perf_counter() - started) * 1000
    if tier.memoryless:  # nothing searched, reinforced or logged
        nothing = RecallOutcome(hits=[], relevant=False)
        return {**response.body(params, nothing, config.relevance_floor), **tier.described()}
    outcome = await service.recall(
        stores=stores, embedder=embedder, scope=scope, params=params, config=config
    )
    responding = time.perf_counter()
    steps.add(outcome.timings, steps.TIER, tier_ms)
    tiers.keep_visible(outcome, tier)
    access.record(scope.user_id, [hit.memory.id for hit in outcome.hits])
    body: response.Body = {
        **response.body(params, outcome, config.relevance_floor),
        **tier.described(),
    }
    if params.include_source_turns:
        await source_turns.attach(stores.graph, scope, body["results"])
    artifacts_ms = 0.0
    if params.include_artifacts:
        searching = time.perf_counter()
        body["artifacts"] = await artifacts.search(
            stores,
            embedder,
            scope,
            params,
            floor=config.relevance_floor,
            budget=artifact_budget,
        )
        artifacts_ms = (time.perf_counter() - searching) * 1000
        steps.add(outcome.timings, steps.ARTIFACTS, artifacts_ms)
        responding += artifacts_ms / 1000
    respond_ms = (time.perf_counter() - responding) * 1000
    steps.add(outcome.timings, steps.RESPOND, respond_ms)
    # the whole of the server's time: the tier before the recall, the response's body after it
    body["query_time_ms"] = round(outcome.elapsed_ms + tier_ms + artifacts_ms + respond_ms, 2)
    observe_recall_steps(outcome.timings)
    return body
