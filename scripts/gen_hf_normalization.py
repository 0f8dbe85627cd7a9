"""Generate engine/data/hf_normalization_fixes.json.

Hugging Face `tokenizers` normalizes with the `unicode-normalization-alignments`
crate, whose Unicode tables are older than Python's `unicodedata` (14.0 on
CPython 3.11): to it, ~120 newer combining marks, digits and letters are
unassigned -- no decomposition, combining class 0, never composed.  This
script finds them by asking `tokenizers`' own NFC/NFKC/NFD/NFKD (a dev-only
tool) about every code point that Python gives a decomposition, a combining
class or a category, in a few contexts.  `engine/families/hf/pipeline.py`
hides those characters from `unicodedata` while normalizing.

Run:  pip install tokenizers==0.23.3 && python scripts/gen_hf_normalization.py
"""
from __future__ import annotations

import json
import sys
import unicodedata as ud
from pathlib import Path

import tokenizers
from tokenizers import normalizers

OUT = Path(__file__).resolve().parent.parent / "engine" / "data" / "hf_normalization_fixes.json"
FORMS = {"NFC": normalizers.NFC(), "NFKC": normalizers.NFKC(), "NFD": normalizers.NFD(), "NFKD": normalizers.NFKD()}
CONTEXTS = ["{c}", "a{c}\u0301", "a\u0301{c}", "e\u0316{c}\u0301", "{c}\u0301", "\u1100{c}", "\u0301{c}\u0316", "{c}\u0308", "\u1100{c}\u11a8"]


def main() -> None:
    candidates = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000
                  and (ud.combining(chr(c)) or ud.decomposition(chr(c)) or ud.category(chr(c)) != "Cn")]
    differ = set()
    for form, theirs in FORMS.items():
        for context in CONTEXTS:
            for k in range(0, len(candidates), 5000):
                chunk = candidates[k : k + 5000]
                texts = [context.format(c=chr(c)) for c in chunk]
                joined = "\x00".join(texts)
                if theirs.normalize_str(joined) == ud.normalize(form, joined):
                    continue
                differ.update(c for c, t in zip(chunk, texts) if theirs.normalize_str(t) != ud.normalize(form, t))
    ranges: list[list[int]] = []
    for cp in sorted(differ):
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    payload = {"tokenizers_version": tokenizers.__version__, "unidata_version": ud.unidata_version, "unassigned": ranges}
    OUT.write_text(json.dumps(payload, separators=(",", ":")) + "\n")
    print(f"{len(differ)} code points in {len(ranges)} ranges -> {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
