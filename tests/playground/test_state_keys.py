"""Each session and widget key is declared once, in playground/state.py: views and widgets name keys by
state's constants, never by a string of their own (a renamed key can then not drop out of the share links
or the persistence checks quietly)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from playground import state

PLAYGROUND = Path(__file__).resolve().parents[2] / "playground"
# views and the widgets they share; components keep their own instance keys (KEY) beside their .js
MODULES = sorted([*(PLAYGROUND / "views").rglob("*.py"), *(PLAYGROUND / "widgets").rglob("*.py")])
STATE_METHODS = ("get", "setdefault", "pop")


def _literal(node: ast.AST) -> bool:
    """A key spelled here: a string, an f-string or a concatenation that starts with text of its own."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return bool(node.values) and isinstance(node.values[0], ast.Constant)
    if isinstance(node, ast.BinOp):
        return _literal(node.left)
    return False


def _key_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every expression used as a key: key=..., session_state[...], session_state.get/setdefault/pop(...),
    ... in session_state (also through a local name for it, ``ss = st.session_state``)."""
    aliases = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
               and ast.unparse(node.value).endswith("session_state") for t in node.targets if isinstance(t, ast.Name)}

    def is_state(node: ast.AST) -> bool:
        return ast.unparse(node).endswith("session_state") or (isinstance(node, ast.Name) and node.id in aliases)

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            found += [kw.value for kw in node.keywords if kw.arg == "key"]
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in STATE_METHODS and node.args and is_state(func.value):
                found.append(node.args[0])
        elif isinstance(node, ast.Subscript) and is_state(node.value):
            found.append(node.slice)
        elif isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.In, ast.NotIn)) and is_state(node.comparators[0]):
            found.append(node.left)
    return found


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PLAYGROUND)))
def test_keys_are_state_constants(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    keys = _key_nodes(tree)
    spelled = [f"line {k.lineno}: {ast.unparse(k)}" for k in keys if _literal(k)]
    assert not spelled, f"declare these keys in playground/state.py and use the constant: {spelled}"
    # a module-level NAME = "..." used as a key is a second declaration too
    used = set().union(*map(_names, keys)) if keys else set()
    own = [f"line {n.lineno}: {n.targets[0].id}" for n in tree.body
           if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name) and n.targets[0].id in used
           and _literal(n.value)]
    assert not own, f"these key constants belong in playground/state.py: {own}"


def test_page_keys_are_declared_constants():
    """The share link's per-page keys are state's own constants, each with its link check."""
    declared = {v for k, v in vars(state).items() if k.isupper() and isinstance(v, str)}
    listed = {k for keys in state.PAGE_KEYS.values() for k in keys}
    assert listed <= declared, sorted(listed - declared)
    assert listed <= set(state.LINK_VALUES), sorted(listed - set(state.LINK_VALUES))
