"""The "does not import another domain's routes" contracts (pyproject.toml) cover every route
module: each domain that has routes has one, and each forbids every module that makes an
APIRouter outside its own package. A new route module that no contract names fails here, not
silently in lint-imports."""

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUFFIX = " does not import another domain's routes"
# A face, not a domain: the layers contract already keeps every domain from importing it.
FACES = {"app.console"}


def makes_a_router(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name == "APIRouter":
                return True
    return False


def route_modules() -> list[str]:
    found = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        if makes_a_router(ast.parse(path.read_text())):
            found.append(".".join(path.relative_to(ROOT).with_suffix("").parts))
    return found


def route_contracts() -> dict[str, list[str]]:
    """Source package -> its forbidden module expressions."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = {}
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract["name"].endswith(SUFFIX):
            [source] = contract["source_modules"]
            contracts[source] = contract["forbidden_modules"]
    return contracts


def forbids(expression: str, module: str) -> bool:
    """import-linter's rule: `*` is one module name, `**` one or more; a forbidden module is a
    package (its submodules are forbidden too)."""
    parts = expression.split(".")
    words = ["[^.]+" if p == "*" else ".+" if p == "**" else re.escape(p) for p in parts]
    return re.fullmatch(r"\.".join(words) + r"(\..+)?", module) is not None


def domain(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_the_scan_finds_the_route_modules():
    found = route_modules()
    assert {"app.memories.router", "app.ops.admin", "app.sessions.profile_router"} <= set(found)


def test_every_domain_with_routes_has_a_contract():
    domains = {domain(module) for module in route_modules()} - FACES
    assert sorted(domains - set(route_contracts())) == []


def test_every_contract_forbids_every_other_domains_route_modules():
    uncovered = [
        (source, module)
        for source, forbidden in route_contracts().items()
        for module in route_modules()
        if domain(module) != source and not any(forbids(e, module) for e in forbidden)
    ]
    assert uncovered == []
