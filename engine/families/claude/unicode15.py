"""The four Unicode properties the Claude reconstruction reads, as Python 3.12 (Unicode 15.0) answers them.

ctok, the reconstruction this family follows and the oracle its tests run, needs Python >= 3.12, whose
`unicodedata` is Unicode 15.0; the playground runs on 3.11 (Unicode 14.0).  The stream rules read a code
point's general category, its canonical combining class and `str.islower` (`str.lower`, `str.isupper` and
single-character NFC agree between the two: `scripts/gen_claude_unicode.py` checks).  Where 3.11 differs
(4,489 code points new in 15.0, 73 `islower`, 10 combining classes) `engine/data/claude_unicode15_fixes.json`
holds 3.12's answer; everything else is asked of `unicodedata` directly.
"""
from __future__ import annotations

import json
import unicodedata
from functools import lru_cache

from ...formats.tiktoken_files import DATA_DIR

_FIXES_FILE = "claude_unicode15_fixes.json"


def _expand(ranges: list[list]) -> dict[int, object]:
    return {cp: value for first, last, value in ranges for cp in range(first, last + 1)}


@lru_cache(maxsize=1)
def _fixes() -> tuple[dict[int, str], dict[int, int], dict[int, bool]]:
    payload = json.loads((DATA_DIR / _FIXES_FILE).read_text(encoding="utf-8"))
    if unicodedata.unidata_version == payload["to"]:  # Python 3.12 itself: its own answers are ctok's
        return {}, {}, {}
    if unicodedata.unidata_version != payload["from"]:
        # On another Python the table no longer describes the difference: fail loudly, never miscount.
        raise RuntimeError(f"{_FIXES_FILE} was made for Unicode {payload['from']} (Python 3.11) but this Python "
                           f"has {unicodedata.unidata_version}: rerun scripts/gen_claude_unicode.py")
    return (_expand(payload["category"]), _expand(payload["combining"]),  # type: ignore[return-value]
            _expand(payload["islower"]))


# bounded per-character memos (the stream asks the same few hundred characters again and again)
@lru_cache(maxsize=1 << 16)
def category(c: str) -> str:
    return _fixes()[0].get(ord(c)) or unicodedata.category(c)


def combining(c: str) -> int:
    value = _fixes()[1].get(ord(c))
    return unicodedata.combining(c) if value is None else value


@lru_cache(maxsize=1 << 16)
def islower(c: str) -> bool:
    value = _fixes()[2].get(ord(c))
    return c.islower() if value is None else value


def nfc(text: str) -> str:
    """NFC as Unicode 15.0 defines it.  3.11 reads ten astral marks new in 15.0 as starters (class 0), so
    it leaves them where they stand; 15.0's canonical ordering sorts each run of marks by class (a stable
    sort), which is redone here only when one of those ten occurs."""
    text = unicodedata.normalize("NFC", text)
    new_marks = _fixes()[1]
    if not any(ord(c) in new_marks for c in text if c >= "\U00010000"):
        return text
    out: list[str] = []
    run: list[str] = []
    for c in text:
        if combining(c):
            run.append(c)
            continue
        out.extend(sorted(run, key=combining))
        run = []
        out.append(c)
    out.extend(sorted(run, key=combining))
    return "".join(out)
