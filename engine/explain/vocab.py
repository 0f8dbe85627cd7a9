r"""Look inside a vocabulary: every token's facts, search, quick filters, families, glitch tokens.

A vocabulary is just ``token bytes -> id``.  To explore it we need, per
token, its bytes shown readably: many byte-level tokens are *not* valid
UTF-8 on their own (``b"\xe6\x97"`` is the first two bytes of 日), so
`readable` shows such bytes as hex, ``<e6 97>``, and decodes the rest.

    >>> readable(b" \xe6\x97")
    ' <e6 97>'
    >>> readable(b" hi\n", space="_")
    '_hi\\n'

A user's regex runs over every token, so a pattern with nested quantifiers
(``(=|=)+x`` on a token of 30 ``=``) could backtrack for minutes.  `search_regex`
gives the `regex` module one shared time budget (its ``timeout=``) and raises
`RegexTimeoutError` (a `TimeoutError`) saying how to fix the pattern.
The `regex` module defuses some classics itself: ``(a+)+$`` finishes quickly.

Everything here is pure and works on any `Encoding`; derived tables are
cached per encoding object in a small bounded cache.
"""
from __future__ import annotations

import functools
import json
import threading
import time
import unicodedata
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, NamedTuple, TypeVar

import regex

from ..api import EncodingAPI
from ..text import is_valid_utf8

T = TypeVar("T")

GLITCH_FILE = Path(__file__).parent.parent / "data" / "glitch_tokens.json"
REGEX_TIMEOUT = 2.0  # seconds for one regex search over the whole vocabulary
REGEX_TOKEN_TIMEOUT = 0.25  # seconds for the search in one token
_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
_NEEDS_CARE = regex.compile(r"[\p{Cc}\u2028\u2029]")  # characters `readable` does not show as is


# --------------------------------------------------------------- one token
def readable(data: bytes, *, space: str = " ") -> str:
    """`data` as text; bytes that are not valid UTF-8 on their own as hex ``<e6 97>``.

    Newline, tab and carriage return show as ``\\n``, ``\\t``, ``\\r``; other
    control characters as hex; a space as `space` (pass "␣" to make it visible).
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:  # fast path: most tokens are plain text
        if not _NEEDS_CARE.search(text):
            return text if space == " " else text.replace(" ", space)
    out: list[str] = []
    bad: list[int] = []  # invalid bytes waiting to be shown as one <..> group

    def flush_bad() -> None:
        if bad:
            out.append("<" + " ".join(f"{b:02x}" for b in bad) + ">")
            bad.clear()

    def show(text: str) -> None:
        for ch in text:
            if ch in _ESCAPES:
                flush_bad()
                out.append(_ESCAPES[ch])
            elif ch == " ":
                flush_bad()
                out.append(space)
            elif unicodedata.category(ch) in ("Cc", "Zl", "Zp"):
                bad.extend(ch.encode("utf-8"))
            else:
                flush_bad()
                out.append(ch)

    rest = bytes(data)
    while rest:
        try:
            show(rest.decode("utf-8"))
            break
        except UnicodeDecodeError as err:
            show(rest[: err.start].decode("utf-8"))
            bad.extend(rest[err.start : err.end])
            rest = rest[err.end :]
    flush_bad()
    return "".join(out)


def has_leading_space(data: bytes) -> bool:
    """A word-initial token: a space followed by something that is not a space (``b" the"``)."""
    return len(data) > 1 and data[:1] == b" " and not data.isspace()


def is_digits(text: str) -> bool:
    """Only decimal digits, after an optional leading space (``"2026"``, ``" 42"``)."""
    core = text[1:] if text.startswith(" ") else text
    return core.isdecimal()


class TokenInfo(NamedTuple):
    """Facts about one token, for tables.  `length` counts bytes.  (A tuple: 200k of them build fast.)"""

    id: int
    bytes: bytes
    text: str  # decoded with U+FFFD for bytes that are not whole characters
    readable: str  # decoded, with invalid bytes as <hex> and controls escaped
    length: int
    leading_space: bool
    valid_utf8: bool


def token_info(enc: EncodingAPI, token_id: int) -> TokenInfo:
    """Facts about `token_id` (ordinary or special); `engine.UnknownTokenError` for unused ids."""
    return _info(token_id, enc.decode_single_token_bytes(token_id))


def _info(token_id: int, data: bytes) -> TokenInfo:
    return TokenInfo(token_id, data, data.decode("utf-8", errors="replace"), readable(data), len(data),
                     has_leading_space(data), is_valid_utf8(data))


def per_encoding(maxsize: int) -> Callable[[Callable[[EncodingAPI], T]], Callable[[EncodingAPI], T]]:
    """Cache one value per encoding, for at most `maxsize` encodings, without keeping any alive.

    `functools.lru_cache` would hold its six encodings (and their 200,000 `TokenInfo` each, about 50 MB):
    a session's uploaded tokenizer would stay in memory after the session released it.  Here an
    entry goes with its encoding (a weak reference), or when `maxsize` newer ones push it out.
    """
    def decorate(fn: Callable[[EncodingAPI], T]) -> Callable[[EncodingAPI], T]:
        entries: OrderedDict[int, tuple[weakref.ref, T]] = OrderedDict()
        lock = threading.Lock()

        @functools.wraps(fn)
        def wrapper(enc: EncodingAPI) -> T:
            key = id(enc)
            with lock:
                found = entries.get(key)
                if found is not None and found[0]() is enc:
                    entries.move_to_end(key)
                    return found[1]
            value = fn(enc)

            def forget(ref: weakref.ref, key: int = key) -> None:
                # The encoding died (its id may be reused by a new one).  No lock: the collector may call
                # this while this thread holds it; one dict operation is atomic anyway.
                if entries.get(key, (None,))[0] is ref:
                    entries.pop(key, None)

            with lock:
                entries[key] = (weakref.ref(enc, forget), value)
                while len(entries) > maxsize:
                    entries.popitem(last=False)
            return value

        wrapper.cache_clear = entries.clear  # type: ignore[attr-defined]
        return wrapper

    return decorate


@per_encoding(maxsize=6)
def token_infos(enc: EncodingAPI) -> tuple[TokenInfo, ...]:
    """`TokenInfo` for every ordinary token, in id order (cached per encoding)."""
    by_id = sorted((tid, data) for data, tid in enc.mergeable_ranks.items())
    return tuple(_info(tid, data) for tid, data in by_id)


@per_encoding(maxsize=6)
def _lowered(enc: EncodingAPI) -> tuple[str, ...]:
    return tuple(info.text.casefold() for info in token_infos(enc))


# ------------------------------------------------------------------ search
class RegexTimeoutError(TimeoutError):
    """A user's regex ran out of its time budget over the vocabulary."""


