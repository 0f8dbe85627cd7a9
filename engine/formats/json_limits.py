"""JSON read within limits: nesting depth and number of values measured before `json.loads` builds anything.

`json.loads` recurses once per nested array or object, so a file of 100,000
``[`` ends in a `RecursionError` (not a ValueError, so a caller that reports bad
files by catching ValueError misses it), and it turns every value into a Python object, so a 40 MB file of
``[],`` becomes 13 million lists (over 800 MB).  `scan_json` measures both on
the raw bytes first, one megabyte at a time with bytes methods and regexes
(no Python loop per character), so refusing a hostile file costs a few MB and a
fraction of a second; `load_json_bounded` then parses a file that passed.

What the scan counts, outside strings: ``[`` and ``{`` (containers) and ``,``
and ``:`` (about one per value).  Strings are cut out first: every escape
(a backslash and the byte after it) is removed, left to right as JSON reads
them, then every ``"..."`` span; the depth is walked over the brackets with
each run of side-by-side empty containers kept as one (the same deepest level).  For invalid JSON the counts are only
right up to the first error, which is where `json.loads` stops too.

*The largest object and array.*  A vocabulary is one object, the merges one array, and a file is refused for
more of them than a tokenizer can have -- after `json.loads` had built them all (a 1.24 million-entry
vocabulary cost about 190 MB only to be refused).  So the scan also measures the most members of one object
(`MAX_JSON_MEMBERS`) and items of one array (`MAX_JSON_ITEMS`).  It keeps the structure outside strings (a
few bytes per value).  Colons are only found in objects, one per member: with the commas deleted, a run of
colons and no bracket between lies in one object, and ``bytes.find`` of a run one longer than the limit finds
an object past it.  An array of n items holds n - 1 commas after its opening bracket (and no colon).  The
innermost containers -- only separators inside -- are then removed, joining the runs of the level above, so
every container is measured once it is innermost, one level at a time.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from itertools import accumulate, count
from operator import sub
from typing import Any

from ..errors import JsonLimitError
from .gc_paused import gc_paused
from .limits import MAX_JSON_CONTAINERS, MAX_JSON_DEPTH, MAX_JSON_ITEMS, MAX_JSON_MEMBERS, MAX_JSON_VALUES

_CHUNK = 1 << 20
_STRUCTURE = b'"[]{},:'
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in _STRUCTURE)
_OPEN_CLOSE = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")  # +1 / -1 once 1 is subtracted per step
# Possessive (``{2,}+``): a plain repeat keeps a backtracking mark per pair, 20 MB for the 262,000 of a 1 MB chunk
# of ``[{},{},…]``, which made a refused file cost that much.
_EMPTY_RUN = re.compile(rb"(?:\x02\x00){2,}+")
# one regex pass: `bytes.replace` of a two-byte needle turns slow on text full of quotes (bench_families)
_ESCAPE = re.compile(rb"\\.", re.DOTALL)
_INNER = re.compile(rb"[\[{][,:]*+[\]}]")  # containers with no container inside
_DEPTH_FIX = ("Real tokenizer files nest fewer than 10 levels, a chat export about 6; "
              "this one may be corrupt or built to exhaust the server.")


@dataclass(frozen=True)
class JsonShape:
    depth: int  # deepest nesting of arrays/objects (a flat object is 1)
    containers: int  # arrays + objects
    values: int  # commas + colons + containers: about the number of values json.loads builds
    members: int = 0  # colons: members of all objects (a vocabulary's entries among them)
    largest_object: int = 0  # members of the largest object (a vocabulary), if it has `LARGE` or more
    largest_array: int = 0  # items of the largest array (merges; a Unigram or Tekken vocabulary), if `LARGE` or more


_TOKENIZER_MOST = ("The most in a real tokenizer file, Gemma 3's tokenizer.json, is {}; "
                   "this one may be corrupt or built to exhaust the server.")


def scan_json(data: bytes | str, *, source: str, max_depth: int = MAX_JSON_DEPTH,
              max_containers: int = MAX_JSON_CONTAINERS, max_values: int = MAX_JSON_VALUES,
              max_members: int = MAX_JSON_MEMBERS, max_items: int = MAX_JSON_ITEMS,
              most: str = _TOKENIZER_MOST) -> JsonShape:
    """The shape of the JSON text `data`; `JsonLimitError` naming `source` and the limit as soon as one is passed.
    `most` says what the largest real file of its kind holds (``{}`` is filled with "521,355" for containers and
    "about 2.17 million" for values, Gemma 3's tokenizer.json); a caller with its own limits says its own."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    pending = b""  # a backslash that ends a chunk escapes the next chunk's first byte
    in_string = False
    depth = deepest = containers = separators = members = 0
    structure: list[bytes] = []  # brackets and separators outside strings: a few bytes per value at most
    for start in range(0, len(data), _CHUNK):
        chunk = _ESCAPE.sub(b"", pending + data[start : start + _CHUNK])
        pending = b"\\" if chunk.endswith(b"\\") else b""  # only a backslash whose byte is in the next chunk is left
        chunk = chunk[: len(chunk) - len(pending)].translate(None, _NOT_STRUCTURE)
        # Only quotes are left of the strings: the even parts between them are outside, and an odd
        # number of quotes leaves a string open into the next chunk.
        parts = (b'"' + chunk if in_string else chunk).split(b'"')
        in_string = not len(parts) % 2
        outside = b"".join(parts[::2])
        structure.append(outside)
        colons = outside.count(b":")
        members += colons
        separators += outside.count(b",") + colons
        brackets = outside.translate(_OPEN_CLOSE, b",:")
        opened = brackets.count(2)
        containers += opened
        if brackets:
            # A run of empty containers side by side (``["a","b"],["c","d"]`` once strings are cut out)
            # peaks one level up as one of them does: kept as one, the walk below is short.
            peaks = _EMPTY_RUN.sub(b"\x02\x00", brackets)
            deepest = max(deepest, max(map(sub, accumulate(peaks, initial=depth), count(0))))
            depth += 2 * opened - len(brackets)
            if deepest > max_depth:
                raise JsonLimitError(source, f"arrays and objects are nested at least {deepest:,} levels deep",
                                     f"{max_depth:,} levels", _DEPTH_FIX)
        if containers > max_containers:
            raise JsonLimitError(source, f"the JSON holds at least {containers:,} arrays and objects", f"{max_containers:,}",
                                 most.format("521,355"))
        if containers + separators > max_values:
            raise JsonLimitError(source, f"the JSON holds at least {containers + separators:,} values", f"{max_values:,}",
                                 most.format("about 2.17 million"))
    largest_object, largest_array = _largest(b"".join(structure), deepest, source, max_members, max_items)
    return JsonShape(deepest, containers, containers + separators, members, largest_object, largest_array)


LARGE = 1_000  # smaller objects and arrays are not measured one by one (a loop turn each would be slow)
_RUN_END = bytes.maketrans(b"[]{}", b"||||")


def _longest_run(view: bytes, needle: bytes, skip: int) -> int:
    """The longest run of `needle`'s last byte in `view` (brackets and that byte only) starting where `needle`
    matches, `skip` bytes in; -1 for none.  ``bytes.find`` of the needle finds each long run at its start (an
    earlier start would match first), so the loop turns once per long run, at C speed in between."""
    ends = view.translate(_RUN_END)
    longest, pos = -1, view.find(needle)
    while pos >= 0:
        end = ends.find(b"|", pos + skip)
        end = len(view) if end < 0 else end
        longest = max(longest, end - pos - skip)
        pos = view.find(needle, end)
    return longest


def _largest(structure: bytes, depth: int, source: str, max_members: int, max_items: int) -> tuple[int, int]:
    """The most members of one object and items of one array in `structure` (brackets and separators only),
    measured level by level from the innermost (see the module doc); `JsonLimitError` past `max_members` or
    `max_items`.  Containers smaller than `LARGE` (or than the limits, if lower) count as 0."""
    floor = max(1, min(LARGE, max_members + 1, max_items))
    members = items = 0
    for _ in range(depth + 1):
        members = max(members, _longest_run(structure.translate(None, b","), b":" * floor, 0))
        if members > max_members:
            raise JsonLimitError(source, f"one object holds {members:,} members", f"{max_members:,}",
                                 "A vocabulary, the largest object of a tokenizer file, has one entry per token; "
                                 "this file may be corrupt or built to exhaust the server.")
        # an array of n items: n - 1 commas after its bracket ("[]" and "[1]" look alike: at least one item)
        items = max(items, _longest_run(structure.translate(None, b":"), b"[" + b"," * (floor - 1), 1) + 1)
        if items > max_items:
            raise JsonLimitError(source, f"one array holds {items:,} items", f"{max_items:,}",
                                 "The merges, the largest array of a tokenizer file, have at most that many "
                                 "(Gemma 3: 514,906); this file may be corrupt or built to exhaust the server.")
        inner = _remove_innermost(structure)
        if len(inner) == len(structure):
            break
        structure = inner
    return members, items


def _remove_innermost(structure: bytes, step: int = 1 << 18) -> bytes:
    """`structure` without its innermost containers, removed a window at a time: `re.sub` keeps every piece
    between two matches as its own bytes object until it joins them (over 80 MB for Gemma 3's 515,000 merges at
    once).  A window ends just before an opening bracket, which no innermost container can straddle."""
    out, start, n = [], 0, len(structure)
    while start < n:
        end = start + step
        if end < n:
            cut = max(structure.rfind(b"[", start + 1, end), structure.rfind(b"{", start + 1, end))
            if cut < 0:  # one long run of separators: on to the next opening bracket
                found = [k for k in (structure.find(b"[", end), structure.find(b"{", end)) if k >= 0]
                cut = min(found) if found else n
            end = cut
        out.append(_INNER.sub(b"", structure[start:end]))
        start = end
    return b"".join(out)


# A character past U+FFFF in UTF-8: four bytes from F0-F4.
_ASTRAL = re.compile(rb"[\xf0-\xf4][\x80-\xbf]{3}")


def _surrogate_escape(found: re.Match) -> bytes:
    try:
        code = ord(found.group().decode("utf-8")) - 0x10000
    except UnicodeDecodeError:  # not a character: left for the decoder to name
        return found.group()
    return b"\\u%04x\\u%04x" % (0xD800 | code >> 10, 0xDC00 | code & 0x3FF)


def narrow_text(data: bytes) -> str:
    """The text `json.loads(data)` would decode, but with every character past U+FFFF written as its JSON
    escape (a surrogate pair, which json.loads reads back as the one character).

    Why: a Python string takes 4 bytes per character as soon as one of them is past U+FFFF, and json.loads
    decodes the whole file to one string first, so Gemma 3's tokenizer.json, 33 MB with 2,410 emoji, became a
    124 MB string before a value was built; escaped, it is 2 bytes per character at most (62 MB).  Only inside
    a JSON string can such a character stand, and there its escape means the same; a file in UTF-16 or 32
    (json.loads reads those too) is decoded as it is."""
    encoding = json.detect_encoding(data)
    if encoding in ("utf-8", "utf-8-sig") and _ASTRAL.search(data) is not None:
        data = _ASTRAL.sub(_surrogate_escape, data)
    return data.decode(encoding, "surrogatepass")


def load_json_bounded(data: bytes | str, *, name: str, expected: str = "", max_depth: int = MAX_JSON_DEPTH,
                      max_containers: int = MAX_JSON_CONTAINERS, max_values: int = MAX_JSON_VALUES) -> Any:
    """`json.loads(data)` after `scan_json`: `JsonLimitError` past a limit, ValueError (naming `name`, then
    `expected`: what the caller wanted, e.g. "upload the tokenizer.json file itself") for bad JSON.

    Use it for any JSON a user hands the app (a tokenizer file, a chat import): the error names the
    file and the limit instead of ending in a RecursionError or an out-of-memory kill.
    """
    scan_json(data, source=name, max_depth=max_depth, max_containers=max_containers, max_values=max_values)
    try:
        text = narrow_text(data) if isinstance(data, bytes) else data
        with gc_paused():
            return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{name}: not valid JSON ({exc})" + (f"; {expected}" if expected else "")) from None
    except RecursionError:  # the scan bounds depth; this only guards a caller whose stack is already deep
        raise JsonLimitError(name, "arrays and objects are nested deeper than the parser's stack allows",
                             f"{max_depth:,} levels", _DEPTH_FIX) from None
