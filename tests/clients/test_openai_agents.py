"""engram_client.openai_agents on a real Engram: the Agents SDK's own FunctionTools, invoked
as the runner invokes them (`on_invoke_tool` with the model's JSON arguments), no LLM."""

import json
import re

from agents import Agent, FunctionTool
from agents.tool_context import ToolContext
from engram_client import AsyncEngram
from engram_client.openai_agents import engram_function_tools

from tests.conftest import ALICE_KEY


async def call(tool: FunctionTool, **arguments: object) -> str:
    raw = json.dumps(arguments)
    context = ToolContext(
        context=None, tool_name=tool.name, tool_call_id="call_1", tool_arguments=raw
    )
    return str(await tool.on_invoke_tool(context, raw))


async def test_remember_recall_and_context(engram_url: str):
    async with AsyncEngram(engram_url, api_key=ALICE_KEY, agent_id="agents-sdk") as client:
        made = engram_function_tools(client, session_id="oa-session", include_store=True)
        tools = {tool.name: tool for tool in made}
        assert set(tools) == {"remember", "recall", "context", "store"}
        assert tools["recall"].params_json_schema["required"] == ["query", "limit"]
        Agent(name="assistant", tools=list(made))  # the SDK accepts them

        await call(tools["store"], content="The team standup is at 9:15", tags=["work"])
        found = await call(tools["recall"], query="when is the standup", limit=3)
        assert "The team standup is at 9:15" in found
        assert "9:15" in await call(tools["context"], topic="standup")

        queued = await call(tools["remember"], text="My manager is called Priya.")
        (job_id,) = re.findall(r"job (\S+)\)", queued)
        assert (await client.wait_for_job(job_id, timeout_s=60)).state == "done"