def search_substring(enc: EncodingAPI, needle: str, *, ignore_case: bool = False) -> list[int]:
    """Ids of the tokens whose text contains `needle` (all tokens for an empty needle)."""
    infos = token_infos(enc)
    if not needle:
        return [info.id for info in infos]
    if ignore_case:
        folded = needle.casefold()
        return [info.id for info, low in zip(infos, _lowered(enc)) if folded in low]
    return [info.id for info in infos if needle in info.text]


def compile_user_regex(pattern: str, *, ignore_case: bool = False) -> regex.Pattern:
    """Compile a user's pattern; ValueError with the position and a hint when it is invalid."""
    try:
        return regex.compile(pattern, regex.IGNORECASE if ignore_case else 0)
    except regex.error as err:
        raise ValueError(
            f"invalid regex {pattern!r}: {err}. Escape special characters such as ( [ + * ? "
            "with a backslash, or switch to substring search."
        ) from None


def search_regex(
    enc: EncodingAPI, pattern: str, *, ignore_case: bool = False, timeout: float = REGEX_TIMEOUT
) -> list[int]:
    """Ids of the tokens whose text matches `pattern` anywhere (``regex.search``).

    All searches share one budget of `timeout` seconds, and one token may
    take at most REGEX_TOKEN_TIMEOUT; running out raises `RegexTimeoutError`
    instead of holding the server.
    """
    compiled = compile_user_regex(pattern, ignore_case=ignore_case)
    deadline = time.monotonic() + timeout
    search = compiled.search
    out: list[int] = []
    info = None
    per_call = min(timeout, REGEX_TOKEN_TIMEOUT)
    try:
        for k, info in enumerate(token_infos(enc)):
            if k % 256 == 0:  # re-read the clock now and then: per-call clock reads cost more than the search
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError
                per_call = max(min(remaining, REGEX_TOKEN_TIMEOUT), 1e-3)
            if search(info.text, timeout=per_call):
                out.append(info.id)
    except TimeoutError:
        where = f" (stopped at token {info.id}, {info.readable!r})" if info is not None else ""
        raise RegexTimeoutError(
            f"the regex {pattern!r} took too long (limits: {REGEX_TOKEN_TIMEOUT:g} s on one token, "
            f"{timeout:g} s over the whole {enc.name} vocabulary){where}. "
            "Nested or overlapping repeats such as (a|a)+, (=|=)+ or (a+)+ backtrack exponentially: "
            "write them as a single repeat (a+, =+), or anchor the pattern (^...$)."
        ) from None
    return out


