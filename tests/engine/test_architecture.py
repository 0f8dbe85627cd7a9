"""The engine's shape: no import circle, no UI library, one contract every family keeps.

The import graph is read with `ast` from every import statement (late and type-only ones
included), so a circle cannot hide inside a function.  Pickling by name needs no late import:
the registry hands its lookup to `engine.pickling` (see there).  Should one labelled late import
ever be needed, it goes in ALLOWED_CYCLE_EDGES with its reason, and nowhere else.
"""
from __future__ import annotations

import ast
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from engine.api import EncodingAPI

ROOT = Path(__file__).resolve().parents[2]

ALLOWED_CYCLE_EDGES: set[tuple[str, str]] = set()  # (importer, imported): none today


def module_graph(top: str) -> dict[str, set[str]]:
    """Module -> the modules of `top` it imports (every import statement counted)."""
    files: dict[str, Path] = {}
    for path in (ROOT / top).rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        files[name.removesuffix(".__init__")] = path
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                subs = [f"{base}.{a.name}" for a in node.names]
                # `from pkg import mod` depends on pkg.mod (and pkg's __init__ only if a name is not a module)
                targets = subs + ([] if all(t in files for t in subs) else [base])
            for target in targets:
                while target and target not in files:
                    target = target.rpartition(".")[0]
                # a package's __init__ importing its own submodules is not a circle through them
                if target and target != name and not (path.name == "__init__.py" and target.startswith(name + ".")):
                    deps.add(target)
        graph[name] = deps
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for dep in sorted(graph.get(node, ())):
            if (node, dep) in ALLOWED_CYCLE_EDGES:
                continue
            if state.get(dep) == 1:
                return path[path.index(dep):] + [dep]
            if dep not in state:
                found = visit(dep, path + [dep])
                if found:
                    return found
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start, [start])
            if found:
                return found
    return None


def test_engine_has_no_import_cycle():
    graph = module_graph("engine")
    assert "engine.tokenizer.encoding" in graph or any(m.endswith(".encoding") for m in graph)
    cycle = find_cycle(graph)
    assert cycle is None, " -> ".join(cycle)


def test_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_import_engine_imports_no_ui_library():
    code = ("import sys, engine, engine.chat, engine.api; "
            "print(sorted(m for m in ('streamlit', 'pandas', 'altair') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "[]"


@pytest.mark.heavy
def test_every_builtin_keeps_the_family_contract():
    for name in engine.list_tokenizer_names():
        enc = engine.get_encoding(name)
        assert isinstance(enc, EncodingAPI), name


def test_builtins_pickle_by_name_and_others_by_data():
    enc = engine.get_encoding("gpt2")
    assert pickle.loads(pickle.dumps(enc)) is enc
    trained = engine.train_bpe("hello world, hello there " * 20, 270)
    copy = pickle.loads(pickle.dumps(trained))
    assert copy is not trained and copy.encode("hello there") == trained.encode("hello there")


# The floors of the engine, bottom-up: a module imports only from its own floor or below.
LAYERS = (
    ("engine.records", "engine.errors", "engine.text", "engine.api", "engine.pickling", "engine.deadline"),
    ("engine.tokenizer",),
    ("engine.training",),
    ("engine.formats",),
    ("engine.families",),
    ("engine.sources",),
    ("engine.explain", "engine.chat"),
    ("engine",),
)


def floor_of(module: str) -> int:
    best, floor = -1, -1
    for i, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, floor = len(prefix), i
    return floor


def test_engine_imports_run_one_way():
    graph = module_graph("engine")
    upward = [f"{m} (floor {floor_of(m)}) imports {d} (floor {floor_of(d)})"
              for m, deps in sorted(graph.items()) for d in sorted(deps) if floor_of(d) > floor_of(m)]
    assert not upward, "\n".join(upward)


def test_public_api_fits_on_one_screen():
    """tiktoken's names, the typed errors, the family contract and its records, one entry point per explainer."""
    assert len(engine.__all__) <= 40 and len(set(engine.__all__)) == len(engine.__all__)
    assert engine.__all__[:5] == ["Encoding", "get_encoding", "list_encoding_names", "encoding_for_model",
                                  "encoding_name_for_model"]
    assert not hasattr(engine, "list_encodings")
    for name in engine.__all__:
        assert hasattr(engine, name), name
