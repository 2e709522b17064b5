"""engram_client.langchain on a real Engram, through LangChain's own interfaces: the retriever's
invoke/ainvoke and the tools' invoke/ainvoke (no LLM)."""

import re
import uuid

import pytest
from engram_client import AsyncEngram, Engram
from engram_client.langchain import EngramRetriever, engram_tools

from tests.conftest import ALICE_KEY


@pytest.fixture
def alice(engram_url: str):
    with Engram(engram_url, api_key=ALICE_KEY, agent_id="langchain") as client:
        yield client


def test_the_retriever_returns_documents(engram_url: str, alice: Engram):
    stored = alice.store("The wifi password is tangerine-42", tags=["home"])
    alice.store("The boiler is serviced every October", tags=["home"])
    retriever = EngramRetriever(client=alice, k=1, search_kwargs={"tags": ["home"]})
    (doc,) = retriever.invoke("wifi password")
    assert doc.page_content == "The wifi password is tangerine-42"
    assert doc.metadata["id"] == stored.memory_id and doc.metadata["tags"] == ["home"]
    assert doc.metadata["score"] > 0


async def test_the_retriever_async(engram_url: str):
    async with AsyncEngram(engram_url, api_key=ALICE_KEY, agent_id="langchain") as client:
        tag = f"pets-{uuid.uuid4().hex[:8]}"
        await client.store("The cat is called Miso", tags=[tag])
        retriever = EngramRetriever(aclient=client, k=3, search_kwargs={"tags": [tag]})
        docs = await retriever.ainvoke("what is the cat called")
    assert docs[0].page_content == "The cat is called Miso"


def test_the_tools(alice: Engram):
    tools = {tool.name: tool for tool in engram_tools(alice, session_id="lc-session")}
    assert set(tools) == {"remember", "store", "recall", "context"}
    assert "query" in tools["recall"].args
    said = tools["store"].invoke({"content": "Alice's dentist is Dr. Okafor", "tags": ["health"]})
    memory_id = said.removeprefix("Stored memory ").rstrip(".")
    found = tools["recall"].invoke({"query": "dentist"})
    assert f"[{memory_id}] Alice's dentist is Dr. Okafor" in found
    assert "Dr. Okafor" in tools["context"].invoke({"topic": "dentist"})
    queued = tools["remember"].invoke({"text": "I started learning the cello."})
    (job_id,) = re.findall(r"job (\S+)\)", queued)
    assert alice.wait_for_job(job_id, timeout_s=60).state == "done"


async def test_the_tools_async(engram_url: str):
    async with AsyncEngram(engram_url, api_key=ALICE_KEY, agent_id="langchain") as client:
        tools = {tool.name: tool for tool in engram_tools(aclient=client)}
        tag = uuid.uuid4().hex[:8]
        await tools["store"].ainvoke({"content": f"Code word {tag} means lunch", "tags": [tag]})
        assert f"Code word {tag}" in await tools["recall"].ainvoke({"query": f"code word {tag}"})
