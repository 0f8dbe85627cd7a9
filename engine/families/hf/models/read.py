"""``$.model`` of a ``tokenizer.json`` -> one of `engine.families.hf.models`, checked and naming the JSON path.

Sizes (entries, merges, token lengths, ids) are counted by `engine.families.hf.tokenizer_json.check_tokenizer_json_size`
before this runs; here the values are checked one by one: ids non-negative and distinct, scores finite
numbers, merges naming vocabulary entries.
"""
from __future__ import annotations

import json
import math
from itertools import repeat
from operator import add, itemgetter, mul
from typing import Any

from ....formats.limits import check_piece_chars
from ..bpe import KEY
from ..normalizers import stage_string
from .bpe import CharBpe
from .unigram import Unigram
from .wordlevel import WordLevel
from .wordpiece import WordPiece

__all__ = ["model_from_json", "model_type"]


def model_type(node: dict) -> str:
    """``$.model.type``, or the type tokenizers infers from the fields when the file leaves it out."""
    kind = node.get("type")
    if kind is None:
        kind = "BPE" if "merges" in node else "WordPiece" if "continuing_subword_prefix" in node else \
            "Unigram" if isinstance(node.get("vocab"), list) else "WordLevel"
    return str(kind)


def model_from_json(node: dict, where: Any) -> CharBpe | WordPiece | WordLevel | Unigram:
    """The model of `node` (``$.model``); `where` is tokenizer_json's `_Where` (errors name the file and path)."""
    path = "$.model"
    kind = model_type(node)
    if kind == "WordPiece":
        vocab = _vocab(where.get(node, "vocab", path, dict), where)
        prefix = stage_string(node, "continuing_subword_prefix", where, path, "##")
        max_chars = _positive(where.get(node, "max_input_chars_per_word", path, int, 100),
                              f"{path}.max_input_chars_per_word", where)
        _check_wordpiece_window(vocab, prefix, max_chars, where)
        return WordPiece(vocab, where.get(node, "unk_token", path, str, "[UNK]"), prefix, max_chars)
    if kind == "WordLevel":
        return WordLevel(_vocab(where.get(node, "vocab", path, dict), where), where.get(node, "unk_token", path, str, "<unk>"))
    if kind == "Unigram":
        return _unigram(node, where)
    if kind == "BPE":
        return char_bpe(node, where)
    raise where.fail(f"{path}.type", f"model {kind!r} is not a tokenizers model", "use BPE, WordPiece, WordLevel or Unigram")


def _check_wordpiece_window(vocab: dict[str, int], prefix: str, max_chars: int, where: Any) -> None:
    """Refuse a token WordPiece can match that is longer than `MAX_PIECE_CHARS`: from each place of a word,
    candidates as long as the longest token are looked up.  A token longer than a word can be (at most
    `max_chars` characters, plus the prefix after its start) never matches, so it is no cost and stays."""
    window = max_chars + len(prefix)
    tokens = [t for t in vocab if len(t) <= window]
    check_piece_chars(tokens, where.source, lambda i: f"$.model.vocab[{tokens[i][:40]!r}]",
                      f"a token of words of up to {max_chars:,} characters (max_input_chars_per_word)",
                      "Remove the token, or lower $.model.max_input_chars_per_word (BERT's is 100).")


def _positive(value: int, path: str, where: Any) -> int:
    if value < 0:
        raise where.fail(path, f"{value} is negative", "use a positive number")
    return value


def _vocab(vocab: dict, where: Any, path: str = "$.model.vocab") -> dict[str, int]:
    values = list(vocab.values())
    if values and not (set(map(type, values)) == {int} and min(values) >= 0):
        bad = next(k for k, v in vocab.items() if not (type(v) is int and v >= 0))
        raise where.fail(f"{path}[{bad[:40]!r}]", f"id {json.dumps(vocab[bad])[:40]} is not a non-negative integer", "fix the id")
    if len(set(values)) != len(values):
        seen: dict[int, str] = {}
        for tok, tid in vocab.items():
            if tid in seen:
                raise where.fail(f"{path}[{tok[:40]!r}]", f"id {tid} is also the id of {seen[tid][:40]!r}",
                                 "give every token its own id")
            seen[tid] = tok
    if max(values, default=0) >= KEY:
        raise where.fail(path, f"ids reach {max(values)}, above this engine's limit {KEY - 1}", "use a smaller vocabulary")
    return vocab


