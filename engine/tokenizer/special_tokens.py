"""Special tokens with tiktoken's rules, written once for every encoding family.

A special token (``<|endoftext|>``, ``</s>``, ``[INST]`` ...) is text the
caller must opt into.  By default `encode` refuses text that holds one
(`DisallowedSpecialTokenError` names the token and both keyword arguments
that resolve it); ``allowed_special`` turns listed ones into their ids,
``disallowed_special=()`` encodes them as plain text::

    >>> enc = engine.get_encoding("cl100k_base")
    >>> enc.encode("hi<|endoftext|>", allowed_special="all")[-1] == enc.eot_token
    True

Why a mixin.  Three unrelated classes carry these rules -- `Encoding` (and its
tiktoken-style subclasses), `HfEncoding` and `SentencePieceEncoding` -- and
they build their special tokens differently (a rank file's extra names,
``tokenizer.json``'s special added tokens, SentencePiece's control symbols)
over internals that have little else in common (byte ranks, a Hugging Face
pipeline, character merges).  A common base class would force one
constructor on them; plain functions would leave each class to repeat the
public properties.  So `SpecialTokens` asks only for ``self._special`` (text
-> id) and ``self._special_ids`` (a frozenset of the ids) and adds the
properties and the allowed / disallowed check.  `special_segments` cuts text
at the allowed tokens for the families that cut before anything else (the
Hugging Face family finds its added tokens in its own pipeline instead).

The trap: the disallowed token reported must be the leftmost, then the
longest (of two special tokens where one is a prefix of the other, the
longer one matched).  `special_regex` sorts longest first so the alternation
does that; `first_disallowed` reaches the same token more cheaply when the
caller allowed some tokens (tests/engine/tokenizer/test_special_tokens.py checks it against
that plain search).
"""
from __future__ import annotations

import functools
import re
from types import MappingProxyType
from typing import AbstractSet, Callable, Collection, Iterable, Literal, Mapping, NoReturn

import regex

from ..errors import DisallowedSpecialTokenError

# tiktoken's two keyword arguments, named once for every signature that takes them.
AllowedSpecial = Literal["all"] | AbstractSet[str]
DisallowedSpecial = Literal["all"] | Collection[str]


def raise_disallowed_special_token(token: str) -> NoReturn:
    raise DisallowedSpecialTokenError(token)


@functools.lru_cache(maxsize=128)
def special_regex(tokens: frozenset[str]) -> regex.Pattern:
    """One pattern finding any of `tokens`: leftmost, then longest."""
    # Longest first, so a special token that is a prefix of another never wins.
    return regex.compile("|".join(regex.escape(t) for t in sorted(tokens, key=lambda t: (-len(t), t))))


def special_segments(
    text: str, allowed: frozenset[str], special_ids: Mapping[str, int]
) -> Iterable[tuple[int, int, int | None]]:
    """(start, end, special id or None): ordinary text and the `allowed` special tokens, in order."""
    start = 0
    if allowed:
        for m in special_regex(allowed).finditer(text):
            if m.start() > start:
                yield start, m.start(), None
            yield m.start(), m.end(), special_ids[m.group()]
            start = m.end()
    if start < len(text):
        yield start, len(text), None


def first_disallowed(
    text: str, disallowed: frozenset[str], every: frozenset[str],
    pattern: Callable[[frozenset[str]], re.Pattern[str] | regex.Pattern | None],
) -> str | None:
    """The leftmost (then longest) of `disallowed` in `text`, or None.

    `every` is all the encoding's special tokens and ``pattern(tokens)`` a
    cached leftmost-longest pattern for a set of them.  The pattern of
    `every` is built once and serves every call; only when an allowed token
    turns up first (and might hide a disallowed one) is the answer looked
    for again, by substring search or, for long texts and many tokens, by a
    pattern of the disallowed ones.
    """
    for m in pattern(every if disallowed <= every else disallowed).finditer(text):  # type: ignore[union-attr]
        if m.group() in disallowed:
            return m.group()
        if len(disallowed) * len(text) <= 1_000_000:  # a few substring searches beat compiling a pattern
            found = [(k, -len(t), t) for t in disallowed for k in [text.find(t)] if k >= 0]
            return min(found)[2] if found else None
        hit = pattern(disallowed).search(text)  # type: ignore[union-attr]
        return hit.group() if hit is not None else None
    return None


