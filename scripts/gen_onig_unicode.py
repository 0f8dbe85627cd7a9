"""Generate engine/data/hf_onig_unicode_fixes.json.

Hugging Face `tokenizers` runs `Split` patterns with Oniguruma, whose Unicode
tables are older than the `regex` module's.  This script asks Oniguruma
itself (through `tokenizers.pre_tokenizers.Split`, a dev-only tool) for the
general category of every code point, and lists those where the `regex`
module disagrees.  `engine/families/hf/pipeline.py` maps each of them to a
stand-in character of Oniguruma's category before matching (one character
for one character, so offsets stay valid).

Run:  pip install tokenizers==0.23.3 && python scripts/gen_onig_unicode.py
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import regex
import tokenizers
from tokenizers import Regex, pre_tokenizers

CATEGORIES = ("Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi",
              "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Co", "Cn")
OUT = Path(__file__).resolve().parent.parent / "engine" / "data" / "hf_onig_unicode_fixes.json"


def all_chars() -> list[str]:
    return [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]


def onig_members(pattern: str, text: str) -> set[str]:
    keep = pre_tokenizers.Split(Regex(pattern), "removed", invert=True)  # keep only the matches
    return set("".join(piece for piece, _ in keep.pre_tokenize_str(text)))


def categories(members) -> dict[str, str]:
    out = {}
    for cat in CATEGORIES:
        for ch in members(cat):
            out[ch] = cat
    return out


def main() -> None:
    chars = all_chars()
    text = "".join(chars)
    onig = categories(lambda cat: onig_members(r"\p{%s}" % cat, text))
    ours = categories(lambda cat: set(regex.findall(r"\p{%s}" % cat, text)))
    differ = [ch for ch in chars if onig.get(ch, "Cn") != ours.get(ch, "Cn")]
    # One stand-in per category: the lowest code point from U+2000 on that both engines put in it
    # (above ASCII and Latin, so explicit ranges such as [A-Za-z] in a pattern do not catch it),
    # and U+0378 for unassigned, as in engine/tokenizer/patterns.py.
    stand_ins = {"Cn": "\u0378"}
    for ch in chars:
        cat = onig.get(ch, "Cn")
        if ch < "\u2000":
            continue
        if cat == ours.get(ch, "Cn") and cat not in stand_ins:
            stand_ins[cat] = ch
    ranges: list[list] = []
    for ch in differ:
        cp, cat = ord(ch), onig.get(ch, "Cn")
        if ranges and ranges[-1][1] == cp - 1 and ranges[-1][2] == cat:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp, cat])
    payload = {"tokenizers_version": tokenizers.__version__, "regex_version": regex.__version__,
               "stand_ins": {c: stand_ins[c] for c in sorted({r[2] for r in ranges})}, "ranges": ranges}
    OUT.write_text(json.dumps(payload, separators=(",", ":"), ensure_ascii=True) + "\n")
    print(f"{len(differ)} code points in {len(ranges)} ranges -> {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