# ----------------------------------------------------------------- filters
def longest(enc: EncodingAPI, limit: int = 100) -> list[int]:
    """The `limit` longest tokens (in bytes), longest first, ties by id."""
    infos = sorted(token_infos(enc), key=lambda i: (-i.length, i.id))
    return [info.id for info in infos[:limit]]


# Reserved slots a model never trained on: BERT's [unused0]…, Gemma's <unused0>…, Llama 3's reserved specials
UNUSED_SLOT = regex.compile(r"\[unused\d+\]|<unused\d+>|<\|reserved_special_token_\d+\|>")

FILTERS: dict[str, Callable[[TokenInfo], bool]] = {
    "invalid_utf8": lambda info: not info.valid_utf8,
    "unused": lambda info: UNUSED_SLOT.fullmatch(info.text) is not None,
    "leading_space": lambda info: info.leading_space,
    "digits": lambda info: is_digits(info.text),
}


def filter_tokens(enc: EncodingAPI, name: str) -> list[int]:
    """Ids of the tokens passing a quick filter: 'invalid_utf8', 'unused' (reserved slots such as BERT's
    ``[unused0]`` and Gemma's ``<unused0>``), 'leading_space', 'digits' (id order)."""
    try:
        keep = FILTERS[name]
    except KeyError:
        raise ValueError(f"unknown filter {name!r}; use one of {sorted(FILTERS)} or longest()") from None
    return [info.id for info in token_infos(enc) if keep(info)]


def length_histogram(enc: EncodingAPI) -> list[tuple[int, int]]:
    """``[(length in bytes, number of tokens), ...]`` sorted by length."""
    counts: dict[int, int] = {}
    for info in token_infos(enc):
        counts[info.length] = counts.get(info.length, 0) + 1
    return sorted(counts.items())


# ---------------------------------------------------------------- families
@dataclass(frozen=True)
class Family:
    """A bounded list of related token ids and how many there are in all."""

    ids: tuple[int, ...]
    total: int


def containing(enc: EncodingAPI, token_id: int, *, limit: int = 50) -> Family:
    """Tokens whose bytes contain `token_id`'s bytes (itself excluded), shortest first."""
    needle = enc.decode_single_token_bytes(token_id)
    found = [info for info in token_infos(enc) if needle in info.bytes and info.id != token_id]
    found.sort(key=lambda i: (i.length, i.id))
    return Family(tuple(info.id for info in found[:limit]), len(found))


def contained(enc: EncodingAPI, token_id: int, *, limit: int = 50) -> Family:
    """Tokens found inside `token_id`'s bytes (itself excluded), longest first, then by position."""
    data = enc.decode_single_token_bytes(token_id)
    ranks = enc.mergeable_ranks
    seen: dict[int, tuple[int, int]] = {}
    n = len(data)
    for start in range(n):
        for end in range(start + 1, n + 1):
            if end - start == n:
                continue
            tid = ranks.get(data[start:end])
            if tid is not None and tid not in seen:
                seen[tid] = (-(end - start), start)
    ordered = sorted(seen, key=seen.__getitem__)
    return Family(tuple(ordered[:limit]), len(ordered))


# ----------------------------------------------------------- glitch tokens
@dataclass(frozen=True)
class GlitchToken:
    id: int
    token: str
    note: str


@functools.lru_cache(maxsize=1)
def _glitch_data() -> dict:
    return json.loads(GLITCH_FILE.read_text(encoding="utf-8"))


def glitch_sources() -> list[dict[str, str]]:
    """Where the glitch-token list comes from: title, authors, year, venue."""
    return list(_glitch_data()["sources"])


def glitch_tokens(enc: EncodingAPI) -> dict[int, GlitchToken]:
    """Known under-trained tokens of GPT-2's vocabulary, by id; empty for other vocabularies.

    Applies to encodings named in the data file (gpt2, r50k_base: the same
    50,257 tokens).  Every entry must be one token there: a missing one is a
    bug in the shipped file, so it raises ValueError naming the entry.
    """
    data = _glitch_data()
    if enc.name not in data["encodings"]:
        return {}
    ranks = enc.mergeable_ranks
    out: dict[int, GlitchToken] = {}
    for k, entry in enumerate(data["tokens"]):
        tid = ranks.get(entry["token"].encode("utf-8"))
        if tid is None:
            raise ValueError(f"{GLITCH_FILE.name}: entry {k} {entry['token']!r} is not a single token of {enc.name}")
        out[tid] = GlitchToken(tid, entry["token"], entry["note"])
    return out
