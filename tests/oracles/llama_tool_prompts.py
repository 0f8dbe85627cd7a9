"""Meta's Llama 3.1 tool system prompt, written by llama-models' own generators (test-only).

llama-models 0.3.0 (installed) encodes messages and tool calls but no longer ships the code that
writes tool definitions; llama-models 0.1.0 does: ``llama3/prompt_templates/system_prompts.py``
(`BuiltinToolGenerator`, `SystemDefaultGenerator`, `JsonCustomToolGenerator`) assembled by
``llama3/api/interface.py``'s ``LLama31Interface.system_messages(builtin_tools, custom_tools,
instruction)``: a system message ("Environment: ipython", the knowledge/today dates, the
instruction) and a user message holding the JSON function list.  This module imports that
release's package from the pinned wheel (`tests/reference_packages.py`) under its own
``sys.modules`` entries, then puts the installed 0.3.0 back, so both can be used side by side.

An OpenAI-style tool becomes 0.1.0's ``ToolDefinition`` by the obvious field mapping (llama-models
has no converter of its own): ``tool_name`` = name, ``description`` as given (absent: None), and per
JSON-Schema property a ``ToolParamDefinition(param_type=<its "type">, description=<its
"description">, required=<listed in "required">, default=<its "default">)``.
"""
from __future__ import annotations

import functools
import sys
import zipfile

from tests.reference_packages import archive, cache_dir


@functools.cache
def llama_models_010():
    """(api.interface module, api.datatypes module) of llama-models 0.1.0."""
    root = cache_dir() / "files" / "llama-models-0.1.0"
    if not (root / "llama_models" / "__init__.py").exists():
        with zipfile.ZipFile(archive("llama-models")) as z:
            z.extractall(root, [n for n in z.namelist() if n.startswith("llama_models/")])
    saved = {k: v for k, v in sys.modules.items() if k == "llama_models" or k.startswith("llama_models.")}
    for k in saved:
        del sys.modules[k]
    sys.path.insert(0, str(root))
    try:
        import llama_models.llama3.api.datatypes as datatypes
        import llama_models.llama3.api.interface as interface
        return interface, datatypes
    finally:
        sys.path.remove(str(root))
        for k in [k for k in sys.modules if k == "llama_models" or k.startswith("llama_models.")]:
            del sys.modules[k]
        sys.modules.update(saved)


def tool_definition(datatypes, tool: dict):
    f = tool["function"]
    schema = f.get("parameters") or {}
    required = schema.get("required") or []
    params = {name: datatypes.ToolParamDefinition(param_type=str(p.get("type")), description=p.get("description"),
                                                  required=name in required, default=p.get("default"))
              for name, p in (schema.get("properties") or {}).items()}
    return datatypes.ToolDefinition(tool_name=f["name"], description=f.get("description"), parameters=params)


def system_messages(tools: list[dict], instruction: str | None) -> list[tuple[str, str]]:
    """(role, content) of the messages ``LLama31Interface.system_messages(builtin_tools=[],
    custom_tools=..., instruction=...)`` makes with ToolPromptFormat.json, run as it is (called on a
    stand-in ``self``: its constructor would load the tokenizer, which this method does not use)."""
    from types import SimpleNamespace
    interface, datatypes = llama_models_010()
    custom = [tool_definition(datatypes, t) for t in tools]
    me = SimpleNamespace(tool_prompt_format=datatypes.ToolPromptFormat.json)
    msgs = interface.LLama31Interface.system_messages(me, builtin_tools=[], custom_tools=custom, instruction=instruction)
    return [(m.role, m.content) for m in msgs]
