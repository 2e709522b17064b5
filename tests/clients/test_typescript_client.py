"""The TypeScript client (clients/typescript) against a live Engram: its own suite under Node's
test runner (memories, recall, remember, artifacts, export, retries, the Vercel AI SDK tools),
its strict type check and the committed build and generated types being current, and the docs'
examples run as written in a fresh project that installs the package.

`make test` installs the package's dev dependencies first (`npm ci`, the stamp in the Makefile);
run alone: `make clients/typescript/node_modules/.installed` once, then pytest."""

import asyncio
import difflib
import json
import os
import re
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.conftest import ALICE_KEY, BOB_KEY, test_settings
from tests.live import live_server

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "typescript"
DOCS = [ROOT / "docs" / "clients" / "typescript.md", ROOT / "docs" / "clients" / "vercel-ai.md"]
NODE, NPM = shutil.which("node"), shutil.which("npm")
# A fenced block is an example to run when its info string is exactly `ts`; `ts no-run` marks
# one that needs what a test cannot have (a model).
EXAMPLE = re.compile(r"^```ts\n(.*?)^```$", re.MULTILINE | re.DOTALL)

pytestmark = pytest.mark.skipif(NODE is None or NPM is None, reason="Node.js and npm are needed")


async def run(*command: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 600):
    """Runs a command without blocking the loop the live server answers in; (exit code, output)."""
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=cwd,
        env=os.environ | {"NO_UPDATE_NOTIFIER": "1", "npm_config_fund": "false"} | (env or {}),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), timeout)
    return process.returncode, output.decode(errors="replace")


async def check(*command: str, cwd: Path = CLIENT, env: dict[str, str] | None = None) -> str:
    code, output = await run(*command, cwd=cwd, env=env)
    assert code == 0, f"{' '.join(command)} exited {code} in {cwd}:\n{output}"
    return output


@pytest.fixture(scope="module")
def installed() -> None:
    if not (CLIENT / "node_modules" / ".package-lock.json").exists():
        pytest.fail(
            "clients/typescript has no node_modules: `make clients/typescript/node_modules/"
            ".installed` (what `make test` does first)"
        )


@pytest.fixture(scope="module")
async def engram(
    falkordb_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[dict[str, str]]:
    """A live Engram with a worker (remember jobs finish), and one without (they stay queued),
    as the environment the tests read."""
    working = test_settings(tmp_path_factory.mktemp("ts"), falkordb_url=falkordb_url, workers=1)
    idle = test_settings(tmp_path_factory.mktemp("ts_idle"), falkordb_url=falkordb_url)
    async with live_server(working) as url, live_server(idle) as idle_url:
        yield {
            "ENGRAM_URL": url,
            "ENGRAM_IDLE_URL": idle_url,
            "ENGRAM_API_KEY": ALICE_KEY,
            "ENGRAM_OTHER_API_KEY": BOB_KEY,
        }


async def test_the_client_suite_passes_against_a_live_engram(installed, engram):
    output = await check(NPM or "npm", "test", env=engram)
    passed = re.search(r"^ℹ pass (\d+)$", output, re.MULTILINE)
    assert passed and int(passed.group(1)) > 0 and "ℹ fail 0" in output, output


async def test_the_sources_compile_strictly_to_the_committed_build(installed, tmp_path: Path):
    """The strict type check (tsconfig.json, as `npm run typecheck` and `make lint` run it) and
    dist/, which is committed (so `npm install ./clients/typescript` needs no build): it must be
    what the sources compile to."""
    await check("node_modules/.bin/tsc", "-p", "tsconfig.build.json", "--outDir", str(tmp_path))
    shutil.copyfile(CLIENT / "src" / "schema.d.ts", tmp_path / "schema.d.ts")
    built, committed = files_below(tmp_path), files_below(CLIENT / "dist")
    assert committed == built, "run `npm run build` in clients/typescript and commit dist/"
    for name in built:
        assert (tmp_path / name).read_text() == (CLIENT / "dist" / name).read_text(), (
            f"dist/{name} is stale: run `npm run build` in clients/typescript and commit dist/"
        )


async def test_the_generated_types_match_the_api(installed, tmp_path: Path):
    """src/schema.d.ts is generated from the app's OpenAPI document; a changed API must
    regenerate it (`npm run generate` in clients/typescript)."""
    generated = tmp_path / "schema.d.ts"
    await check(
        "sh", "scripts/generate-schema.sh", str(generated), env={"ENGRAM_PYTHON": sys.executable}
    )
    committed = (CLIENT / "src" / "schema.d.ts").read_text()
    if generated.read_text() != committed:
        diff = difflib.unified_diff(
            committed.splitlines(), generated.read_text().splitlines(), lineterm="", n=1
        )
        pytest.fail(
            "src/schema.d.ts is not the API's: run `npm run generate` in clients/typescript "
            "(then `npm run build`)\n" + "\n".join(list(diff)[:80])
        )


async def test_the_docs_examples_run_in_a_fresh_project(installed, engram, tmp_path: Path):
    """As a reader would: a new project installs the package from the checkout (with the AI SDK
    and zod, from npm's cache when it holds them), compiles each example strictly, runs it."""
    examples = [block for page in DOCS for block in EXAMPLE.findall(page.read_text())]
    assert len(examples) >= 2
    (tmp_path / "package.json").write_text('{"name": "example", "private": true, "type": "module"}')
    await check(
        NPM or "npm",
        "install",
        "--prefer-offline",
        "--no-audit",
        "--install-links",
        str(CLIENT),
        *pinned("ai", "zod", "typescript", "@types/node"),
        cwd=tmp_path,
    )
    (tmp_path / "tsconfig.json").write_text(
        '{"compilerOptions": {"target": "ES2022", "module": "NodeNext", "strict": true,'
        ' "skipLibCheck": true, "types": ["node"], "outDir": "out"}}'
    )
    for number, example in enumerate(examples):
        (tmp_path / f"example{number}.ts").write_text(example)
    await check("node_modules/.bin/tsc", "-p", ".", cwd=tmp_path)
    for number in range(len(examples)):
        await check("node", f"out/example{number}.js", cwd=tmp_path, env=engram)


def files_below(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def pinned(*names: str) -> list[str]:
    """`name@version` as clients/typescript pins them, so the fresh project gets the same."""
    pins = json.loads((CLIENT / "package.json").read_text())["devDependencies"]
    return [f"{name}@{pins[name]}" for name in names]
