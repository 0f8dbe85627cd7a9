"""A user's tokenizer files -> a checked, uniquely named `Encoding` (what the playground's upload calls).

The parsers in `engine.load` and `engine.minbpe_format` read one format each
and refuse malformed or oversized files (`engine.limits`).  This module puts
an upload together -- the files, a split pattern, extra special tokens -- and
then checks that the result can encode any text before anyone uses it:

* every one of the 256 single bytes must be a token, or text containing the
  missing byte cannot be encoded (tiktoken would fail on it too);
* a probe text (all 256 byte values' characters, several scripts, emoji,
  digits, whitespace runs) must encode, tokenize and decode back exactly.

The name is the file's stem plus a hash of everything that defines the
encoding, so two different uploads never share a name (the playground keys
its caches by name).
"""
from __future__ import annotations

import hashlib
import json
import re

from .core import Encoding
from .load import parse_data_gym, parse_tiktoken_bpe
from .minbpe_format import parse_minbpe_model
from .train import RAW_PAT_STR

KINDS = ("tiktoken", "data_gym", "minbpe")
PROBE = (
    "".join(map(chr, range(256)))
    + " Hello, world! 12345 6789  \t\n\n  tokenization ünïcödé こんにちは 世界 Привет مرحبا नमस्ते 👋🏽🇯🇵👨‍👩‍👧 "
)


def short_hash(*parts: bytes | str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()[:8]


def check_usable(enc: Encoding, source: str) -> None:
    """ValueError unless `enc` can encode any text: all 256 single bytes, and a probe text round-trips."""
    missing = [b for b in range(256) if bytes([b]) not in enc.mergeable_ranks]
    if missing:
        shown = ", ".join(f"0x{b:02x}" for b in missing[:8]) + (" …" if len(missing) > 8 else "")
        raise ValueError(
            f"{source}: {len(missing)} of the 256 single bytes have no token ({shown}), so text containing "
            "them cannot be encoded. A byte-level BPE vocabulary must start from all 256 bytes."
        )
    try:
        ids = enc.encode_ordinary(PROBE)
        tokens = enc.tokenize(PROBE, allowed_special=set(), disallowed_special=())
        back = enc.decode(ids)
    except (KeyError, ValueError) as exc:
        raise ValueError(f"{source}: the tokenizer fails on a test text ({exc}); check the file and the split pattern") from None
    if back != PROBE or [t.id for t in tokens] != ids:
        raise ValueError(f"{source}: the tokenizer does not give back a test text it encoded; "
                         "check that the split pattern matches every character (e.g. ends with |\\s+|.)")


def load_tokenizer(
    kind: str,
    main_file: tuple[str, bytes],
    encoder_json: tuple[str, bytes] | None = None,
    pat_str: str | None = None,
    special_tokens: list[str] | tuple[str, ...] = (),
) -> Encoding:
    """An `Encoding` from an uploaded tokenizer; ValueError naming the file and line for bad input.

    `kind` is one of `KINDS`: a tiktoken rank file, GPT-2's vocab.bpe (+ `encoder_json`), or a
    minbpe ``.model`` (which carries its own pattern and special tokens).  `pat_str` None means
    raw bytes (the whole text is one piece).
    """
    filename, data = main_file
    # Names are shown everywhere (labels, messages, HTML ids): only safe characters from a file name.
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", filename.rsplit("/", 1)[-1].rsplit(".", 1)[0]).strip("-")[:40] or "uploaded"
    if kind == "minbpe":
        parsed = parse_minbpe_model(data, source=filename)
        enc = Encoding(f"{stem}-{short_hash(data)}", pat_str=parsed.pat_str,
                       mergeable_ranks=dict(parsed.mergeable_ranks),
                       special_tokens=dict(parsed.special_tokens), merges=parsed.merges)
        check_usable(enc, filename)
        return enc
    if kind not in KINDS:
        raise ValueError(f"unknown tokenizer file kind {kind!r}; use one of {', '.join(KINDS)}")
    pattern = RAW_PAT_STR if pat_str is None else pat_str
    if kind == "tiktoken":
        ranks = parse_tiktoken_bpe(data, source=filename)
        special_ids: dict[str, int] = {}
    else:
        if encoder_json is None:
            raise ValueError("upload encoder.json too: it holds the ids (vocab.bpe holds the merges)")
        json_name, json_data = encoder_json
        ranks = parse_data_gym(data, json_data, vocab_source=filename, encoder_source=json_name)
        # encoder.json's ids past the merges are special tokens, e.g. GPT-2's <|endoftext|> 50256
        special_ids = {k: v for k, v in json.loads(json_data).items() if v >= len(ranks)}
        data = data + json_data
    next_id = max([len(ranks) - 1, *special_ids.values()]) + 1
    for tok in special_tokens:
        if tok not in special_ids:
            special_ids[tok] = next_id
            next_id += 1
    name = f"{stem}-{short_hash(data, pattern, json.dumps(special_ids))}"
    enc = Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens=special_ids)
    check_usable(enc, filename)
    return enc
