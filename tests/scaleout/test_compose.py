"""docker-compose.yml's topology: API replicas behind a load balancer (no fixed host port of
their own), readiness and heartbeat health checks."""

from pathlib import Path

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[2]


def test_the_api_scales_behind_the_load_balancer_with_real_health_checks():
    services = YAML(typ="safe").load((ROOT / "docker-compose.yml").read_text())["services"]
    api, worker, lb = services["api"], services["worker"], services["lb"]
    assert "ports" not in api  # --scale api=N needs no host port per replica
    assert "/ready" in " ".join(api["healthcheck"]["test"])
    assert worker["healthcheck"]["test"][-3:] == ["-m", "app.worker", "--healthcheck"]
    assert lb["ports"] == ["8001:8001"]
    assert lb["depends_on"]["api"]["condition"] == "service_healthy"
    mounted = lb["volumes"][0].split(":")[0]
    assert "proxy_pass $api" in (ROOT / mounted).read_text()
    assert "http://api:8001" in (ROOT / mounted).read_text()
