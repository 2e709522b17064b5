"""Every request dependency alias (`…Dep = Annotated[T, Depends(f)]`) declares the type its
function returns: mypy cannot see through Annotated's metadata, so this holds them together."""

import importlib
import pkgutil
import typing
from collections.abc import Iterator
from types import ModuleType

import app
from app.deps import from_runtime


def _modules() -> Iterator[ModuleType]:
    for info in pkgutil.walk_packages(app.__path__, "app."):
        if info.name.endswith(("dependencies", "router", "deps")) or info.name == "app.deps":
            yield importlib.import_module(info.name)


def _aliases() -> dict[str, tuple[object, typing.Callable[..., object]]]:
    found = {}
    for module in _modules():
        for name, value in vars(module).items():
            args = typing.get_args(value) if name.endswith("Dep") else ()
            depends = [a for a in args[1:] if getattr(a, "dependency", None)]
            if depends:
                found[f"{module.__name__}.{name}"] = (args[0], depends[0].dependency)
    return found


def test_each_alias_declares_what_its_dependency_returns() -> None:
    aliases = _aliases()
    assert {"app.deps.JobsDep", "app.recall.dependencies.AccessDep"} <= set(aliases)
    wrong = {
        name: (declared, typing.get_type_hints(call).get("return"))
        for name, (declared, call) in aliases.items()
        if typing.get_type_hints(call).get("return") != declared
    }
    assert wrong == {}


def test_the_runtimes_parts_are_marked_for_the_503_they_answer_before_start_up() -> None:
    runtime_parts = {name for name, (_, call) in _aliases().items() if from_runtime(call)}
    assert {
        "app.deps.JobsDep",
        "app.deps.RuntimeKeysDep",
        "app.recall.dependencies.RecallConfigDep",
        "app.memories.dependencies.TtlDefaultsDep",
        "app.ops.router.DriftDep",
    } <= runtime_parts
    assert "app.deps.ScopeDep" not in runtime_parts
