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


# ---- Llama 4: llama-stack 0.2.10 (Meta's), the only package with Llama 4's tool prompt generator

GENERATORS = {"llama4": "llama_stack/models/llama/llama4/prompt_templates/system_prompts.py",
              "llama3.2": "llama_stack/models/llama/llama3/prompt_templates/system_prompts.py"}
BASE = "llama_stack/models/llama/llama3/prompt_templates/base.py"


@functools.cache
def python_list_generator(version: str):
    """llama-stack 0.2.10's ``PythonListCustomToolGenerator`` for Llama 4 or for Llama 3.2/3.3, its module
    run as it is except for its imports: importing llama_stack would pull in its server's dependencies,
    so the module's own names come from its ``prompt_templates/base.py`` (run too) and the pydantic
    types, used there only in annotations, isinstance checks of other generators and examples, are None."""
    import ast
    import types

    from tests.reference_packages import member

    def run(path: str, name: str, names: dict) -> dict:
        tree = ast.parse(member("llama-stack", path).decode("utf-8"))
        tree.body = [n for n in tree.body if not (isinstance(n, ast.ImportFrom) and (
            n.level or (n.module or "").startswith("llama_stack")))]
        module = types.ModuleType(name)
        module.__dict__.update(names)
        sys.modules[name] = module  # dataclasses look their module up there
        exec(compile(tree, path, "exec"), module.__dict__)  # noqa: S102 - the pinned reference's own code
        return module.__dict__

    base = run(BASE, "_llama_stack_0_2_10_base", {})
    module = run(GENERATORS[version], f"_llama_stack_0_2_10_{version.replace('.', '_')}", {
        "ToolDefinition": None, "ToolParamDefinition": None, "BuiltinTool": None,
        "PromptTemplate": base["PromptTemplate"], "PromptTemplateGeneratorBase": base["PromptTemplateGeneratorBase"]})
    return module["PythonListCustomToolGenerator"]


def llama4_generator():
    return python_list_generator("llama4")


class _Dumped:
    """What ``ToolDefinition.model_dump()`` gives, for the generator's ``t.model_dump()``."""

    def __init__(self, data: dict):
        self.data = data

    def model_dump(self) -> dict:
        return self.data


def llama_stack_tool(tool: dict) -> _Dumped:
    """llama-stack 0.2.10's ``_convert_openai_request_tools`` (openai_compat.py) for one OpenAI tool:
    per property ``ToolParamDefinition(param_type=str(type), description=...)`` -- every parameter
    required (the model's default), no default value -- dumped as pydantic dumps it."""
    f = tool["function"]
    params = {}
    if f.get("parameters") is not None:
        for key, value in (f["parameters"].get("properties") or {}).items():
            params[key] = {"param_type": str(value.get("type", None)), "description": value.get("description", None),
                           "required": True, "items": None, "title": None, "default": None}
    return _Dumped({"tool_name": f["name"], "description": f.get("description", None), "parameters": params})


def llama_stack_system_content(version: str, tools: list[dict], system: str | None) -> str:
    """llama-stack 0.2.10's ``augment_messages_for_tools_llama`` with its default ToolConfig (tool_choice
    auto, system_message_behavior append): the generated prompt + "\\n" + the chat's system text, the
    whole stripped of newlines."""
    sys_content = python_list_generator(version)().gen([llama_stack_tool(t) for t in tools], None).render() + "\n"
    if system is not None:
        sys_content += system
    return sys_content.strip("\n")


def llama4_system_content(tools: list[dict], system: str | None) -> str:
    return llama_stack_system_content("llama4", tools, system)
