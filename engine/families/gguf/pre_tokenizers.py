"""``tokenizer.ggml.pre`` names -> the model makers' own text rules, as their ``tokenizer.json`` writes them.

A GGUF file names its pre-tokenizer (``llama-bpe``, ``qwen2`` ...) instead of
storing it; llama.cpp keeps hand-adapted regexes for each name in
``src/llama-vocab.cpp``.  This table holds, for every name served exactly, the
``normalizer`` and ``pre_tokenizer`` nodes of the makers' ``tokenizer.json``
(copied from the released files: Llama 3, Qwen 2/2.5/3, Qwen 3.5, DeepSeek LLM,
DeepSeek Coder, DeepSeek V3; GPT-2, GPT-NeoX/MPT, Falcon, StarCoder, Refact,
Command-R; GPT-4o and Tekken, whose vocabularies are tiktoken's), so the engine's Hugging Face pipeline runs them as ``tokenizers``
does -- and llama.cpp's test vectors, made with ``tokenizers``, check each one
that has vectors (all but ``gpt-4o`` and ``tekken``: their patterns are the
engine's own o200k and Tekken patterns, exact on the tiktoken families).
`ignore_merges` is the BPE model's flag in those files (Llama 3 sets it).

A name not in the table is refused by name (`UnknownPreTokenizer`): guessing a
split pattern would give plausible, silently wrong ids.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...tokenizer.patterns import O200K_PAT_STR
from ..tiktoken_models.specs import TEKKEN_PAT_STR

__all__ = ["PRE_TOKENIZERS", "TextRules", "rules_for"]

_BYTE_LEVEL_SPLIT = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}


def _split(pattern: str) -> dict:
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}


def _then_bytes(*steps: dict, trim_offsets: bool = True) -> dict:
    return {"type": "Sequence", "pretokenizers": [
        *steps, {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": trim_offsets, "use_regex": False}]}


@dataclass(frozen=True)
class TextRules:
    """What a ``tokenizer.json`` of that family says before the BPE model runs."""

    normalizer: Any
    pre_tokenizer: Any
    ignore_merges: bool = False
    makers: str = ""  # whose tokenizer.json this is


_LLAMA3 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
           r"|\s+(?!\S)|\s+")
_QWEN2 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
          r"|\s+(?!\S)|\s+")
_QWEN35 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"
           r"|\s*[\r\n]+|\s+(?!\S)|\s+")
_DEEPSEEK_LETTERS = (  # escaped: an editor that normalizes text must not compose these ranges
    "\\s?[A-Za-z\xb5\xc0-\xd6\xd8-\xf6\xf8-\u01ba\u01bc-\u01bf\u01c4-\u0293\u0295-\u02af\u0370-\u0373\u0376\u0377\u037b-\u037d\u037f\u0386\u0388-\u038a\u038c\u038e-\u03a1\u03a3-\u03f5\u03f7-\u0481\u048a-\u052f\u0531-\u0556\u10a0-\u10c5\u13a0-\u13f5\u13f8-\u13fd\u1c90-\u1cba\u1cbd-\u1cbf\u1d00-\u1d2b\u1d6b-\u1d77\u1d79-\u1d9a\u1e00-\u1f15\u1f18-\u1f1d\u1f20-\u1f45\u1f48-\u1f4d\u1f50-\u1f57\u1f59\u1f5b\u1f5d\u1f5f-\u1f7d\u1f80-\u1fb4\u1fb6-\u1fbc\u1fbe\u1fc2-\u1fc4\u1fc6-\u1fcc\u1fd0-\u1fd3\u1fd6-\u1fdb\u1fe0-\u1fec\u1ff2-\u1ff4\u1ff6-\u1ffc\u2102\u2107\u210a-\u2113\u2115\u2119-\u211d\u2124\u2126\u2128\u212a-\u212d\u212f-\u2134\u2139\u213c-\u213f\u2145-\u2149\u214e\u2183\u2184\u2c00-\u2c7b\u2c7e-\u2ce4\u2ceb-\u2cee\u2cf2\u2cf3\ua640-\ua66d\ua680-\ua69b\ua722-\ua76f\ua771-\ua787\ua78b-\ua78e\uab70-\uabbf\ufb00-\ufb06\ufb13-\ufb17\uff21-\uff3a\uff41-\uff5a\U00010400-\U0001044f\U000104b0-\U000104d3\U000104d8-\U000104fb\U00010c80-\U00010cb2\U00010cc0-\U00010cf2\U000118a0-\U000118df\U0001e900-\U0001e943]+")
_CJK = "[\u4e00-\u9fa5\u0800-\u4e00\uac00-\ud7ff]+"
_DIGITS = {"type": "Digits", "individual_digits": True}
_NFC = {"type": "NFC"}

_LLAMA3_RULES = TextRules(None, _then_bytes(_split(_LLAMA3)), True, "Meta Llama 3")
_QWEN2_RULES = TextRules(_NFC, _then_bytes(_split(_QWEN2), trim_offsets=False), False, "Qwen 2 / 2.5 / 3")
_GPT2_RULES = TextRules(None, _BYTE_LEVEL_SPLIT, False, "OpenAI GPT-2")

PRE_TOKENIZERS: dict[str, TextRules] = {
    "llama-bpe": _LLAMA3_RULES, "llama3": _LLAMA3_RULES, "llama-v3": _LLAMA3_RULES,
    "qwen2": _QWEN2_RULES, "deepseek-r1-qwen": _QWEN2_RULES,
    # llama.cpp's qwen35 vectors keep "e\u0301" apart: the file they come from has no NFC normalizer
    "qwen35": TextRules(None, _then_bytes(_split(_QWEN35), trim_offsets=False), False, "Qwen 3.5"),
    "deepseek-llm": TextRules({"type": "Sequence", "normalizers": []}, _then_bytes(
        _split("[\r\n]"), _split(_DEEPSEEK_LETTERS), _split("\\s?[!-/:-~\uff01-\uff0f\uff1a-\uff5e\u2018-\u201f\u3000-\u3002]+"), _split("\\s+$"),
        _split(_CJK), _DIGITS), False, "DeepSeek LLM"),
    "deepseek-coder": TextRules({"type": "Sequence", "normalizers": []}, _then_bytes(
        _split("[\r\n]"), _split("\\s?\\p{L}+"), _split("\\s?\\p{P}+"), _split(_CJK), _DIGITS), False, "DeepSeek Coder"),
    "deepseek-v3": TextRules({"type": "Sequence", "normalizers": []}, _then_bytes(
        _split("\\p{N}{1,3}"), _split("[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+"),
        _split("[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+"
               "| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+")), False, "DeepSeek V3"),
    "gpt-2": _GPT2_RULES, "phi-2": _GPT2_RULES,
    "mpt": TextRules(_NFC, _BYTE_LEVEL_SPLIT, False, "EleutherAI GPT-NeoX (MPT uses it)"),
    "starcoder": TextRules(None, {"type": "Sequence", "pretokenizers": [_DIGITS, _BYTE_LEVEL_SPLIT]}, False,
                           "BigCode StarCoder"),
    "refact": TextRules(None, {"type": "Sequence", "pretokenizers": [_DIGITS, _BYTE_LEVEL_SPLIT]}, False,
                        "Refact"),
    "falcon": TextRules(None, {"type": "Sequence", "pretokenizers": [
        {"type": "Punctuation", "behavior": "Contiguous"}, _BYTE_LEVEL_SPLIT,
        {"type": "Digits", "individual_digits": False},
        {"type": "Split", "pattern": {"Regex": "[0-9][0-9][0-9]"}, "behavior": "Isolated", "invert": False}]},
        False, "TII Falcon"),
    # tiktoken vocabularies (OpenAI's o200k, Mistral's Tekken): their makers' library takes a piece that is a
    # token whole before any merge, which is ignore_merges; the patterns are the ones llama.cpp quotes as the
    # tokenizer.json originals
    "gpt-4o": TextRules(None, _then_bytes(_split(O200K_PAT_STR), trim_offsets=False), True, "OpenAI o200k (tiktoken)"),
    "tekken": TextRules(None, _then_bytes(_split(TEKKEN_PAT_STR), trim_offsets=False), True, "Mistral Tekken"),
    "command-r": TextRules(_NFC, {"type": "Sequence", "pretokenizers": [_DIGITS, _BYTE_LEVEL_SPLIT]}, False,
                           "Cohere Command-R"),
}


class UnknownPreTokenizer(ValueError):
    """A ``tokenizer.ggml.pre`` name whose split rules this engine does not know."""

    def __init__(self, source: str, name: str) -> None:
        known = ", ".join(sorted(PRE_TOKENIZERS))
        super().__init__(
            f"{source}: tokenizer.ggml.pre is {name!r}, a pre-tokenizer this engine has no exact rules for "
            f"(it knows: {known}). Guessing would give wrong ids; upload the model's tokenizer.json instead")


def rules_for(name: str | None, source: str) -> TextRules:
    """The makers' rules for a ``tokenizer.ggml.pre`` name; `UnknownPreTokenizer` for any other."""
    rules = PRE_TOKENIZERS.get(name or "")
    if rules is None:
        raise UnknownPreTokenizer(source, name if name is not None else "(missing)")
    return rules
