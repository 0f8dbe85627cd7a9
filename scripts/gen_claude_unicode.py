"""Write engine/data/claude_unicode15_fixes.json: where Python 3.11's Unicode 14 data differs from 3.12's 15.0.

ctok (the Claude count reconstruction, `engine.families.claude`) runs on Python >= 3.12 and reads
`unicodedata` (Unicode 15.0 there); the playground runs on 3.11 (Unicode 14.0).  The reconstruction reads
four properties of a code point: its general category, its canonical combining class, `str.islower` and
`str.lower`.  This script lists every code point where one of them differs between the two Pythons,
with 3.12's value, as ranges.  `str.lower`, `str.isupper` and single-character NFC do not differ (checked
here: the script fails if they ever do).

Run: `python scripts/gen_claude_unicode.py` (needs `python3.12` on PATH; with pyenv, PYENV_VERSION=3.12.1).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "engine" / "data" / "claude_unicode15_fixes.json"

_DUMP = r"""
import json, sys, unicodedata
rows = []
for o in range(0x110000):
    if 0xD800 <= o <= 0xDFFF:
        continue
    c = chr(o)
    rows.append([unicodedata.category(c), unicodedata.combining(c), c.islower(), c.lower(), c.isupper(),
                 unicodedata.normalize("NFC", c)])
json.dump([unicodedata.unidata_version, rows], sys.stdout)
"""


def _rows(python: list[str]) -> tuple[str, list[list]]:
    env = {**os.environ, "PYENV_VERSION": os.environ.get("PYENV_VERSION", "3.12.1")}
    out = subprocess.run([*python, "-c", _DUMP], capture_output=True, text=True, check=True, env=env).stdout
    version, rows = json.loads(out)
    return version, rows


def _ranges(cps: list[tuple[int, object]]) -> list[list]:
    """[(cp, value), ...] sorted -> [[first, last, value], ...] joining consecutive code points with one value."""
    out: list[list] = []
    for cp, value in cps:
        if out and out[-1][1] == cp - 1 and out[-1][2] == value:
            out[-1][1] = cp
        else:
            out.append([cp, cp, value])
    return out


def main() -> None:
    old_version, old = _rows([sys.executable])
    new_version, new = _rows(["python3.12"])
    codepoints = [o for o in range(0x110000) if not 0xD800 <= o <= 0xDFFF]
    category, combining, lower_flag = [], [], []
    for o, a, b in zip(codepoints, old, new):
        if a[3:] != b[3:]:
            sys.exit(f"U+{o:04X}: str.lower / isupper / NFC differ ({a[3:]} vs {b[3:]}): extend the table and the engine")
        if a[0] != b[0]:
            category.append((o, b[0]))
        if a[1] != b[1]:
            combining.append((o, b[1]))
        if a[2] != b[2]:
            lower_flag.append((o, b[2]))
    payload = {"generator": "scripts/gen_claude_unicode.py", "from": old_version, "to": new_version,
               "category": _ranges(category), "combining": _ranges(combining), "islower": _ranges(lower_flag)}
    OUT.write_text(json.dumps(payload, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(category)} categories, {len(combining)} combining classes, {len(lower_flag)} islower")


if __name__ == "__main__":
    main()
