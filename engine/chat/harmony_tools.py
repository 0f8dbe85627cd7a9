"""Harmony's tool definitions: JSON Schema written as a TypeScript-like namespace, as openai-harmony writes it.

gpt-oss reads function tools in the developer message as::

    # Tools

    ## functions

    namespace functions {

    // Current weather in a city.
    type get_weather = (_: {
    // City name
    city: string,
    unit?: "celsius" | "fahrenheit",
    }) => any;

    } // namespace functions

`schema_to_typescript` follows openai-harmony 0.0.8's ``json_schema_to_typescript``
(src/encoding.rs) rule by rule, quirks included, because the count is of what
that code writes: an object's own description comes before its ``{``; nested
objects indent by four spaces but a ``oneOf`` variant by three; ``integer``
becomes ``number``; ``enum`` is honoured for strings only; a ``title`` is a
comment followed by an empty ``//`` line; ``examples`` (strings only) and
``default`` become comments; ``nullable`` appends ``| null``; properties keep
the caller's order (serde_json with ``preserve_order``).  Anything else is
``any``.  Tool descriptions are split into lines as Rust's ``str::lines`` splits
them (a trailing newline makes no empty line; ``\\r\\n`` ends a line too).
"""
from __future__ import annotations

import json
from typing import Any, Sequence


def _get(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _json(value: Any) -> str:
    """serde_json's Display of a value: compact JSON."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def rust_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _is_enum(schema: Any) -> bool:
    e = _get(schema, "enum")
    return isinstance(e, list) and bool(e)


def _default_comment(value: Any, schema: Any, *, enum_raw: bool) -> str:
    """The text after ``default: ``: a string quoted as is, or -- in an enum -- bare (``enum_raw``) or as
    JSON (a top-level ``oneOf`` variant); anything else as compact JSON."""
    if isinstance(value, str) and not _is_enum(schema):
        return f'"{value}"'
    if isinstance(value, str) and enum_raw:
        return value
    return _json(value)


def _nullable(variant: Any, type_str: str) -> str:
    if _get(variant, "nullable") is True and "null" not in type_str:
        return f"{type_str} | null"
    return type_str


def schema_to_typescript(schema: Any, indent: str) -> str:
    one_of = _get(schema, "oneOf")
    if isinstance(one_of, list):
        out = ""
        for variant in one_of:
            out += f"\n{indent} | "
            out += _nullable(variant, schema_to_typescript(variant, indent + "   "))
            comments = []
            desc = _str(_get(variant, "description"))
            if desc is not None:
                comments.append(desc)
            if isinstance(variant, dict) and "default" in variant:
                comments.append(f"default: {_default_comment(variant['default'], variant, enum_raw=False)}")
            if comments:
                out += f" // {' '.join(comments)}"
        return out
    types = _get(schema, "type")
    if isinstance(types, list):
        names = ["number" if t == "integer" else t for t in types if isinstance(t, str)]
        if names:
            return " | ".join(names)
    ty = _str(types)
    if ty is None:
        return "any"
    if ty == "object":
        return _object(schema, indent)
    if ty == "string":
        values = _get(schema, "enum")
        if isinstance(values, list):
            enums = [f'"{v}"' for v in values if isinstance(v, str)]
            if enums:
                return " | ".join(enums)
        return "string"
    if ty in ("number", "integer"):
        return "number"
    if ty == "boolean":
        return "boolean"
    if ty == "array":
        if isinstance(schema, dict) and "items" in schema:
            return f"{schema_to_typescript(schema['items'], indent)}[]"
        return "Array<any>"
    return "any"


def _object(schema: dict, indent: str) -> str:
    out = ""
    desc = _str(schema.get("description"))
    if desc is not None:
        out += f"{indent}// {desc}\n"
    out += "{\n"
    props = schema.get("properties")
    if isinstance(props, dict):
        req = schema.get("required")
        required = {r for r in req if isinstance(r, str)} if isinstance(req, list) else set()
        for key, val in props.items():
            mark = "" if key in required else "?"
            title = _str(_get(val, "title"))
            if title is not None:
                out += f"{indent}// {title}\n{indent}//\n"
            one_of = _get(val, "oneOf")
            if one_of is None:
                d = _str(_get(val, "description"))
                if d is not None:
                    out += f"{indent}// {d}\n"
            examples = _get(val, "examples")
            if isinstance(examples, list) and examples:
                out += f"{indent}// Examples:\n"
                for ex in examples:
                    if isinstance(ex, str):
                        out += f'{indent}// - "{ex}"\n'
            if isinstance(one_of, list):
                out += _one_of_property(key, mark, val, one_of, indent)
                continue
            type_str = _nullable(val, schema_to_typescript(val, indent + "    "))
            out += f"{indent}{key}{mark}: {type_str},"
            if one_of is None and isinstance(val, dict) and "default" in val:
                out += f" // default: {_default_comment(val['default'], val, enum_raw=True)}"
            out += "\n"
    return out + f"{indent}}}"


def _one_of_property(key: str, mark: str, val: dict, variants: list, indent: str) -> str:
    out = ""
    prop_desc = _str(val.get("description"))
    skip = prop_desc is not None and bool(variants) and _str(_get(variants[0], "description")) == prop_desc
    above = False
    if not skip and prop_desc is not None:
        out += f"{indent}// {prop_desc}\n"
        above = True
    if "default" in val:
        out += f"{indent}// default: {_default_comment(val['default'], val, enum_raw=True)}\n"
    out += f"{indent}{key}{mark}:\n"
    for i, variant in enumerate(variants):
        out += f"{indent} | " + _nullable(variant, schema_to_typescript(variant, indent + "   "))
        comments = []
        d = _str(_get(variant, "description"))
        if not (i == 0 and above) and d is not None and d != prop_desc:
            comments.append(d)
        if isinstance(variant, dict) and "default" in variant:
            comments.append(f"default: {_default_comment(variant['default'], variant, enum_raw=True)}")
        if comments:
            out += f" // {' '.join(comments)}"
        out += "\n"
    return out + f"{indent},\n"


def tools_section(tools: Sequence[dict]) -> str:
    """The ``# Tools`` section of the developer message for function tools (openai-harmony's
    ``template_tools_section`` with the one namespace ``functions``, which has no description)."""
    lines = ["## functions\n", "namespace functions {\n"]
    for tool in tools:
        f = tool["function"]
        lines.extend(f"// {line}" for line in rust_lines(f.get("description") or ""))
        if f.get("parameters") is not None:
            lines.append(f"type {f['name']} = (_: {schema_to_typescript(f['parameters'], '')}) => any;\n")
        else:
            lines.append(f"type {f['name']} = () => any;\n")
    lines.append("} // namespace functions")
    return "# Tools\n\n" + "\n".join(lines)