def _unigram(node: dict, where: Any) -> Unigram:
    path = "$.model"
    items = where.get(node, "vocab", path, list)
    pieces: list[tuple[str, float]] = []
    for i, item in enumerate(items):
        if not (type(item) is list and len(item) == 2 and type(item[0]) is str
                and type(item[1]) in (int, float) and math.isfinite(item[1])):
            raise where.fail(f"{path}.vocab[{i}]", f"expected [\"piece\", finite score], got {json.dumps(item)[:60]}",
                             "fix the entry (scores are log probabilities: finite, usually negative)")
        pieces.append((item[0], float(item[1])))
    if len(pieces) >= KEY:
        raise where.fail(f"{path}.vocab", f"{len(pieces):,} entries, above this engine's limit {KEY - 1}", "use a smaller vocabulary")
    check_piece_chars([p for p, _ in pieces], where.source, lambda i: f"$.model.vocab[{i}]",
                      "a piece a Unigram model matches against the text")
    unk_id = where.get(node, "unk_id", path, (int, type(None)), None)
    if unk_id is not None and not 0 <= unk_id < len(pieces):
        raise where.fail(f"{path}.unk_id", f"{unk_id} is not the index of an entry of vocab ({len(pieces)} entries)",
                         "point it at the unknown piece, or set it to null")
    return Unigram(pieces, unk_id, where.get(node, "byte_fallback", path, bool, False))


def char_bpe(node: dict, where: Any) -> CharBpe:
    """A BPE model over characters (any BPE ``$.model``; byte-level files use the faster `engine.families.hf.bpe`)."""
    path = "$.model"
    if node.get("dropout") not in (None, 0, 0.0):
        raise where.fail(f"{path}.dropout", "dropout makes encoding random", "set dropout to null")
    vocab = _vocab(where.get(node, "vocab", path, dict), where)
    prefix = stage_string(node, "continuing_subword_prefix", where, path, None, (str, type(None)))
    suffix = stage_string(node, "end_of_word_suffix", where, path, None, (str, type(None)))
    pair_rank, merged_id = bpe_merges(where.get(node, "merges", path, list), vocab, prefix or "", where)
    unk = where.get(node, "unk_token", path, (str, type(None)), None)
    return CharBpe(vocab, pair_rank, merged_id, unk_token=unk,
                   fuse_unk=where.get(node, "fuse_unk", path, bool, False),
                   byte_fallback=where.get(node, "byte_fallback", path, bool, False),
                   continuing_subword_prefix=prefix, end_of_word_suffix=suffix,
                   ignore_merges=where.get(node, "ignore_merges", path, bool, False))


def bpe_merges(merges: list, vocab: dict[str, int], prefix: str, where: Any) -> tuple[dict[int, int], list[int]]:
    """``{left * KEY + right: rank}`` (a later duplicate wins, as tokenizers' HashMap) and rank -> made id; the
    made token is ``left + right`` with the right part's `prefix` cut (by its length in bytes, as tokenizers).

    Gemma 3 lists 514,906 merges, so the table is built with C-level `map`s; `_bad_merge` runs only to say
    what is wrong with a broken file."""
    cut = len(prefix.encode("utf-8"))
    try:
        kinds = set(map(type, merges))  # (one pass over the 514,906 merges, used by both branches)
        if kinds <= {str}:
            # tokenizers: splitn(2, ' ').  `partition` makes tuples (split's lists cost twice as much,
            # half of it in the garbage collector's passes over 500k new lists)
            parts = list(map(str.partition, merges, repeat(" ")))
            if parts and set(map(itemgetter(1), parts)) != {" "}:
                raise KeyError
            left, right = list(map(itemgetter(0), parts)), list(map(itemgetter(2), parts))
        else:
            if merges and not (kinds == {list} and set(map(len, merges)) == {2}):
                raise KeyError
            left, right = list(map(itemgetter(0), merges)), list(map(itemgetter(1), merges))  # (zip(*pairs) is slower)
        get = vocab.__getitem__  # only a str equals a vocabulary entry: a left or right that is not one raises
        lid = list(map(get, left))
        rid = list(map(get, right))
        if cut:
            right = [b.encode("utf-8")[cut:].decode("utf-8") for b in right]
        made = list(map(get, map(add, left, right)))
    except (KeyError, TypeError, UnicodeDecodeError):
        raise _bad_merge(merges, vocab, cut, where) from None
    keys = map(add, map(mul, lid, repeat(KEY)), rid)
    return dict(zip(keys, range(len(made)))), made


def _bad_merge(merges: list, vocab: dict[str, int], cut: int, where: Any) -> ValueError:
    for i, m in enumerate(merges):
        path = f"$.model.merges[{i}]"
        if type(m) is str:
            parts = m.split(" ", 1)
            if len(parts) != 2:
                return where.fail(path, f"{m[:40]!r} has no space between the two tokens", 'write merges as "left right"')
        elif type(m) is list and len(m) == 2 and all(type(x) is str for x in m):
            parts = m
        else:
            return where.fail(path, f"expected \"left right\" or [\"left\", \"right\"], got {json.dumps(m)[:60]}", "fix the merge")
        try:
            joined = parts[0] + parts[1].encode("utf-8")[cut:].decode("utf-8")
        except UnicodeDecodeError:
            return where.fail(path, f"{parts[1][:40]!r} does not start with the continuing_subword_prefix", "fix the merge")
        for part in (*parts, joined):
            if part not in vocab:
                return where.fail(path, f"token {part[:40]!r} is not in model.vocab", "add it to the vocabulary or remove the merge")
    return where.fail("$.model.merges", "a merge is malformed", "fix the merges")
