"""Hugging Face ``tokenizer.json`` decoders: token strings back to text, as `tokenizers` 0.23 does it.

Follows ``tokenizers/src/decoders/*.rs`` (and the decoder halves of
``pre_tokenizers/byte_level.rs``, ``pre_tokenizers/metaspace.rs`` and
``normalizers/replace.rs``).  Every decoder is a `decode_chain`: a list of
token strings in, a list out, so that a ``Sequence`` hands each one's output
to the next; `Decoder.decode` joins the last list.

Traps:

* ``ByteLevel`` turns a token's GPT-2 characters back into bytes -- unless one
  of its characters is not in the byte table, then the token's own UTF-8
  bytes -- joins all tokens' bytes first and only then decodes, invalid
  sequences becoming U+FFFD (Rust's `from_utf8_lossy`, the same maximal-subpart
  rule as Python's ``errors="replace"``).  It returns *one* token.
* ``ByteFallback`` gathers runs of ``<0xAB>`` tokens; a run that is valid UTF-8
  becomes one token, an invalid run one U+FFFD *per byte token*.
* ``Metaspace`` turns its replacement character into a space, except in the
  chain's first token (dropped there) unless ``prepend_scheme`` is ``never``.
* ``WordPiece`` drops the ``##`` of a continuation and puts a space before
  any other token but the first; ``cleanup`` then glues English punctuation
  and contractions (`cleanup`), token by token.
* ``Strip`` removes up to ``start`` leading and ``stop`` trailing copies of
  one character per token (tokenizers panics when ``stop`` reaches past a
  token made only of that character; here the cut simply stops at its start).
* ``CTC`` drops repeats of a token (consecutive), the pad token, applies
  WordPiece's cleanup and the word delimiter -> space, and drops empty tokens.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby
from typing import Any

from ...tokenizer.gpt2_bytes import CHAR_TO_BYTE
from .normalizers import Replace as ReplaceNormalizer
from .normalizers import pattern_matcher, stage_string, string_replace
from .pre_tokenizers import PREPEND_SCHEMES


class Decoder:
    def decode_chain(self, tokens: list[str]) -> list[str]:
        raise NotImplementedError

    def decode(self, tokens: list[str]) -> str:
        return "".join(self.decode_chain(list(tokens)))


_BYTE_TABLE = {ord(c): b for c, b in CHAR_TO_BYTE.items()}


@dataclass(frozen=True)
class ByteLevel(Decoder):
    def decode_chain(self, tokens: list[str]) -> list[str]:
        data = bytearray()
        for token in tokens:
            try:
                data += bytes(token.translate(_BYTE_TABLE).encode("latin-1")) if _all_byte_chars(token) else token.encode("utf-8")
            except UnicodeEncodeError:  # a surrogate: tokenizers' strings cannot hold one
                data += token.encode("utf-8", "replace")
        return [data.decode("utf-8", "replace")]


def _all_byte_chars(token: str) -> bool:
    return all(c in CHAR_TO_BYTE for c in token)


def _byte_token(token: str) -> int | None:
    """The byte of a ``<0xAB>`` token (exactly six characters, two hex digits), else None."""
    if len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
        digits = token[3:5]
        if all(c in "0123456789abcdefABCDEF" for c in digits):
            return int(digits, 16)
    return None


@dataclass(frozen=True)
class ByteFallback(Decoder):
    def decode_chain(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        run = bytearray()

        def flush() -> None:
            if run:
                try:
                    out.append(run.decode("utf-8"))
                except UnicodeDecodeError:
                    out.extend(["\ufffd"] * len(run))
                run.clear()

        for token in tokens:
            b = _byte_token(token)
            if b is None:
                flush()
                out.append(token)
            else:
                run.append(b)
        flush()
        return out


@dataclass(frozen=True)
class Fuse(Decoder):
    def decode_chain(self, tokens: list[str]) -> list[str]:
        return ["".join(tokens)]


@dataclass(frozen=True)
class Strip(Decoder):
    content: str
    start: int
    stop: int

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for token in tokens:
            a = 0
            while a < min(self.start, len(token)) and token[a] == self.content:
                a += 1
            b = len(token)
            for i in range(min(self.stop, len(token))):
                if token[len(token) - 1 - i] != self.content:
                    break
                b = len(token) - 1 - i
            out.append(token[a:b])
        return out


@dataclass(frozen=True)
class Replace(Decoder):
    replace: ReplaceNormalizer

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [self.replace.normalize_str(token) for token in tokens]


@dataclass(frozen=True)
class Metaspace(Decoder):
    replacement: str = "\u2581"
    prepend_scheme: str = "always"

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for i, token in enumerate(tokens):
            out.append(token.replace(self.replacement, "" if i == 0 and self.prepend_scheme != "never" else " "))
        return out


_CLEANUP = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"), (" 'm", "'m"),
            (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))


def cleanup(text: str) -> str:
    """WordPiece's English clean-up, in tokenizers' order (each replacement on the previous one's result)."""
    for old, new in _CLEANUP:
        text = text.replace(old, new)
    return text


@dataclass(frozen=True)
class WordPiece(Decoder):
    prefix: str = "##"
    cleanup: bool = True

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for i, token in enumerate(tokens):
            if i != 0:
                token = token[len(self.prefix):] if token.startswith(self.prefix) else " " + token
            out.append(cleanup(token) if self.cleanup else token)
        return out


@dataclass(frozen=True)
class BPEDecoder(Decoder):
    suffix: str = "</w>"

    def decode_chain(self, tokens: list[str]) -> list[str]:
        last = len(tokens) - 1
        return [t.replace(self.suffix, "" if i == last else " ") if self.suffix else t for i, t in enumerate(tokens)]


@dataclass(frozen=True)
class CTC(Decoder):
    pad_token: str = "<pad>"
    word_delimiter_token: str = "|"
    cleanup: bool = True

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for token, _ in groupby(tokens):
            text = token.replace(self.pad_token, "") if self.pad_token else token
            if self.cleanup:
                text = cleanup(text)
                if self.word_delimiter_token:
                    text = text.replace(self.word_delimiter_token, " ")
            if text:
                out.append(text)
        return out


@dataclass(frozen=True)
class Sequence(Decoder):
    decoders: tuple[Decoder, ...]

    def decode_chain(self, tokens: list[str]) -> list[str]:
        for d in self.decoders:
            tokens = d.decode_chain(tokens)
        return tokens


KINDS = ("ByteLevel", "Metaspace", "WordPiece", "ByteFallback", "Fuse", "Strip", "Replace", "BPEDecoder", "CTC",
         "Sequence")


def decoder_from_json(node: Any, where: Any, path: str = "$.decoder") -> Decoder | None:
    """The decoder a tokenizer.json describes at `path` (None for null); anything unknown is refused naming
    its JSON path (`where` is `tokenizer_json._Where`)."""
    if node is None:
        return None
    kind = where.get(node, "type", path, str)
    if kind == "Sequence":
        items = where.get(node, "decoders", path, list)
        return Sequence(tuple(d for i, item in enumerate(items)
                              if (d := decoder_from_json(item, where, f"{path}.decoders[{i}]")) is not None))
    if kind == "ByteLevel":
        return ByteLevel()
    if kind == "ByteFallback":
        return ByteFallback()
    if kind == "Fuse":
        return Fuse()
    if kind == "Metaspace":
        replacement = stage_string(node, "replacement", where, path, "\u2581")
        if len(replacement) != 1:
            raise where.fail(f"{path}.replacement", f"{replacement!r} is not one character", "give exactly one character")
        scheme = where.get(node, "prepend_scheme", path, str, "always")
        if scheme not in PREPEND_SCHEMES:
            raise where.fail(f"{path}.prepend_scheme", f"unknown scheme {scheme!r}", f"use one of {', '.join(PREPEND_SCHEMES)}")
        if where.get(node, "add_prefix_space", path, (bool, type(None)), None) is False and scheme != "never":
            raise where.fail(f"{path}.add_prefix_space", f"false does not match prepend_scheme {scheme!r} "
                             "(tokenizers refuses the file too)", 'set prepend_scheme to "never" or drop add_prefix_space')
        return Metaspace(replacement, scheme)
    if kind == "WordPiece":
        return WordPiece(stage_string(node, "prefix", where, path, "##"), where.get(node, "cleanup", path, bool, True))
    if kind == "BPEDecoder":
        return BPEDecoder(stage_string(node, "suffix", where, path, "</w>"))
    if kind == "CTC":
        return CTC(stage_string(node, "pad_token", where, path, "<pad>"), stage_string(node, "word_delimiter_token", where, path, "|"),
                   where.get(node, "cleanup", path, bool, True))
    if kind == "Strip":
        content = stage_string(node, "content", where, path)
        if len(content) != 1:
            raise where.fail(f"{path}.content", f"{content!r} is not one character", "give exactly one character")
        counts = [where.get(node, key, path, int) for key in ("start", "stop")]
        for key, value in zip(("start", "stop"), counts):
            if value < 0:
                raise where.fail(f"{path}.{key}", f"{value} is negative", "give a count of characters")
        return Strip(content, *counts)
    if kind == "Replace":
        content = stage_string(node, "content", where, path)
        matcher = pattern_matcher(where.get(node, "pattern", path, dict), where, f"{path}.pattern")
        return Replace(string_replace(matcher, content) if isinstance(matcher, str) else ReplaceNormalizer(matcher, content))
    raise where.fail(f"{path}.type", f"decoder {kind!r} is not known to this engine",
                     f"use one of {', '.join(KINDS)}, or a tokenizer without it")
