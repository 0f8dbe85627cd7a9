"""Mistral's Tekken file format (``tekken_*.json``): read it into a `ModelEncoding`.

A Tekken file is JSON: ``config`` (split pattern, vocabulary size, number of
special tokens, version), ``vocab`` (one ``{"rank", "token_bytes" (base64),
"token_str"}`` per token, rank order) and, from v7 on, ``special_tokens``.
The shipped ``mistral-tekken`` vocabulary is this format converted to a
``.tiktoken`` file (scripts/gen_tiktoken_models_data.py); this loader is for
files users bring.  Malformed files raise `ValueError` naming the file, the
field and the fix.
"""
from __future__ import annotations

import base64
import binascii
from typing import Any

from ...errors import WrongFileKindError
from ...formats.file_kinds import describe_json
from ...formats.json_limits import load_json_bounded
from ...formats.limits import check_pattern_size
from .encoding import ModelEncoding
from .specs import TEKKEN_NAMED_SPECIALS, tekken_specials


def load_tekken(data: bytes | str | dict[str, Any], *, name: str = "tekken", source: str = "<tekken .json>") -> ModelEncoding:
    """A `ModelEncoding` from a Mistral Tekken ``tekken_*.json`` file, with mistral-common's rules.

    Rules (mistral-common 1.13.1's `Tekkenizer`): ``config.default_num_special_tokens``
    special tokens take ids 0..n-1 -- the file's ``special_tokens`` list (each
    ``rank`` must equal its position), or for files without one the 20 named
    tokens of the v3 format -- padded with ``<SPECIAL_{i}>``; an ordinary token's
    id is its rank + n; only the first ``default_vocab_size - n`` vocabulary
    entries are used.  Special tokens are never read out of text by the
    reference; here they are refused or allowed like any encoding's.
    """
    if isinstance(data, (bytes, str)):
        payload = load_json_bounded(data, name=source, expected="expected a Mistral tekken_*.json file")
    else:  # already parsed (engine.sources.uploads reads the JSON once, to tell what the file is)
        payload = data
    if not isinstance(payload, dict) or not isinstance(payload.get("config"), dict) or not isinstance(payload.get("vocab"), list):
        found = describe_json(payload)
        if found.kind not in ("json", "tekken"):
            raise WrongFileKindError(source, "a Mistral Tekken .json file", found.title, found.how_to_upload())
        raise ValueError(f"{source}: expected an object with 'config' and 'vocab' (a Mistral tekken_*.json file)")
    config = payload["config"]
    try:
        pattern = config["pattern"]
        vocab_size = int(config["default_vocab_size"])
        n_special = int(config["default_num_special_tokens"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{source}: config needs 'pattern', 'default_vocab_size' and "
                         f"'default_num_special_tokens' ({exc!r} is missing or not a number)") from None
    if not isinstance(pattern, str):
        raise ValueError(f"{source}: config.pattern must be a string (the split pattern)")
    check_pattern_size(pattern, source, "config.pattern")
    listed = payload.get("special_tokens")
    if listed is None:
        named = TEKKEN_NAMED_SPECIALS
    else:
        for i, entry in enumerate(listed):
            if not isinstance(entry, dict) or entry.get("rank") != i or not isinstance(entry.get("token_str"), str):
                raise ValueError(f"{source}: special_tokens[{i}] needs 'rank': {i} and a 'token_str' string")
        named = tuple(entry["token_str"] for entry in listed)
    if len(named) > n_special or len(set(named)) != len(named):
        raise ValueError(f"{source}: special_tokens must be unique and at most default_num_special_tokens ({n_special})")
    n_ranks = vocab_size - n_special
    vocab = payload["vocab"]
    if not 256 <= n_ranks <= len(vocab):
        raise ValueError(f"{source}: default_vocab_size - default_num_special_tokens = {n_ranks}, "
                         f"but the vocab list has {len(vocab)} entries (need 256..{len(vocab)})")
    ranks: dict[bytes, int] = {}
    for i, entry in enumerate(vocab[:n_ranks]):
        try:
            token = binascii.a2b_base64(entry["token_bytes"], strict_mode=True)
        except (KeyError, TypeError, binascii.Error, ValueError):
            raise ValueError(f"{source}: vocab[{i}] needs 'token_bytes' in base64") from None
        if entry.get("rank") != i:
            raise ValueError(f"{source}: vocab[{i}] has rank {entry.get('rank')!r}; ranks must be 0, 1, 2, ... in order")
        if (i < 256 and token != bytes([i])) or token in ranks or not token:
            raise ValueError(f"{source}: vocab[{i}] token {base64.b64encode(token).decode()!r} is a duplicate, empty, "
                             "or not the single byte its rank requires")
        ranks[token] = i
    specials = {tok: i for i, tok in enumerate(tekken_specials(named, n_special))}
    eot = "</s>" if "</s>" in specials else None
    return ModelEncoding(name, pat_str=pattern, ranks=ranks, special_tokens=specials, eot=eot, id_offset=n_special)
