"""Generate engine/data/unicode16_fixes.json.

tiktoken 0.14 splits text with Rust's regex crate, whose Unicode tables are
Unicode 16.0.  The `regex` module we use follows a newer Unicode version, so a
few hundred code points fall into a different pattern class here.  This script
lists every code point whose class *as the split patterns see it* (letter case
group, mark, number, whitespace, other) differs between the `regex` module and
Unicode 16.0 (from the `unicodedata2==16.0.0` package, a dev-only tool), and
stores them as ranges with the Unicode 16.0 general category.  `engine/tokenizer/patterns.py` maps
those code points to a stand-in of their Unicode 16.0 category before
splitting, which keeps offsets unchanged (one character for one character).

Run:  pip install unicodedata2==16.0.0 && python scripts/gen_unicode16.py
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import regex
import unicodedata2

assert unicodedata2.unidata_version == "16.0.0", unicodedata2.unidata_version

PROBES = {cat: regex.compile(r"\p{%s}" % cat) for cat in
          ("Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No")}


def regex_category(ch: str) -> str:
    for cat, rx in PROBES.items():
        if rx.match(ch):
            return cat
    return "other"


def u16_category(ch: str) -> str:
    cat = unicodedata2.category(ch)
    return cat if cat in PROBES else "other"


def main() -> None:
    ranges: list[list] = []  # [first, last, unicode16_category], inclusive, merged
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        mine, theirs = regex_category(ch), u16_category(ch)
        if mine == theirs:
            continue
        if ranges and ranges[-1][1] == cp - 1 and ranges[-1][2] == theirs:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp, theirs])
    out = Path(__file__).resolve().parent.parent / "engine" / "data" / "unicode16_fixes.json"
    payload = {"regex_version": regex.__version__, "unicode": "16.0.0", "ranges": ranges}
    out.write_text(json.dumps(payload, separators=(",", ":")) + "\n")
    total = sum(b - a + 1 for a, b, _ in ranges)
    print(f"{total} code points in {len(ranges)} ranges differ; wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
