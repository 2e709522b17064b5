"""Decay, archive and forgetting over the real stores, with a controllable clock (`now`)."""

from dataclasses import replace
from datetime import timedelta

import httpx

from app.lifecycle.decay import LifecycleConfig, run_pass
from app.lifecycle.policy import ForgetPolicy
from app.models import to_iso, utc_now
from tests.conftest import ALICE_KEY, BOB_KEY, auth

H = auth(ALICE_KEY)
LATER = timedelta(days=800)  # old enough for an unused Fact to fall below 0.1


async def create(client: httpx.AsyncClient, key: str = ALICE_KEY, **body: object) -> str:
    response = await client.post("/memory", json={"importance": 0.3, **body}, headers=auth(key))
    assert response.status_code == 201, response.text
    return response.json()["memory_id"]


async def get(client: httpx.AsyncClient, memory_id: str, key: str = ALICE_KEY) -> dict:
    response = await client.get(f"/memory/{memory_id}", headers=auth(key))
    assert response.status_code == 200, response.text
    return response.json()["memory"]


def runtime(client: httpx.AsyncClient):
    return client.app.state.runtime  # type: ignore[attr-defined]


async def test_decay_stores_the_score_on_the_node_and_the_payload(app_client: httpx.AsyncClient):
    memory_id = await create(app_client, content="Decay scores me", type="Fact")
    stores = runtime(app_client).stores
    report = await run_pass(stores, LifecycleConfig(), utc_now(), forget=False, user_id="alice")
    assert report["processed"] >= 1 and report["scores_updated"] >= 1
    score = (await get(app_client, memory_id))["relevance_score"]
    assert 0 < score <= 1
    points = await stores.vectors.retrieve([memory_id])
    assert points[memory_id].payload["relevance_score"] == score

    later = await run_pass(
        stores, LifecycleConfig(), utc_now() + LATER, forget=False, user_id="alice"
    )
    assert later["archived"] == 0  # decay alone never archives
    assert (await get(app_client, memory_id))["relevance_score"] < score


async def test_forgetting_archives_only_what_no_protection_covers(app_client: httpx.AsyncClient):
    plain = await create(
        app_client, content="An unremarkable note about lunch", type="Fact", tags=["lunch"]
    )
    kept = {
        "pinned": await create(app_client, content="Pinned note", type="Fact", pinned=True),
        "protected": await create(app_client, content="Kept note", type="Fact", protected=True),
        "important": await create(app_client, content="Big note", type="Fact", importance=0.8),
        "protected_type": await create(app_client, content="We chose Postgres", type="Decision"),
        "grace_period": await create(app_client, content="Used lately", type="Fact"),
    }
    # Used ten days before the run: within the grace period.
    used_at = to_iso(utc_now() + LATER - timedelta(days=10))
    await runtime(app_client).stores.graph.query(
        "MATCH (m:Memory {id: $id}) SET m.last_accessed = $at, m.access_count = 1",
        {"id": kept["grace_period"], "at": used_at},
    )
    stores = runtime(app_client).stores
    dry = await run_pass(
        stores, LifecycleConfig(), utc_now() + LATER, forget=True, user_id="alice", dry_run=True
    )
    assert plain in dry["archived_ids"]
    assert not (await get(app_client, plain))["archived"]  # a dry run writes nothing

    report = await run_pass(
        stores, LifecycleConfig(), utc_now() + LATER, forget=True, user_id="alice"
    )
    assert plain in report["archived_ids"]
    for reason, memory_id in kept.items():
        memory = await get(app_client, memory_id)
        assert not memory["archived"], reason
        assert report["protected"].get(reason, 0) >= 1, reason
    archived = await get(app_client, plain)
    assert archived["archived"] and archived["archived_at"] and archived["version"] == 2
    history = (await app_client.get(f"/memory/{plain}/history", headers=H)).json()
    assert history["events"][-1]["actor"] == "engram:lifecycle"
    points = await stores.vectors.retrieve([plain])
    assert points[plain].payload["archived"] is True


def core_ids(core: dict) -> set[str]:
    listed = core["important"] + core["recent"] + sum(core["sections"].values(), [])
    return {m["id"] for m in listed}


