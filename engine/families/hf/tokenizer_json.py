"""Read a Hugging Face ``tokenizer.json``: byte-level BPE files into an `HfEncoding` spec, every other file
into a `PipelineSpec` for `engine.families.hf.general.HfPipelineEncoding`.

`is_byte_level` routes a file: the fast byte-level path takes exactly these components (anything
else goes to the general pipeline, whose stages refuse what they do not know, naming the JSON path):

* ``normalizer``: null, ``NFC``, ``NFKC``, ``Sequence`` of those;
* ``pre_tokenizer``: ``Split`` (``{"Regex": ...}`` or ``{"String": ...}``, any
  ``behavior``, ``invert``), ``Digits``, and ``ByteLevel`` as the last step
  (``Sequence`` of them, or ByteLevel alone);
* ``model``: ``BPE`` with ``vocab`` and ``merges`` (``"a b"`` strings or
  ``["a", "b"]`` pairs), ``unk_token``, ``fuse_unk``, ``byte_fallback``,
  ``ignore_merges``; no dropout, no subword prefix or suffix;
* ``decoder``: ``ByteLevel``;
* ``added_tokens`` with every flag (special, normalized, lstrip, rstrip, single_word).

Both paths read the ``post_processor`` (`engine.families.hf.post_processors`: applied only when the caller
asks for the model's special tokens) and keep ``padding`` and ``truncation`` as the file wrote them, to be
shown: padding never applies to one text, and truncation is a caller's choice at encode time.

Loading is the costly part of a 128k-token file (the JSON itself, then one
dict entry per merge), so the merge table is built with C-level `map`s; a
careful pass runs only to say what is wrong with a broken file.
"""
from __future__ import annotations

import gzip
import json
import sys
from array import array
from dataclasses import dataclass
from itertools import count, repeat
from operator import add, itemgetter, methodcaller, mul
from typing import Any, Collection

from ...errors import WrongFileKindError
from ...formats.file_kinds import describe_json
from ...tokenizer.gpt2_bytes import BYTE_TO_CHAR
from ...formats.json_limits import load_json_bounded
from ...formats.limits import (MAX_MERGES, MAX_SPECIAL_TOKENS, MAX_TOKEN_BYTES, MAX_TOKEN_ID, MAX_TOTAL_TOKEN_BYTES,
                               TokenBudget, check_count, check_pattern_size, check_special_tokens_size, check_token_id)
from .bpe import KEY, BpeModel
from .models import model_from_json
from .models.read import model_type
from .post_processors import PostProcessor, post_processor_from_json
from .pipeline import (
    BEHAVIORS,
    GPT2_SPLIT,
    AddedToken,
    Normalizer,
    PreTokenizer,
    SplitStep,
    compile_onig,
    digits_step,
)

COMPACT_FORMAT = "hf-bpe-compact/2"


