"""Operator endpoints that need only the admin key."""

import httpx

from tests.conftest import ADMIN_KEY, ALICE_KEY, auth


async def test_debug_tasks_shows_where_each_task_waits(app_client: httpx.AsyncClient):
    assert (await app_client.get("/admin/debug/tasks", headers=auth(ALICE_KEY))).status_code == 403
    body = (await app_client.get("/admin/debug/tasks", headers=auth(ADMIN_KEY))).json()
    names = {task["name"] for task in body["tasks"]}
    assert "access-flush" in names and body["count"] == len(body["tasks"])
    flush = next(task for task in body["tasks"] if task["name"] == "access-flush")
    assert any("access.py" in frame for frame in flush["awaiting"])