async def test_archive_hides_and_restore_returns(app_client: httpx.AsyncClient):
    memory_id = await create(
        app_client, content="Zanzibar ferry timetable", type="Fact", tags=["ferry"]
    )
    stores = runtime(app_client).stores
    await run_pass(stores, LifecycleConfig(), utc_now() + LATER, forget=True, user_id="alice")
    assert (await get(app_client, memory_id))["archived"]

    recall = (await app_client.get("/recall", params={"query": "Zanzibar ferry"}, headers=H)).json()
    assert memory_id not in [r["id"] for r in recall["results"]]
    listed = (await app_client.get("/memory/by-tag", params={"tags": "ferry"}, headers=H)).json()
    assert listed["count"] == 0
    listed = await app_client.get(
        "/memory/by-tag", params={"tags": "ferry", "include_archived": "true"}, headers=H
    )
    assert [m["id"] for m in listed.json()["memories"]] == [memory_id]

    shown = await app_client.get(
        "/recall", params={"query": "Zanzibar ferry", "include_archived": "true"}, headers=H
    )
    assert memory_id in [r["id"] for r in shown.json()["results"]]
    browse = await app_client.get("/recall", params={"tags": "ferry"}, headers=H)
    assert memory_id not in [r["id"] for r in browse.json()["results"]]
    browse = await app_client.get(
        "/recall", params={"tags": "ferry", "include_archived": "true"}, headers=H
    )
    assert memory_id in [r["id"] for r in browse.json()["results"]]
    assert memory_id not in core_ids((await app_client.get("/core", headers=H)).json())
    core = await app_client.get("/core", params={"include_archived": "true"}, headers=H)
    assert memory_id in core_ids(core.json())

    restored = await app_client.patch(f"/memory/{memory_id}", json={"archived": False}, headers=H)
    assert restored.status_code == 200, restored.text
    body = restored.json()
    assert body["version"] == 3 and not body["memory"]["archived"]
    assert body["memory"]["archived_at"] is None
    recall = (await app_client.get("/recall", params={"query": "Zanzibar ferry"}, headers=H)).json()
    assert memory_id in [r["id"] for r in recall["results"]]
    # Restoring counts as a use: the next run leaves it alone (grace period).
    await run_pass(
        stores, LifecycleConfig(), utc_now() + timedelta(days=1), forget=True, user_id="alice"
    )
    assert not (await get(app_client, memory_id))["archived"]


async def test_patch_archives_and_null_is_refused(app_client: httpx.AsyncClient):
    memory_id = await create(app_client, content="Archive me by hand")
    response = await app_client.patch(f"/memory/{memory_id}", json={"archived": True}, headers=H)
    assert response.status_code == 200, response.text
    assert response.json()["memory"]["archived"] and response.json()["memory"]["archived_at"]
    response = await app_client.patch(f"/memory/{memory_id}", json={"archived": None}, headers=H)
    assert response.status_code == 400 and "archived" in response.json()["message"]


async def test_deletion_when_enabled_leaves_a_tombstone(app_client: httpx.AsyncClient):
    memory_id = await create(app_client, content="Forget me entirely", type="Event")
    config = replace(LifecycleConfig(), policy=ForgetPolicy(archive_below=0.1, delete_below=0.1))
    stores = runtime(app_client).stores
    report = await run_pass(stores, config, utc_now() + LATER, forget=True, user_id="alice")
    assert memory_id in report["deleted_ids"]
    assert (await app_client.get(f"/memory/{memory_id}", headers=H)).status_code == 404
    history = (await app_client.get(f"/memory/{memory_id}/history", headers=H)).json()
    assert history["deleted"] and history["tombstone"]["actor"] == "engram:lifecycle"
    assert memory_id not in await stores.vectors.retrieve([memory_id])


async def test_a_users_pass_never_touches_another_user(app_client: httpx.AsyncClient):
    bobs = await create(app_client, BOB_KEY, content="Bob's old note", type="Fact")
    stores = runtime(app_client).stores
    await run_pass(stores, LifecycleConfig(), utc_now() + LATER, forget=True, user_id="alice")
    memory = await get(app_client, bobs, BOB_KEY)
    assert not memory["archived"] and memory["relevance_score"] is None


async def stored(client: httpx.AsyncClient, **body: object) -> dict:
    return await get(client, await create(client, **body))


async def test_ttl_defaults_per_type(app_client: httpx.AsyncClient):
    event = await stored(app_client, content="Went to Rome", type="Event")
    assert event["ttl_days"] == 90 and event["expires_at"]
    assert (await stored(app_client, content="Runs daily", type="Habit"))["ttl_days"] == 60
    assert (await stored(app_client, content="Now debugging", type="Context"))["ttl_days"] == 7
    fact = await stored(app_client, content="Born in 1990", type="Fact")
    assert fact["ttl_days"] is None and fact["expires_at"] is None
    assert (await stored(app_client, content="Likes tea", type="Preference"))["ttl_days"] is None
    explicit = await stored(app_client, content="Trip", type="Event", ttl_days=None)
    assert explicit["ttl_days"] is None  # null is an explicit "permanent"
    pinned = await stored(app_client, content="Gig", type="Event", pinned=True)
    assert pinned["expires_at"] is None
    untyped = await stored(app_client, content="zq xv")
    assert untyped["type"] == "Context" and untyped["ttl_days"] is None
