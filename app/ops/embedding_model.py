"""One vector space per index: the model that made the dense vectors is recorded with them, and
a start with another model re-embeds every memory instead of mixing two spaces.

Two models' vectors side by side (AutoMem's weakness: a changed model silently ruins search) rank
nonsense, and nothing in a single vector says which model made it. So the index records its
model (`VectorIndex.embedding_model`), and a start with a different one:
1. marks every embedded memory `pending` in the graph (so the backlog scan queues it),
2. drops every dense vector from the index (payloads and keywords stay: BM25 still finds all),
3. records the new model.
A crash between the steps leaves the old record, so the next start does them again (each step
is idempotent). Until a memory is re-embedded it is found by keywords only; its
`embedding_status` says `pending`, and `/enrichment/status` counts the backlog.
"""

import logging

from app.storage import Stores

log = logging.getLogger(__name__)


async def adopt_embedding_model(stores: Stores, model: str, *, trust_unrecorded: bool) -> int:
    """Makes `model` the index's model; returns how many memories now wait for re-embedding.

    An index from before models were recorded is taken to hold `model`'s vectors if
    `trust_unrecorded` (a remote provider's configuration is what made them: re-embedding
    through a paid API on upgrade would cost for nothing); the local provider's were made by the
    fp32 model this release replaces, so they are redone.
    """
    recorded = await stores.vectors.embedding_model()
    if recorded == model:
        return 0
    if recorded is None and (trust_unrecorded or await stores.vectors.count() == 0):
        await stores.vectors.set_embedding_model(model)  # nothing to redo
        return 0
    pending = await stores.graph.mark_all_unembedded()
    await stores.vectors.drop_dense()
    await stores.vectors.set_embedding_model(model)
    log.warning(
        "the vectors were made by %s, the embedder is now %s: %d memories will be re-embedded "
        "in the background; until then they are found by keywords only",
        recorded or "an unrecorded model",
        model,
        pending,
    )
    return pending