class _Where:
    """Builds error messages that name the file and the JSON path.

    `trusted` is for the shipped files (read from their sha256-checked compact form): their
    Split patterns run without the time limit a user's file gets."""

    def __init__(self, source: str, *, trusted: bool = False) -> None:
        self.source = source
        self.trusted = trusted

    def fail(self, path: str, problem: str, fix: str) -> ValueError:
        return ValueError(f"{self.source}: {path}: {problem}; {fix}")

    def get(self, obj: dict, key: str, path: str, kind: type | tuple, default: Any = ..., fix: str = "") -> Any:
        if not isinstance(obj, dict):
            raise self.fail(path, f"expected a JSON object, got {type(obj).__name__}", fix or "see the tokenizers docs")
        if key not in obj:
            if default is not ...:
                return default
            raise self.fail(f"{path}.{key}", "missing", fix or f"add the field {key!r}")
        value = obj[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if value is None and type(None) in kinds:
            return value
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            names = " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
            raise self.fail(f"{path}.{key}", f"expected {names}, got {json.dumps(value)[:60]}", fix or f"make it {names}")
        return value


@dataclass(frozen=True)
class HfTokenizerSpec:
    """Everything an `HfEncoding` needs, checked."""

    source: str
    normalizer: Normalizer
    pre_tokenizer: PreTokenizer
    model: BpeModel
    vocab: dict[str, int]  # the model's vocabulary, printable (GPT-2 byte characters) -> id
    added_tokens: tuple[AddedToken, ...]
    n_vocab: int
    post_processor: PostProcessor | None = None
    padding: dict | None = None  # as the file wrote them, shown (`settings_note`), never applied to one text
    truncation: dict | None = None


def settings_note(padding: dict | None, truncation: dict | None) -> str | None:
    """What a file's ``padding`` and ``truncation`` say, for people (None if both are null).

    Neither changes the ids of one text here: padding fills a *batch* to one length, and truncation
    cuts only when a caller asks for a maximum length."""
    parts = []
    if padding is not None:
        strategy = padding.get("strategy")
        length = strategy.get("Fixed") if isinstance(strategy, dict) else strategy
        parts.append(f"padding to {length} with {padding.get('pad_token')!r} on the {str(padding.get('direction', 'Right')).lower()} "
                     "(fills a batch; one text is never padded)")
    if truncation is not None:
        parts.append(f"truncation to {truncation.get('max_length')} tokens ({truncation.get('strategy')}, "
                     f"{str(truncation.get('direction', 'Right')).lower()}; applied only when a caller asks for it)")
    return "; ".join(parts) or None


def _settings(root: dict, where: _Where) -> tuple[dict | None, dict | None]:
    return tuple(where.get(root, key, "$", (dict, type(None)), None) for key in ("padding", "truncation"))  # type: ignore[return-value]


def is_byte_level(root: dict) -> bool:
    """Whether the fast byte-level path runs this file: a BPE model without prefix or suffix, normalizer
    null/NFC/NFKC (or a Sequence of them), pre-tokenizer Split/Digits steps then ByteLevel, decoder ByteLevel."""
    model, pre, dec = root.get("model"), root.get("pre_tokenizer"), root.get("decoder")
    if not isinstance(model, dict) or model_type(model) != "BPE":
        return False
    if model.get("continuing_subword_prefix") or model.get("end_of_word_suffix"):
        return False
    if not (isinstance(dec, dict) and dec.get("type") == "ByteLevel"):
        return False
    steps = pre.get("pretokenizers") if isinstance(pre, dict) and pre.get("type") == "Sequence" else [pre]
    if not (isinstance(steps, list) and steps and isinstance(steps[-1], dict) and steps[-1].get("type") == "ByteLevel"
            and all(isinstance(s, dict) and s.get("type") in ("Split", "Digits") for s in steps[:-1])):
        return False
    return _plain_forms(root.get("normalizer"))


def _plain_forms(node: Any) -> bool:
    if node is None:
        return True
    if not isinstance(node, dict):
        return False
    if node.get("type") == "Sequence":
        items = node.get("normalizers")
        return isinstance(items, list) and all(map(_plain_forms, items))
    return node.get("type") in ("NFC", "NFKC")


def parse_tokenizer_json(data: bytes | str, source: str = "tokenizer.json") -> HfTokenizerSpec:
    """Parse and check a ``tokenizer.json``; ValueError naming the file, the JSON path and the fix.

    In this order, each before anything is built: the JSON's depth and size (`load_json_bounded`),
    what the file is (a tokenizer.json at all, and its model type: `engine.formats.file_kinds`), the
    counts and lengths of its vocabulary, merges and added tokens (`check_tokenizer_json_size`).
    """
    return spec_from_root(load_json_bounded(data, name=source, expected="upload the tokenizer.json file itself"), source)


def spec_from_root(root: Any, source: str) -> HfTokenizerSpec:
    """`parse_tokenizer_json` of an already parsed file (`load_json_bounded`)."""
    found = describe_json(root)
    if found.kind != "tokenizer.json":
        raise WrongFileKindError(source, "a Hugging Face tokenizer.json", found.title, found.how_to_upload())
    check_tokenizer_json_size(root, source)
    if not is_byte_level(root):
        raise ValueError(f"{source}: this {found.title} is not byte-level BPE with only Split/Digits/ByteLevel "
                         "pre-tokenizers and NFC/NFKC normalizers, which this fast path runs; load it with "
                         "engine.families.hf.load.load_tokenizer_json (the general pipeline)")
    return _spec(root, _Where(source))


def check_tokenizer_json_size(root: dict, source: str) -> None:
    """Refuse a parsed ``tokenizer.json`` whose vocabulary, merges, ids or added tokens pass `engine.formats.limits`:
    counted on the JSON values, before any table or matcher is built from them."""
    model = root.get("model")
    if isinstance(model, dict):
        vocab, merges = model.get("vocab"), model.get("merges")
        if isinstance(vocab, list):  # Unigram: [piece, score] entries
            check_count(len(vocab), "vocabulary entries", source)
            budget = TokenBudget(source)
            for i, item in enumerate(vocab):
                if isinstance(item, list) and item and isinstance(item[0], str):
                    budget.add(len(item[0].encode("utf-8", "surrogatepass")), f"model.vocab[{i}]")
        if isinstance(vocab, dict):
            check_count(len(vocab), "vocabulary entries", source)
            values = vocab.values()
            ids = values if set(map(type, values)) <= {int} else [tid for tid in values if type(tid) is int]
            if not vocab_bytes_within(vocab) or max(ids, default=0) > MAX_TOKEN_ID:  # the careful pass names the entry
                budget = TokenBudget(source)
                for token, tid in vocab.items():
                    budget.add(len(token.encode("utf-8", "surrogatepass")), f"model.vocab entry {token[:40]!r}")
                    if type(tid) is int:
                        check_token_id(tid, source, f"$.model.vocab[{token[:40]!r}]")
        if isinstance(merges, list):
            check_count(len(merges), "merges", source, MAX_MERGES,
                        real="the most in a real file is Gemma 3's 514,906")
    added = root.get("added_tokens")
    if isinstance(added, list):
        check_count(len(added), "added tokens", source, MAX_SPECIAL_TOKENS,
                    real="real tokenizers have at most a few thousand (DeepSeek V4: 1,283)")
        items = [item for item in added if isinstance(item, dict)]
        check_special_tokens_size((item["content"] for item in items if isinstance(item.get("content"), str)),
                                  source, "$.added_tokens")
        for i, item in enumerate(items):
            if type(item.get("id")) is int:
                check_token_id(item["id"], source, f"$.added_tokens[{i}].id")


def vocab_bytes_within(tokens: Collection[str]) -> bool:
    """Whether no token passes `MAX_TOKEN_BYTES` in UTF-8 and all together stay within `MAX_TOTAL_TOKEN_BYTES`.

    UTF-8 spends at most 4 bytes on a character (3 on a lone surrogate), so lengths in characters settle a real
    vocabulary without encoding its 262,144 tokens; only a vocabulary near a limit is encoded and measured
    exactly (`vocab_bytes_within_reference`)."""
    chars = list(map(len, tokens))
    if 4 * max(chars, default=0) <= MAX_TOKEN_BYTES and 4 * sum(chars) <= MAX_TOTAL_TOKEN_BYTES:
        return True
    sizes = list(map(len, map(methodcaller("encode", "utf-8", "surrogatepass"), tokens)))
    return max(sizes, default=0) <= MAX_TOKEN_BYTES and sum(sizes) <= MAX_TOTAL_TOKEN_BYTES


def vocab_bytes_within_reference(tokens: Collection[str]) -> bool:
    """`vocab_bytes_within`, plainly: every token encoded and counted."""
    total = 0
    for token in tokens:
        size = len(token.encode("utf-8", "surrogatepass"))
        if size > MAX_TOKEN_BYTES:
            return False
        total += size
    return total <= MAX_TOTAL_TOKEN_BYTES


def _spec(root: Any, where: _Where, compact: tuple[dict[str, int], dict[int, int], list[int]] | None = None) -> HfTokenizerSpec:
    if not isinstance(root, dict):
        raise where.fail("$", "expected a JSON object", "upload a Hugging Face tokenizer.json")
    padding, truncation = _settings(root, where)
    normalizer = Normalizer(tuple(_normalizer_forms(root.get("normalizer"), "$.normalizer", where)))
    pre_tokenizer = _pre_tokenizer(root.get("pre_tokenizer"), where)
    _check_decoder(root.get("decoder"), where)
    post_processor = post_processor_from_json(root.get("post_processor"), where)
    model_json = where.get(root, "model", "$", dict)
    vocab, model = _model(model_json, where, compact)
    added = _added_tokens(root.get("added_tokens", []), vocab, where)
    ids = list(vocab.values()) + [t.id for t in added]
    return HfTokenizerSpec(where.source, normalizer, pre_tokenizer, model, vocab, tuple(added), max(ids) + 1,
                           post_processor, padding, truncation)


def _normalizer_forms(node: Any, path: str, where: _Where) -> list[str]:
    if node is None:
        return []
    kind = where.get(node, "type", path, str)
    if kind == "Sequence":
        items = where.get(node, "normalizers", path, list)
        return [f for i, item in enumerate(items) for f in _normalizer_forms(item, f"{path}.normalizers[{i}]", where)]
    if kind in ("NFC", "NFKC"):
        return [kind]
    raise where.fail(path, f"normalizer {kind!r} is not supported (only NFC, NFKC and Sequence)",
                     "use a tokenizer whose normalizer is one of those")


def _pre_tokenizer(node: Any, where: _Where) -> PreTokenizer:
    path = "$.pre_tokenizer"
    if node is None:
        raise where.fail(path, "null: this is not a byte-level BPE tokenizer", "only files with a ByteLevel pre-tokenizer are supported")
    items = [node]
    item_paths = [path]
    if where.get(node, "type", path, str) == "Sequence":
        items = where.get(node, "pretokenizers", path, list)
        item_paths = [f"{path}.pretokenizers[{i}]" for i in range(len(items))]
    steps: list[SplitStep] = []
    for i, (item, item_path) in enumerate(zip(items, item_paths)):
        kind = where.get(item, "type", item_path, str)
        if kind == "ByteLevel":
            if i != len(items) - 1:
                raise where.fail(item_path, "ByteLevel is not the last pre-tokenizer", "only files with ByteLevel last are supported")
            use_regex = where.get(item, "use_regex", item_path, bool, True)
            where.get(item, "trim_offsets", item_path, bool, True)  # offsets only
            return PreTokenizer(tuple(steps), where.get(item, "add_prefix_space", item_path, bool, True),
                                SplitStep(compile_onig(GPT2_SPLIT, f"{where.source}: {item_path}"), "Isolated") if use_regex else None)
        if kind == "Split":
            pattern = where.get(item, "pattern", item_path, dict)
            if set(pattern) == {"Regex"} and isinstance(pattern["Regex"], str):
                field = f"{where.source}: {item_path}.pattern.Regex"
                check_pattern_size(pattern["Regex"], where.source, f"{item_path}.pattern.Regex")
                rx = compile_onig(pattern["Regex"], field)
            elif set(pattern) == {"String"} and isinstance(pattern["String"], str):
                field = f"{where.source}: {item_path}.pattern.String"
                check_pattern_size(pattern["String"], where.source, f"{item_path}.pattern.String")
                rx = compile_onig(_escape(pattern["String"]), field)
            else:
                raise where.fail(f"{item_path}.pattern", "expected {\"Regex\": \"...\"} or {\"String\": \"...\"}", "fix the pattern")
            behavior = where.get(item, "behavior", item_path, str)
            if behavior not in BEHAVIORS:
                raise where.fail(f"{item_path}.behavior", f"unknown behavior {behavior!r}", f"use one of {', '.join(BEHAVIORS)}")
            # a shipped file's patterns are trusted (linear, tested); any other runs under the time limit
            steps.append(SplitStep(rx, behavior, where.get(item, "invert", item_path, bool, False),
                                   where=None if where.trusted else field))
        elif kind == "Digits":
            steps.append(digits_step(where.get(item, "individual_digits", item_path, bool, False)))
        else:
            raise where.fail(item_path, f"pre-tokenizer {kind!r} is not supported (only Split, Digits, ByteLevel, Sequence)",
                             "use a byte-level BPE tokenizer built from those")
    raise where.fail(path, "no ByteLevel pre-tokenizer: this is not a byte-level BPE tokenizer",
                     "only files whose last pre-tokenizer is ByteLevel are supported")


def _escape(literal: str) -> str:
    """Rust's `regex::escape` (what tokenizers applies to a String pattern), in Oniguruma-compatible form."""
    return "".join("\\" + c if c in "\\.+*?()|[]{}^$#&-~" else c for c in literal)


def _check_decoder(node: Any, where: _Where) -> None:
    path = "$.decoder"
    if node is None or where.get(node, "type", path, str) != "ByteLevel":
        kind = None if node is None else node.get("type")
        raise where.fail(path, f"decoder {kind!r} is not supported", "only the ByteLevel decoder is supported")


def _model(node: dict, where: _Where, compact: tuple[dict[str, int], dict[int, int], list[int]] | None = None) -> tuple[dict[str, int], BpeModel]:
    path = "$.model"
    kind = where.get(node, "type", path, str, "BPE")
    if kind != "BPE":
        raise where.fail(f"{path}.type", f"model {kind!r} is not supported", "only BPE models are supported")
    if node.get("dropout") is not None:
        raise where.fail(f"{path}.dropout", "dropout makes encoding random", "set dropout to null")
    for key in ("continuing_subword_prefix", "end_of_word_suffix"):
        if node.get(key):
            raise where.fail(f"{path}.{key}", f"{key} is not supported for byte-level BPE", f"set {key} to null")
    if compact is not None:  # vocabulary and merges from a sha256-checked compact file (or a loaded built-in's)
        vocab, pair_rank, merged_id = compact
    else:
        vocab = where.get(node, "vocab", path, dict)
        _check_vocab(vocab, where)
        pair_rank, merged_id = _merges(where.get(node, "merges", path, list), vocab, where)
    unk = where.get(node, "unk_token", path, (str, type(None)), None)
    if unk is not None and unk not in vocab:
        raise where.fail(f"{path}.unk_token", f"{unk!r} is not in the vocabulary", "add it to model.vocab or set unk_token to null")
    byte_fallback = where.get(node, "byte_fallback", path, bool, False)
    model = BpeModel(
        pair_rank, merged_id, [vocab.get(BYTE_TO_CHAR[b]) for b in range(256)],
        unk_id=None if unk is None else vocab[unk],
        fuse_unk=where.get(node, "fuse_unk", path, bool, False),
        byte_fallback_ids=[vocab.get(f"<0x{b:02X}>") for b in range(256)] if byte_fallback else None,
        ignore_merges=where.get(node, "ignore_merges", path, bool, False),
    )
    return vocab, model


def _check_vocab(vocab: dict, where: _Where) -> None:
    path = "$.model.vocab"
    values = list(vocab.values())
    if not all(type(v) is int and v >= 0 for v in values):
        bad = next(k for k, v in vocab.items() if not (type(v) is int and v >= 0))
        raise where.fail(f"{path}[{bad!r}]", f"id {vocab[bad]!r} is not a non-negative integer", "fix the id")
    if len(set(values)) != len(values):
        seen: dict[int, str] = {}
        for tok, tid in vocab.items():
            if tid in seen:
                raise where.fail(f"{path}[{tok!r}]", f"id {tid} is also the id of {seen[tid]!r}", "give every token its own id")
            seen[tid] = tok
    if max(values, default=0) >= KEY:
        raise where.fail(path, f"ids reach {max(values)}, above this engine's limit {KEY - 1}", "use a smaller vocabulary")


def _merges(merges: list, vocab: dict[str, int], where: _Where) -> tuple[dict[int, int], list[int]]:
    """``{left * KEY + right: rank}`` (a later duplicate wins, as in tokenizers' HashMap) and rank -> made id."""
    try:
        if all(type(m) is str for m in merges):
            pairs = list(map(str.split, merges, repeat(" "), repeat(1)))  # tokenizers: splitn(2, ' ')
        else:
            pairs = merges
        if not all(type(p) is list and len(p) == 2 for p in pairs):
            raise KeyError
        left, right = list(map(itemgetter(0), pairs)), list(map(itemgetter(1), pairs))  # (zip(*pairs) is slower)
        lid = list(map(vocab.__getitem__, left))
        rid = list(map(vocab.__getitem__, right))
        made = list(map(vocab.__getitem__, map(add, left, right)))
    except (KeyError, TypeError):
        _explain_bad_merge(merges, vocab, where)
        raise
    keys = map(add, map(mul, lid, repeat(KEY)), rid)
    return dict(zip(keys, range(len(made)))), made


def _explain_bad_merge(merges: list, vocab: dict[str, int], where: _Where) -> None:
    for i, m in enumerate(merges):
        path = f"$.model.merges[{i}]"
        if type(m) is str:
            parts = m.split(" ", 1)
            if len(parts) != 2:
                raise where.fail(path, f"{m[:40]!r} has no space between the two tokens", 'write merges as "left right"')
        elif type(m) is list and len(m) == 2 and all(type(x) is str for x in m):
            parts = m
        else:
            raise where.fail(path, f"expected \"left right\" or [\"left\", \"right\"], got {json.dumps(m)[:60]}", "fix the merge")
        for part in (*parts, parts[0] + parts[1]):
            if part not in vocab:
                raise where.fail(path, f"token {part!r} is not in model.vocab", "add it to the vocabulary or remove the merge")


_ADDED_FLAGS = (("special", False), ("normalized", True), ("lstrip", False), ("rstrip", False), ("single_word", False))


def _added_tokens(items: Any, vocab: dict[str, int], where: _Where) -> list[AddedToken]:
    if not isinstance(items, list):
        raise where.fail("$.added_tokens", "expected a list", "fix added_tokens")
    fast = _added_tokens_fast(items, vocab)
    return fast if fast is not None else _added_tokens_checked(items, vocab, where)


def _added_tokens_fast(items: list, vocab: dict[str, int]) -> list[AddedToken] | None:
    """The usual case in bulk (1,283 entries in ~5 ms); None if anything is off, for the careful pass to explain."""
    if not all(type(item) is dict and type(item.get("id")) is int and type(item.get("content")) is str for item in items):
        return None
    tokens = [AddedToken(item["id"], item["content"], *(item.get(k, default) for k, default in _ADDED_FLAGS)) for item in items]
    if not all(type(flag) is bool for t in tokens for flag in (t.special, t.normalized, t.lstrip, t.rstrip, t.single_word)):
        return None
    contents = [t.content for t in tokens]
    if not all(contents) or len(set(contents)) != len(contents):
        return None
    if any(vocab.get(t.content, t.id) != t.id for t in tokens):
        return None
    outside = {t.id for t in tokens if t.content not in vocab}
    if outside and not outside.isdisjoint(vocab.values()):
        return None
    return tokens


def _added_tokens_checked(items: list, vocab: dict[str, int], where: _Where) -> list[AddedToken]:
    vocab_ids = set(vocab.values())
    out: list[AddedToken] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(items):
        path = f"$.added_tokens[{i}]"
        tid = where.get(item, "id", path, int)
        content = where.get(item, "content", path, str)
        if not content:
            raise where.fail(f"{path}.content", "empty", "remove the entry")
        if content in seen:
            raise where.fail(f"{path}.content", f"{content!r} repeats added_tokens[{seen[content]}]", "remove the duplicate")
        seen[content] = i
        if content in vocab and vocab[content] != tid:
            raise where.fail(f"{path}.id", f"{content!r} has id {tid} here but {vocab[content]} in model.vocab (tokenizers uses the latter)",
                             "make the two ids agree")
        if content not in vocab and tid in vocab_ids:
            owner = next(tok for tok, i in vocab.items() if i == tid)
            raise where.fail(f"{path}.id", f"id {tid} belongs to {owner!r} in model.vocab", "give the added token a free id")
        flags = {k: item.get(k, default) for k, default in _ADDED_FLAGS}
        if not all(type(v) is bool for v in flags.values()):
            flags = {k: where.get(item, k, path, bool, default) for k, default in _ADDED_FLAGS}  # raises, naming the field
        out.append(AddedToken(tid, content, **flags))
    return out


def dump_compact(data: bytes, source: str = "tokenizer.json") -> bytes:
    """The compact form of a tokenizer.json, which `parse_compact` reads several times faster.

    One JSON line (the file without ``model.vocab`` and ``model.merges``, plus
    the vocabulary's ids when they are not 0..n-1), the vocabulary's tokens in
    id order joined by NUL, a newline, then three little-endian uint32 arrays:
    each merge's left id, right id and made id, in rank order.  Gzipped with a
    fixed timestamp, so the same input gives the same bytes.
    """
    spec = parse_tokenizer_json(data, source)  # refuse whatever the full parser refuses
    root = json.loads(data)
    model = dict(root["model"])
    vocab = model.pop("vocab")
    model.pop("merges")
    by_id = sorted(vocab.items(), key=lambda kv: kv[1])
    ids = [tid for _, tid in by_id]
    header = {"format": COMPACT_FORMAT, "tokenizer": {**root, "model": model},
              "vocab_ids": None if ids == list(range(len(ids))) else ids}
    tokens = "\x00".join(tok for tok, _ in by_id)
    if tokens.count("\x00") != len(by_id) - 1 or "\n" in tokens:
        raise ValueError(f"{source}: a token holds NUL or a newline; the compact form cannot store it")
    lines = sorted((rank, divmod(key, KEY)) for key, rank in spec.model.pair_rank.items())
    if len(lines) != len(spec.model.merged_id):
        raise ValueError(f"{source}: a merge is listed twice; the compact form keeps one rank per pair")
    arrays = [array("I", [pair[0] for _, pair in lines]), array("I", [pair[1] for _, pair in lines]),
              array("I", spec.model.merged_id)]
    if sys.byteorder == "big":
        for arr in arrays:
            arr.byteswap()
    body = b"\n".join([json.dumps(header, ensure_ascii=False).encode("utf-8"), tokens.encode("utf-8"),
                       b"".join(a.tobytes() for a in arrays)])
    return gzip.compress(body, 9, mtime=0)


def parse_compact(body: bytes, source: str) -> HfTokenizerSpec:
    """Read the (uncompressed) compact form written by `dump_compact`."""
    line, _, rest = body.partition(b"\n")
    tokens, _, raw = rest.partition(b"\n")
    header = _compact_header(line, source)
    n = len(raw) // 12
    arrays = []
    for k in range(3):
        arr = array("I")
        arr.frombytes(raw[4 * n * k : 4 * n * (k + 1)])
        if sys.byteorder == "big":
            arr.byteswap()
        arrays.append(arr)
    ids = header["vocab_ids"]
    vocab = dict(zip(tokens.decode("utf-8").split("\x00"), count() if ids is None else ids))
    left, right, made = arrays
    pair_rank = dict(zip(map(add, map(mul, left, repeat(KEY)), right), range(len(made))))
    return _spec(header["tokenizer"], _Where(source, trusted=True), (vocab, pair_rank, made.tolist()))


def parse_compact_header(line: bytes, source: str, base: HfTokenizerSpec) -> HfTokenizerSpec:
    """A compact form's header line read onto the vocabulary and merge tables of `base`, an already parsed
    spec with the same vocabulary and merges (a sharing built-in: `engine.families.hf.builtins`): the
    tables are shared, not copied (nothing mutates them), so two such names cost one parse and one copy."""
    header = _compact_header(line, source)
    model = base.model
    return _spec(header["tokenizer"], _Where(source, trusted=True), (base.vocab, model.pair_rank, model.merged_id))


def _compact_header(line: bytes, source: str) -> dict:
    header = json.loads(line)
    if not isinstance(header, dict) or header.get("format") != COMPACT_FORMAT:
        raise ValueError(f"{source}: not a {COMPACT_FORMAT} file; regenerate it with scripts/gen_hf_compact.py")
    return header


# ------------------------------------------------------------- every other file: the general pipeline
@dataclass(frozen=True)
class PipelineSpec:
    """Everything an `engine.families.hf.general.HfPipelineEncoding` needs, checked: each stage as built by
    its module (`normalizers`, `pre_tokenizers`, `models`, `post_processors`, `decoders`; None = the stage
    is null in the file) and the file's JSON nodes, for showing them."""

    source: str
    normalizer: Any
    pre_tokenizer: Any
    model: Any
    decoder: Any
    post_processor: PostProcessor | None
    added_tokens: tuple[AddedToken, ...]
    n_vocab: int
    nodes: dict  # "normalizer", "pre_tokenizer", "decoder": the file's JSON for each (what the playground shows)
    padding: dict | None = None
    truncation: dict | None = None


def pipeline_spec_from_root(root: Any, source: str) -> PipelineSpec:
    """A checked `PipelineSpec` from a parsed tokenizer.json (any model); sizes are counted before anything is built."""
    found = describe_json(root)
    if found.kind != "tokenizer.json":
        raise WrongFileKindError(source, "a Hugging Face tokenizer.json", found.title, found.how_to_upload())
    check_tokenizer_json_size(root, source)
    where = _Where(source)
    padding, truncation = _settings(root, where)
    from .decoders import decoder_from_json
    from .normalizers import normalizer_from_json
    from .pre_tokenizers import pre_tokenizer_from_json

    normalizer = normalizer_from_json(root.get("normalizer"), where)
    pre_tokenizer = pre_tokenizer_from_json(root.get("pre_tokenizer"), where)
    decoder = decoder_from_json(root.get("decoder"), where)
    post_processor = post_processor_from_json(root.get("post_processor"), where)
    model = model_from_json(where.get(root, "model", "$", dict), where)
    added = _added_tokens(root.get("added_tokens", []), model.vocab, where)
    ids = list(model.vocab.values()) + [t.id for t in added]
    nodes = {key: root.get(key) for key in ("normalizer", "pre_tokenizer", "decoder", "post_processor")}
    return PipelineSpec(source, normalizer, pre_tokenizer, model, decoder, post_processor, tuple(added),
                        max(ids, default=-1) + 1, nodes, padding, truncation)
