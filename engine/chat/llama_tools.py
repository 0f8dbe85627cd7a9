"""Llama 3.1–3.3 and Llama 4 tool definitions, written as Meta's own code writes them (llama-models, llama-stack).

llama-models 0.1.0's ``LLama31Interface.system_messages(builtin_tools, custom_tools, instruction)``
turns custom tools into two messages placed before the conversation:

- a system message: ``"Environment: ipython\\n"`` (`BuiltinToolGenerator`), ``"\\n"``, the
  knowledge and today dates (`SystemDefaultGenerator`: ``"Cutting Knowledge Date: December
  2023\\nToday Date: 25 November 2026"``, today's date as ``%d %B %Y``), then ``"\\n\\n"`` + the
  chat's own system text (the *instruction*) when there is one, then ``"\\n"``;
- a user message: `JsonCustomToolGenerator`'s text -- a preamble, one hand-laid JSON-like block
  per tool, and ``"Return function calls in JSON format."``.

The generators are Jinja templates over llama-models' flat ``ToolDefinition`` (per parameter:
type, description, required, default), not over JSON Schema, so what the model sees is lossy and
not quite JSON, and this module writes exactly that: every property is written ``"type":
"object"`` with its description (``"None"`` when it has none -- Jinja prints None so, as it does a
tool without a description), inside a *list* of one-key objects; strings are pasted between quotes
unescaped; ``"required"`` lists the required properties in the properties' order through Jinja's
``tojson`` (sorted keys, ASCII-escaped, and ``<``, ``>``, ``&``, ``'`` written ``\\u003c`` ...).
An OpenAI tool maps to a ``ToolDefinition`` field by field: name, description, and per
``parameters.properties`` entry its ``type``, ``description``, membership in ``required``,
``default``.

Llama 4 and, by name, Llama 3.2/3.3 (`python_list_system_parts`): llama-models ships no generator
for them; Meta's llama-stack 0.2.10 does
(``llama4/`` and ``llama3/prompt_templates/system_prompts.py``, ``PythonListCustomToolGenerator``: the
python-list form it uses for Llama 3.2/3.3 text models and Llama 4), and its OpenAI path
(``_convert_openai_request_tools``, then ``augment_messages_for_tools_llama`` with the default
``system_message_behavior`` "append") makes ONE system message: Meta's tool instructions, the
function list (each parameter ``"type": "{its type}"``, every one listed as required -- the converter
keeps no ``required`` and no ``default``), ``"\n"`` and the chat's system text, the whole stripped of
leading and trailing newlines.  These prompts carry no date.

Refused, with the reason: tools named like Llama's built-in tools (``brave_search`` ...:
llama-models turns those names into built-in tools with another prompt), properties that are not
objects and property descriptions that are not text (llama-models' ``ToolParamDefinition``
rejects them), a ``required`` that is not a list.
"""
from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Sequence

from .base import ChatFormatError

BUILT_IN_TOOLS = ("brave_search", "wolfram_alpha", "photogen", "code_interpreter")
PREAMBLE = ("Answer the user's question by making use of the following functions if needed.\n"
            "If none of the function can be used, please say so.\n"
            "Here is a list of functions in JSON format:\n")
CLOSING = "\nReturn function calls in JSON format."


def today() -> str:
    """Today's date as `SystemDefaultGenerator` writes it (so a count follows the calendar as Meta's does)."""
    return datetime.now().strftime("%d %B %Y")


