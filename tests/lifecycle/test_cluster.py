"""Clustering over the real stores: a summary per cluster, scopes apart, idempotent re-runs."""

import httpx

from app.lifecycle.cluster import ClusterConfig, components, extractive_summary, run_clustering
from app.models import utc_now
from tests.conftest import AGENT_KEY, ALICE_KEY, BOB_KEY, auth, running_client, test_settings
from tests.fake_openai import FakeOpenAI, FakeOpenAIConfig


def near(axis: int, wobble: float) -> list[float]:
    vector = [0.0] * 8
    vector[axis] = 1.0
    vector[(axis + 1) % 8] = wobble
    return vector


async def put(client: httpx.AsyncClient, headers: dict, content: str, vector: list[float]) -> str:
    body = {"content": content, "type": "Event", "embedding": vector, "tags": ["run", content]}
    response = await client.post("/memory", json=body, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()["memory_id"]


def runtime(client: httpx.AsyncClient):
    return client.app.state.runtime  # type: ignore[attr-defined]


async def summaries(client: httpx.AsyncClient) -> dict[str, list[str]]:
    rows = await runtime(client).stores.graph.ro_query(
        "MATCH (s:Memory)-[:SUMMARIZES]->(m:Memory) RETURN s.id, collect(m.id)"
    )
    return {row[0]: sorted(row[1]) for row in rows}


def test_components_and_extractive_text():
    pairs = [("a", "b"), ("b", "c"), ("d", "e")]
    assert components(pairs, ["a", "b", "c", "d", "e", "f"]) == [["a", "b", "c"], ["d", "e"], ["f"]]
    text = extractive_summary(["Ran 5 km on Monday", "Ran 6 km on Tuesday", "Ran 5 km again"])
    assert text.startswith("3 related memories: Ran 5 km on Monday | Ran 6 km")
    assert len(extractive_summary(["x" * 500] * 40)) < 2000


async def test_one_summary_per_cluster_and_a_rerun_changes_nothing(app_client: httpx.AsyncClient):
    alice, bob = auth(ALICE_KEY), auth(BOB_KEY)
    running = [await put(app_client, alice, f"Ran {k} km", near(0, 0.1 * k)) for k in range(4)]
    cooking = [await put(app_client, alice, f"Cooked dish {k}", near(3, 0.1 * k)) for k in range(3)]
    for k in range(2):
        await put(app_client, alice, f"Read book {k}", near(5, 0.1 * k))  # too few to cluster
    agents = auth(AGENT_KEY, "openwebui")
    agent_run = await put(app_client, agents, "Ran with the agent", near(0, 0.05))
    bobs = [await put(app_client, bob, f"Bob ran {k} km", near(0, 0.1 * k)) for k in range(3)]

    deps = runtime(app_client)
    report = await run_clustering(deps, ClusterConfig(), utc_now())
    assert (report["clusters"], report["created"], report["updated"]) == (3, 3, 0)
    found = await summaries(app_client)
    assert sorted(found.values()) == sorted([sorted(running), sorted(cooking), sorted(bobs)])
    assert all(agent_run not in members for members in found.values())

    summary_id = next(s for s, members in found.items() if members == sorted(running))
    summary = (await app_client.get(f"/memory/{summary_id}", headers=alice)).json()["memory"]
    assert summary["cluster_summary"] and summary["type"] == "Pattern"
    assert summary["content"].startswith("4 related memories: Ran 0 km")
    assert summary["tags"] == ["run"] and sorted(summary["derived_from"]) == sorted(running)
    member = (await app_client.get(f"/memory/{running[0]}", headers=alice)).json()["memory"]
    assert member["consolidated_into"] == summary_id
    assert (await app_client.get(f"/memory/{summary_id}", headers=bob)).status_code == 404

    again = await run_clustering(deps, ClusterConfig(), utc_now())
    assert (again["created"], again["updated"], again["unchanged"]) == (0, 0, 3)
    assert await summaries(app_client) == found

    running.append(await put(app_client, alice, "Ran 9 km", near(0, 0.15)))
    third = await run_clustering(deps, ClusterConfig(), utc_now())
    assert (third["created"], third["updated"], third["unchanged"]) == (0, 1, 2)
    after = await summaries(app_client)
    assert after[summary_id] == sorted(running) and len(after) == 3
    rewritten = (await app_client.get(f"/memory/{summary_id}", headers=alice)).json()["memory"]
    assert rewritten["version"] == 2 and rewritten["content"].startswith("5 related memories")


async def test_a_dry_run_writes_nothing_and_a_user_run_stays_in_its_user(
    app_client: httpx.AsyncClient,
):
    before = await summaries(app_client)
    carol = [
        await put(app_client, auth(BOB_KEY), f"Bob swam {k}", near(6, 0.1 * k)) for k in range(3)
    ]
    deps = runtime(app_client)
    dry = await run_clustering(deps, ClusterConfig(), utc_now(), user_id="bob", dry_run=True)
    assert dry["created"] == 1 and await summaries(app_client) == before
    alice_only = await run_clustering(deps, ClusterConfig(), utc_now(), user_id="alice")
    assert alice_only["created"] == 0 and await summaries(app_client) == before
    await run_clustering(deps, ClusterConfig(), utc_now(), user_id="bob")
    assert sorted(carol) in (await summaries(app_client)).values()


async def test_the_llm_writes_the_summary_when_configured(falkordb_url: str, tmp_path):
    reply = '{"summary": "Alice runs most mornings, 5 to 9 km."}'
    with FakeOpenAI(FakeOpenAIConfig(chat_reply=reply)) as server:
        settings = test_settings(
            tmp_path,
            falkordb_url=falkordb_url,
            llm_base_url=server.base_url,
            llm_model="fake-model",
            enrichment_enabled=False,
        )
        async with running_client(settings) as client:
            for k in range(3):
                await put(client, auth(ALICE_KEY), f"Ran {k + 5} km", near(0, 0.1 * k))
            report = await run_clustering(runtime(client), ClusterConfig(), utc_now())
            assert report["created"] == 1
            (summary_id,) = report["summary_ids"]
            summary = (await client.get(f"/memory/{summary_id}", headers=auth(ALICE_KEY))).json()
            assert summary["memory"]["content"] == "Alice runs most mornings, 5 to 9 km."
            assert summary["memory"]["metadata"]["cluster"]["method"] == "llm"
            assert "Ran 5 km" in str(server.requests[-1])
