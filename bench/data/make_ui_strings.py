"""Build bench/data/ui_strings.txt.gz: short translated UI strings in 100+ languages, many scripts.

    python bench/data/make_ui_strings.py            # reads /usr/share/locale/*/LC_MESSAGES/gtk30.mo

The source is Debian 12's libgtk-3-common (GTK 3.24.38 translations, LGPL-2.1+): every locale's
gtk30.mo, read with the stdlib `gettext` (no msgunfmt).  Per locale we keep the translated strings
(msgstr; the first form of plural entries) that differ from their English msgid, are at most
80 characters and have not been kept already in any locale; a seeded shuffle picks the order.  Then
one string per locale in turn (round-robin over the locales, sorted by name) until the text reaches
~200 kB of UTF-8, one string per line -- so scripts change every line and strings rarely repeat.
gzip with mtime 0, so the output is byte-for-byte reproducible from the same .mo files.
"""
from __future__ import annotations

import gettext
import gzip
import random
from pathlib import Path

LOCALE_DIR = Path("/usr/share/locale")
OUT = Path(__file__).resolve().parent / "ui_strings.txt.gz"
TARGET_BYTES = 200_000
MAX_CHARS = 80


def catalog_strings(mo: Path) -> list[str]:
    with mo.open("rb") as f:
        catalog = gettext.GNUTranslations(f)._catalog  # msgid (or (msgid, n)) -> msgstr
    out = []
    for key in sorted(catalog, key=repr):
        msgid = key[0] if isinstance(key, tuple) else key
        if not msgid or (isinstance(key, tuple) and key[1] != 0):
            continue  # the header, or a second plural form
        text = catalog[key].replace("\n", " ").strip()
        if text and text != msgid and len(text) <= MAX_CHARS:
            out.append(text)
    return out


def main() -> None:
    rng = random.Random(14)
    seen: set[str] = set()
    per_locale: list[list[str]] = []
    for mo in sorted(LOCALE_DIR.glob("*/LC_MESSAGES/gtk30.mo")):
        strings = [s for s in catalog_strings(mo) if s not in seen]
        seen.update(strings)
        rng.shuffle(strings)
        if strings:
            per_locale.append(strings)
    lines: list[str] = []
    size = 0
    k = 0
    while size < TARGET_BYTES and any(k < len(s) for s in per_locale):
        for strings in per_locale:
            if k < len(strings) and size < TARGET_BYTES:
                lines.append(strings[k])
                size += len(strings[k].encode("utf-8")) + 1
        k += 1
    text = "\n".join(lines) + "\n"
    OUT.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    print(f"{len(per_locale)} locales, {len(lines)} lines, {len(text.encode('utf-8')):,} bytes, "
          f"{len(set(text)):,} distinct characters -> {OUT.name} ({OUT.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
