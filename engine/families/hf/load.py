"""A parsed ``tokenizer.json`` -> the encoding that runs it: byte-level BPE files on the fast `HfEncoding`,
every other file (WordPiece, WordLevel, Unigram, BPE over characters, or byte-level BPE with stages the
fast path does not take) on `HfPipelineEncoding` (`engine.families.hf.tokenizer_json.is_byte_level` decides)."""
from __future__ import annotations

from typing import Any

from ...formats.json_limits import load_json_bounded
from .encoding import HfEncoding
from .general import HfPipelineEncoding
from .tokenizer_json import is_byte_level, pipeline_spec_from_root, spec_from_root

__all__ = ["encoding_from_root", "load_tokenizer_json"]


def encoding_from_root(root: Any, name: str, source: str) -> HfEncoding | HfPipelineEncoding:
    """The encoding of a parsed tokenizer.json (`engine.formats.json_limits.load_json_bounded`); ValueError
    naming the file and the JSON path for anything wrong or unknown."""
    if isinstance(root, dict) and is_byte_level(root):
        return HfEncoding(name, spec_from_root(root, source))
    return HfPipelineEncoding(name, pipeline_spec_from_root(root, source))


def load_tokenizer_json(data: bytes | str, *, name: str | None = None, source: str = "tokenizer.json"):
    """The encoding of a ``tokenizer.json`` (an upload, say): an `HfEncoding` for byte-level BPE, an
    `HfPipelineEncoding` for any other file; ValueError for a bad file."""
    root = load_json_bounded(data, name=source, expected="upload the tokenizer.json file itself")
    return encoding_from_root(root, name or source, source)