class SpecialTokens:
    """Mixin: tiktoken's special-token API over ``self._special`` and ``self._special_ids``.

    A family whose special tokens are best found by another pattern (many of
    them, or a family that already builds one) overrides `_special_pattern`.
    """

    _special: dict[str, int]
    _special_ids: frozenset[int]

    @property
    def special_tokens(self) -> Mapping[str, int]:
        """Special token text -> id, read-only (what counts as special: see the class)."""
        return MappingProxyType(self._special)

    @property
    def special_tokens_set(self) -> set[str]:
        return set(self._special)

    def is_special_token(self, token: int) -> bool:
        return token in self._special_ids

    def _special_pattern(self, tokens: frozenset[str]) -> re.Pattern[str] | regex.Pattern | None:
        return special_regex(tokens)

    def _allowed(self, text: str, allowed_special: AllowedSpecial, disallowed_special: DisallowedSpecial) -> frozenset[str]:
        """The special tokens to encode as ids in `text`; raises if it holds a disallowed one (tiktoken's check)."""
        every = frozenset(self._special)
        allowed = every if allowed_special == "all" else frozenset(allowed_special)
        disallowed = every - allowed if disallowed_special == "all" else frozenset(disallowed_special)
        if disallowed:
            token = first_disallowed(text, disallowed, every, self._special_pattern)
            if token is not None:
                raise_disallowed_special_token(token)
        return allowed & every


def check_special_tokens(special_tokens: Iterable[str] | None) -> list[str]:
    """A user's special tokens for training or a minbpe file: non-empty, no whitespace, distinct."""
    specials = list(special_tokens or [])
    for tok in specials:
        if not isinstance(tok, str) or not tok:
            raise ValueError(f"special token {tok!r} must be a non-empty string")
        if any(ch.isspace() for ch in tok):
            raise ValueError(f"special token {tok!r} contains whitespace; minbpe's .model format cannot store it")
    if len(set(specials)) != len(specials):
        raise ValueError("special tokens must be distinct")
    return specials


# Groups one inside another in `literal_trie_pattern`'s result, at most: `re` compiles nested groups by recursion
# (it failed near 450 of them, the `regex` module under 200, and a Streamlit script starts a hundred frames down).
# Real files nest a few (Gemma 3's <unusedN>: 4); added tokens that are each other's prefixes nest one per token.
MAX_NESTED_GROUPS = 48


def literal_trie_pattern(words: Iterable[str]) -> str:
    """A regex matching any of `words`, the longest one at the leftmost position (Aho-Corasick's LeftmostLongest).

    The words are folded into a trie (``<a``, ``<ab`` -> ``<a(?:b)?``): a greedy
    optional tries the longer word first.  Sibling characters whose subtrees are
    the same regex share one character class (``<x1>``, ``<x2>`` -> ``<x[12]>``):
    the branches start with different characters, so which one is tried first
    never mattered.  Gemma 3's 6,242 ``<unusedN>`` tokens fold to about a
    thousand characters of pattern that way, which `re` compiles in a couple of
    milliseconds (without the classes the pattern is twenty times longer).
    Matching costs one step per character of the longest word matched, however
    many words there are (a flat alternation tries every word at every place).

    The trap: depth.  A word is as deep in the trie as it is long (an added token may
    have 4,096 characters), so the trie is walked with an explicit stack, never by
    recursion.  And words that are each other's prefixes (``B``, ``BB``, ``BBB`` ...)
    nest one group per word, which `re` compiles by recursion: where the groups
    would nest deeper than MAX_NESTED_GROUPS, the subtree below is written as one
    alternation of its words, longest first -- the same matches (the first
    alternative that matches is the longest word), in a pattern no longer than those
    words together, at the cost of trying them in turn.
    """
    trie: dict = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}
    try:
        return _fold(trie)
    except _TooDeep:
        return _fold(trie, flat=_flat_nodes(trie))