def jinja_tojson(value: Any) -> str:
    """jinja2's built-in ``tojson`` filter: json.dumps with sorted keys, then HTML-safe escapes."""
    text = json.dumps(value, sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("'", "\\u0027")


def _properties(where: str, function: dict, reader: str) -> list[tuple[str, dict, str]]:
    """(name, schema, description as Jinja prints it) per property of `function`'s parameters, refusing what
    `reader` (llama-models or llama-stack: both read each property's type and description) cannot print."""
    properties = (function.get("parameters") or {}).get("properties") or {}
    if not isinstance(properties, dict):
        raise ChatFormatError(f"{where}: parameters.properties must be an object for Llama's tool prompt")
    out = []
    for name, prop in properties.items():
        if not isinstance(prop, dict):
            raise ChatFormatError(f"{where}: property {name!r} must be a schema object ({reader} reads its "
                                  "type and description)")
        description = prop.get("description")
        if description is not None and not isinstance(description, str):
            raise ChatFormatError(f"{where}: property {name!r} has a description that is not text")
        out.append((name, prop, "None" if description is None else description))
    return out


def _params(where: str, function: dict) -> list[tuple[str, str, bool]]:
    """(name, description as Jinja prints it, required) per property, refusing what llama-models refuses."""
    required = (function.get("parameters") or {}).get("required") or []
    properties = _properties(where, function, "llama-models")
    if not isinstance(required, list):
        raise ChatFormatError(f"{where}: parameters.required must be a list of property names")
    return [(name, description, name in required) for name, _, description in properties]


def tool_block(tool: dict) -> str:
    """One tool as `JsonCustomToolGenerator` lays it out (indentation and all)."""
    f = tool["function"]
    where = f"tool {f['name']}"
    if f["name"] in BUILT_IN_TOOLS:
        raise ChatFormatError(f"{where}: {f['name']!r} is one of Llama's built-in tools, which llama-models "
                              "announces with another prompt (not modelled here): rename the tool")
    params = _params(where, f)
    description = f.get("description")
    props = ",".join(
        "\n                {\n"
        f'                    "{name}": {{\n'
        '                        "type": "object",\n'
        f'                        "description": "{desc}"\n'
        "                    }\n"
        "                }"
        for name, desc, _ in params)
    return ("{\n"
            '    "type": "function",\n'
            '    "function": {\n'
            f'        "name": "{f["name"]}",\n'
            f'        "description": "{"None" if description is None else description}",\n'
            '        "parameters": {\n'
            '            "type": "object",\n'
            f'            "properties": [{props}\n'
            "            ],\n"
            f'            "required": {jinja_tojson([n for n, _, r in params if r])}\n'
            "        }\n"
            "    }\n"
            "}\n")


def tools_message(tools: Sequence[dict]) -> str:
    """The user message holding the function list."""
    return PREAMBLE + "".join(tool_block(t) for t in tools) + CLOSING


def system_parts(instruction: str | None, date: str) -> list[tuple[str, str]]:
    """The system message as (kind, text) pieces: "tools" for what the tools add, "content" for the
    chat's own system text; llama-models encodes them as one string."""
    parts = [("tools", f"Environment: ipython\n\nCutting Knowledge Date: December 2023\nToday Date: {date}")]
    if instruction:
        parts += [("tools", "\n\n"), ("content", instruction)]
    return parts + [("tools", "\n")]


# Meta's default python-list tool prompts (llama-stack 0.2.10 PythonListCustomToolGenerator.DEFAULT_PROMPT,
# Llama 4's and Llama 3.2/3.3's), up to where they write the function list; tests check them against that file.
LLAMA4_PROMPT = (
    'You are a helpful assistant and an expert in function composition. You can answer general questions '
    'using your internal knowledge OR invoke functions when necessary. Follow these strict guidelines:\n'
    '\n'
    '1. FUNCTION CALLS:\n'
    '- ONLY use functions that are EXPLICITLY listed in the function list below\n'
    '- If NO functions are listed (empty function list []), respond ONLY with internal knowledge or "I '
    'don\'t have access to [Unavailable service] information"\n'
    '- If a function is not in the list, respond ONLY with internal knowledge or "I don\'t have access to '
    '[Unavailable service] information"\n'
    "- If ALL required parameters are present AND the query EXACTLY matches a listed function's purpose: "
    'output ONLY the function call(s)\n'
    '- Use exact format: [func_name1(param1=value1, param2=value2), func_name2(...)]\n'
    'Examples:\n'
    'CORRECT: [get_weather(location="Vancouver"), calculate_route(start="Boston", end="New York")] <- '
    'Only if get_weather and calculate_route are in function list\n'
    'INCORRECT: get_weather(location="New York")\n'
    'INCORRECT: Let me check the weather: [get_weather(location="New York")]\n'
    'INCORRECT: [get_events(location="Singapore")] <- If function not in list\n'
    '\n'
    '2. RESPONSE RULES:\n'
    '- For pure function requests matching a listed function: ONLY output the function call(s)\n'
    '- For knowledge questions: ONLY output text\n'
    '- For missing parameters: ONLY request the specific missing parameters\n'
    '- For unavailable services (not in function list): output ONLY with internal knowledge or "I don\'t '
    'have access to [Unavailable service] information". Do NOT execute a function call.\n'
    '- If the query asks for information beyond what a listed function provides: output ONLY with '
    'internal knowledge about your limitations\n'
    '- NEVER combine text and function calls in the same response\n'
    '- NEVER suggest alternative functions when the requested service is unavailable\n'
    '- NEVER create or invent new functions not listed below\n'
    '\n'
    '3. STRICT BOUNDARIES:\n'
    '- ONLY use functions from the list below - no exceptions\n'
    '- NEVER use a function as an alternative to unavailable information\n'
    '- NEVER call functions not present in the function list\n'
    '- NEVER add explanatory text to function calls\n'
    '- NEVER respond with empty brackets\n'
    '- Use proper Python/JSON syntax for function calls\n'
    '- Check the function list carefully before responding\n'
    '\n'
    '4. TOOL RESPONSE HANDLING:\n'
    '- When receiving tool responses: provide concise, natural language responses\n'
    "- Don't repeat tool response verbatim\n"
    "- Don't add supplementary information\n"
    '\n'
)

LLAMA32_PROMPT = (
    'You are a helpful assistant. You have access to functions, but you should only use them if they are '
    'required.\n'
    'You are an expert in composing functions. You are given a question and a set of possible functions.\n'
    'Based on the question, you may or may not need to make one function/tool call to achieve the '
    'purpose.\n'
    '\n'
    'If you decide to invoke any of the function(s), you MUST put it in the format of '
    '[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]\n'
    'If you decide to invoke a function, you SHOULD NOT include any other text in the response. besides '
    'the function call in the above format.\n'
    'For a boolean parameter, be sure to use `True` or `False` (capitalized) for the value.\n'
    '\n'
    '\n'
)


def python_list_tool_block(tool: dict) -> str:
    """One tool in a python-list prompt's function list, as llama-stack's generators lay out its converted
    definition (Llama 4's and Llama 3.2's lay it out alike)."""
    f = tool["function"]
    where = f"tool {f['name']}"
    if f["name"] in BUILT_IN_TOOLS:
        raise ChatFormatError(f"{where}: {f['name']!r} is one of Llama's built-in tools, which llama-stack "
                              "announces with another prompt (not modelled here): rename the tool")
    properties = _properties(where, f, "llama-stack")
    props = []
    for name, prop, description in properties:
        props.append(f'\n                "{name}": {{\n'
                     f'                    "type": "{prop.get("type")}",\n'
                     f'                    "description": "{description}"\n'
                     "                }")
    description = f.get("description")
    return ("{\n"
            f'        "name": "{f["name"]}",\n'
            f'        "description": "{"None" if description is None else description}",\n'
            '        "parameters": {\n'
            '            "type": "dict",\n'
            f'            "required": {jinja_tojson([name for name, _, _ in properties])},\n'
            '            "properties": {' + ",".join(props) + "\n"
            "            }\n"
            "        }\n"
            "    }")


LISTS = {  # (prompt, the list's heading, what follows the list) per python-list version
    "llama4": (LLAMA4_PROMPT, "Here is a list of functions in JSON format that you can invoke:\n", ""),
    "llama3.2": (LLAMA32_PROMPT, "Here is a list of functions in JSON format that you can invoke.\n\n",
                 "\n\nYou can answer general questions or invoke tools when necessary.\n"
                 "In addition to tool calls, you should also augment your responses by using the tool outputs."),
}


def python_list_system_parts(version: str, tools: Sequence[dict], system: str | None) -> list[tuple[str, str]]:
    """The system message with tools of Llama 4 or Llama 3.2/3.3 (llama-stack's python-list prompt) as
    (kind, text) pieces ("tools" / "content"), encoded as one string."""
    prompt, heading, after = LISTS[version]
    listing = heading + "[\n    " + ",\n    ".join(python_list_tool_block(t) for t in tools) + "\n]" + after
    parts = [("tools", prompt + listing)]
    kept = (system or "").rstrip("\n")  # the whole message is stripped of newlines at its ends
    return parts + ([("tools", "\n"), ("content", kept)] if kept else [])


def python_list_value(value: Any) -> str:
    """A call argument as llama-models' ToolUtils writes it in ToolPromptFormat.python_list."""
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (int, float, bool)) or value is None:
        return str(value)
    if isinstance(value, list):
        return f"[{', '.join(python_list_value(v) for v in value)}]"
    return "{" + ", ".join(f"{k}={python_list_value(v)}" for k, v in value.items()) + "}"


def python_list_call(name: str, arguments: Any) -> str:
    """``[name(key=value, ...)]``: a past call as llama-models writes it for Llama 3.2/3.3 (python_list)."""
    if not isinstance(arguments, dict):
        raise ChatFormatError(f"the call to {name!r}: Llama 3.2's python-list form writes arguments key by key, so "
                              "they must be a JSON object")
    return f"[{name}({', '.join(f'{k}={python_list_value(v)}' for k, v in arguments.items())})]"
