"""Tool (function) definitions as agent code passes them, checked before any format writes them.

The de-facto shape is OpenAI's Chat Completions ``tools`` list::

    [{"type": "function",
      "function": {"name": "get_weather", "description": "Weather in a city",
                   "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                  "required": ["city"]}}}]

Every chat format writes this list somewhere in the prompt (a tools block in the
system turn, ``[AVAILABLE_TOOLS]``, a TypeScript-like namespace in Harmony's
developer message), so the definitions cost tokens on every turn.  `check_tools`
validates the list and returns it normalised: each item is the wrapped form, the
function object holding only ``name``, ``description``, ``parameters`` (and
``strict``, which no prompt writes) in the order the caller gave them -- the
order matters, because templates dump the object as JSON.  A bare function
object (``{"name": ..., "parameters": ...}``) is wrapped.

Limits, each refused with a message naming the tool and the field: at most
`MAX_TOOLS` tools (OpenAI's own limit is 128), names as OpenAI allows them
(``[A-Za-z0-9_-]{1,64}``, so a name can never carry markup or a template's
delimiters), a schema at most `MAX_SCHEMA_DEPTH` levels deep and
`MAX_SCHEMA_CHARS` characters as JSON, and `MAX_TOOLS_CHARS` for all of them.
"""
from __future__ import annotations

import json
import re
from typing import Any, Mapping, Sequence

from ..errors import JsonLimitError
from ..formats.json_limits import load_json_bounded
from .base import ChatFormatError

MAX_TOOLS = 128
MAX_SCHEMA_DEPTH = 24
MAX_SCHEMA_CHARS = 50_000
MAX_TOOLS_CHARS = 200_000
NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
FUNCTION_KEYS = ("name", "description", "parameters", "strict")


def _depth(value: Any, limit: int, where: str, level: int = 1) -> None:
    """Refuse nesting past ``limit`` without recursing past it (a crafted schema cannot exhaust the stack)."""
    if level > limit:
        raise ChatFormatError(f"{where}: the schema is nested more than {limit} levels deep; real tool schemas "
                              "nest a few levels: flatten it")
    if isinstance(value, dict):
        for v in value.values():
            if isinstance(v, (dict, list)):
                _depth(v, limit, where, level + 1)
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, (dict, list)):
                _depth(v, limit, where, level + 1)


def check_tool(i: int, item: Any) -> dict:
    """Tool ``i`` (0-based) checked and wrapped; `ChatFormatError` names the tool and the field."""
    where = f"tool {i + 1}"
    if not isinstance(item, Mapping):
        raise ChatFormatError(f'{where} must be an object like {{"type": "function", "function": {{"name": ..., '
                              f'"parameters": {{...}}}}}}, not {type(item).__name__}')
    if "function" in item or "type" in item:
        extra = sorted(set(item) - {"type", "function"})
        if extra:
            raise ChatFormatError(f"{where}: field(s) {extra} are not part of a tool: keep 'type' and 'function'")
        if item.get("type", "function") != "function":
            raise ChatFormatError(f"{where}: type {item.get('type')!r} is not modelled: chat templates write "
                                  'function tools only; use "type": "function"')
        function = item.get("function")
        if not isinstance(function, Mapping):
            raise ChatFormatError(f"{where}: 'function' must be an object with name, description and parameters")
    else:
        function = item
    unknown = sorted(set(function) - set(FUNCTION_KEYS))
    if unknown:
        raise ChatFormatError(f"{where}: field(s) {unknown} of the function are not modelled: allowed are "
                              f"{', '.join(FUNCTION_KEYS)}")
    name = function.get("name")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        shown = name[:40] if isinstance(name, str) else type(name).__name__
        raise ChatFormatError(f"{where}: function.name {shown!r} is not a tool name: use 1 to 64 letters, digits, "
                              "'_' or '-' (OpenAI's rule)")
    where = f"tool {i + 1} ({name})"
    if "description" in function and not isinstance(function["description"], str):
        raise ChatFormatError(f"{where}: function.description must be text")
    if "strict" in function and not isinstance(function["strict"], bool):
        raise ChatFormatError(f"{where}: function.strict must be true or false")
    if "parameters" in function:
        params = function["parameters"]
        if not isinstance(params, Mapping):
            raise ChatFormatError(f"{where}: function.parameters must be a JSON Schema object, "
                                  f'e.g. {{"type": "object", "properties": {{}}}}, not {type(params).__name__}')
        _depth(params, MAX_SCHEMA_DEPTH, where + ": function.parameters")
        try:
            size = len(json.dumps(params, ensure_ascii=False))
        except (TypeError, ValueError) as error:
            raise ChatFormatError(f"{where}: function.parameters is not JSON ({error})") from None
        if size > MAX_SCHEMA_CHARS:
            raise ChatFormatError(f"{where}: function.parameters is {size:,} characters as JSON; the limit is "
                                  f"{MAX_SCHEMA_CHARS:,}: shorten its descriptions or split the tool")
    return {"type": "function", "function": {k: function[k] for k in function}}


def check_tools(tools: Sequence[Any] | None) -> tuple[dict, ...]:
    """The tools list checked and normalised (see the module docstring); ``None`` is no tools."""
    if tools is None:
        return ()
    if isinstance(tools, (str, bytes, Mapping)) or not isinstance(tools, Sequence):
        raise ChatFormatError(f"tools must be a list of tool objects, not {type(tools).__name__}")
    if len(tools) > MAX_TOOLS:
        raise ChatFormatError(f"{len(tools):,} tools; the limit is {MAX_TOOLS} (OpenAI's own): pass fewer")
    out = tuple(check_tool(i, t) for i, t in enumerate(tools))
    names = [t["function"]["name"] for t in out]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ChatFormatError(f"tool name(s) {twice} are defined twice: give each tool its own name")
    total = len(json.dumps(out, ensure_ascii=False))
    if total > MAX_TOOLS_CHARS:
        raise ChatFormatError(f"the tools are {total:,} characters as JSON; the limit is {MAX_TOOLS_CHARS:,}: "
                              "pass fewer or shorter definitions")
    return out


def arguments_object(arguments: str, what: str) -> Any:
    """A call's JSON arguments parsed, for formats that write them as JSON (bounded, so a crafted
    string is a `ChatFormatError`, never a RecursionError); text that is not JSON comes back as is."""
    try:
        return load_json_bounded(arguments, name=what)
    except JsonLimitError as error:
        raise ChatFormatError(str(error)) from None
    except ValueError:
        return arguments