class _TooDeep(Exception):
    """A trie regex would nest more than MAX_NESTED_GROUPS groups."""


def _fold(trie: dict, flat: AbstractSet[int] = frozenset()) -> str:
    """The trie's regex, built bottom-up; the nodes in `flat` (by id) as one alternation each.  Raises `_TooDeep`
    as soon as its groups nest deeper than MAX_NESTED_GROUPS."""
    folded: dict[int, tuple[str, int]] = {}  # id(node) -> (its regex, groups nested in it), until its parent takes it
    for node in _post_order(trie, stop=flat):
        if id(node) in flat:
            folded[id(node)] = (_alternation(node), 1)
            continue
        pattern, nested = _trie_node_pattern(node, folded)
        if nested > MAX_NESTED_GROUPS:
            raise _TooDeep
        folded[id(node)] = (pattern, nested)
    return folded[id(trie)][0]


def _flat_nodes(trie: dict) -> set[int]:
    """The nodes (by id) to write as one alternation so that no group nests deeper than MAX_NESTED_GROUPS: top-down,
    a node `outside` groups deep keeps its trie regex when everything below it fits; else it opens its own groups
    and its children are looked at in turn; or, with no room left for that, it becomes one alternation."""
    nesting: dict[int, int] = {}  # groups nested in each node's trie regex, at most
    for node in _post_order(trie):
        nesting[id(node)] = _own_groups(node) + max((nesting[id(c)] for ch, c in node.items() if ch), default=0)
    flat: set[int] = set()
    stack = [(trie, 0)]
    while stack:
        node, outside = stack.pop()
        if outside + nesting[id(node)] <= MAX_NESTED_GROUPS:
            continue
        inside = outside + _own_groups(node)
        if inside >= MAX_NESTED_GROUPS:
            flat.add(id(node))
        else:
            stack.extend((child, inside) for ch, child in node.items() if ch)
    return flat


def _post_order(root: dict, stop: AbstractSet[int] = frozenset()) -> Iterable[dict]:
    """The nodes of a trie, children before their parent, without recursion; below a node in `stop`, none."""
    stack: list[tuple[dict, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if children_done or id(node) in stop:
            yield node
            continue
        stack.append((node, True))
        stack.extend((child, False) for ch, child in node.items() if ch)


def _own_groups(node: dict) -> int:
    """Groups a trie node's regex opens around its children's, at most: one for several branches, one more to make
    them optional when a word also ends here."""
    children = len(node) - ("" in node)
    return (children > 1) + ("" in node and children > 0)


def _trie_node_pattern(node: dict, folded: dict[int, tuple[str, int]]) -> tuple[str, int]:
    """The regex of one trie node from its children's (taken out of `folded`), and how deep its groups nest."""
    ends = "" in node
    shared: dict[str, list[str]] = {}  # subtree regex -> the characters leading to it
    nested = 0
    for ch, child in sorted(node.items()):
        if ch:
            sub, sub_nested = folded.pop(id(child))
            shared.setdefault(sub, []).append(ch)
            nested = max(nested, sub_nested)
    branches = [(re.escape(chars[0]) if len(chars) == 1 else "[" + "".join(map(re.escape, chars)) + "]") + sub
                for sub, chars in shared.items()]
    if not branches:
        return "", 0
    if len(branches) == 1:
        body = branches[0]
    else:
        body, nested = "(?:" + "|".join(branches) + ")", nested + 1
    if ends:
        if len(branches) == 1 and len(branches[0]) == 1:
            return body + "?", nested
        return "(?:" + body + ")?", nested + 1
    return body, nested


def _alternation(node: dict) -> str:
    """The words below a trie node as one group, longest first (optional if a word ends at the node)."""
    words: list[str] = []
    stack: list[tuple[dict, str]] = [(node, "")]
    while stack:
        at, prefix = stack.pop()
        for ch, child in at.items():
            if ch:
                stack.append((child, prefix + ch))
            elif prefix:
                words.append(prefix)
    words.sort(key=lambda w: (-len(w), w))
    return "(?:" + "|".join(map(re.escape, words)) + ")" + ("?" if "" in node else "")
