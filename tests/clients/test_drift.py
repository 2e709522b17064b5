"""The client against the service's own OpenAPI document: every recall parameter is taken,
and every field the client's models read exists in the answer's schema."""

import json
import subprocess
import sys
import typing
import zipfile
from pathlib import Path

import pytest
from engram_client import models, params

from app.main import create_app
from tests.conftest import test_settings

CLIENT = Path(__file__).parents[2] / "clients" / "python"


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> dict:
    settings = test_settings(tmp_path_factory.mktemp("spec"), falkordb_url="redis://127.0.0.1:9")
    return json.loads(json.dumps(create_app(settings).openapi()))


def schema(spec: dict, name: str) -> set[str]:
    return set(spec["components"]["schemas"][name]["properties"])


def test_recall_takes_every_parameter_of_get_recall(spec: dict):
    operation = spec["paths"]["/recall"]["get"]
    served = {p["name"] for p in operation["parameters"] if p["in"] == "query"}
    assert set(typing.get_type_hints(params.RecallParams)) | {"query"} == served
    assert served == schema(spec, "RecallRequest")


@pytest.mark.parametrize(
    ("model", "served"),
    [
        (models.Memory, "MemoryOut"),
        (models.Stored, "StoreResponse"),
        (models.StoredBatch, "BatchResponse"),
        (models.MemoryPage, "ListResponse"),
        (models.RecallItem, "RecallItem"),
        (models.Recalled, "RecallResponse"),
        (models.Context, "ContextResponse"),
        (models.Startup, "StartupResponse"),
        (models.RememberJob, "RememberJob"),
        (models.Profile, "ProfileResponse"),
        (models.ProfileFact, "ProfileFact"),
        (models.ArtifactMeta, "ArtifactMeta"),
        (models.ArtifactList, "ArtifactListResponse"),
    ],
)
def test_model_fields_exist_in_the_document(spec: dict, model: type, served: str):
    assert set(model.model_fields) - schema(spec, served) == set()


@pytest.mark.parametrize(
    ("typed", "served"),
    [
        (params.MemoryFields, "MemoryCreate"),
        (params.MemoryChanges, "MemoryUpdate"),
        (params.ContextParams, "ContextRequest"),
        (params.RememberParams, "RememberRequest"),
        (params.Message, "MessageIn"),
    ],
)
def test_parameters_exist_in_the_document(spec: dict, typed: type, served: str):
    assert set(typing.get_type_hints(typed)) - schema(spec, served) == set()


def test_the_built_wheel_installs_and_imports_on_its_own(tmp_path: Path):
    """`pip install ./clients/python`, offline: the wheel holds the package and its type marker,
    and imports from outside the checkout."""
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    build = [*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", "wheels"]
    subprocess.run([*build, str(CLIENT)], cwd=tmp_path, check=True, timeout=300)
    (wheel,) = (tmp_path / "wheels").glob("engram_client-*.whl")
    assert "engram_client/py.typed" in zipfile.ZipFile(wheel).namelist()
    install = [*pip, "install", "--no-deps", "--no-index", "--target", "site", str(wheel)]
    subprocess.run(install, cwd=tmp_path, check=True, timeout=300)
    probe = "import engram_client, engram_client.langgraph; print(engram_client.__file__)"
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, 'site'); {probe}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(str(tmp_path / "site"))


@pytest.mark.parametrize(
    ("adapter", "framework", "extra"),
    [
        ("langgraph", "langgraph", "langgraph"),
        ("langchain", "langchain_core", "langchain"),
        ("openai_agents", "agents", "openai-agents"),
        ("llamaindex", "llama_index", "llamaindex"),
    ],
)
def test_an_adapter_without_its_framework_names_the_extra(adapter, framework, extra):
    hidden = f"import sys; sys.modules[{framework!r}] = None; import engram_client.{adapter}"
    done = subprocess.run(
        [sys.executable, "-c", hidden], capture_output=True, text=True, timeout=120
    )
    assert f'pip install "engram-client[{extra}]"' in done.stderr
