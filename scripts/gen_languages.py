"""Generate engine/data/languages.json: one sentence in many languages, with provenance.

The translations are real ones made by GTK's translators, read from the
gettext catalogs Debian installs (package libgtk-3-common, domain gtk30):

    /usr/share/locale/<locale>/LC_MESSAGES/gtk30.mo

Every entry is the translation of the same msgid (`MSGID` below), so the
sentences mean the same thing and their token counts can be compared.  The
English entry is the msgid itself.  Run on a Debian machine with
libgtk-3-common installed:

    .venv/bin/python scripts/gen_languages.py
"""
from __future__ import annotations

import gettext
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.explain.unicode_scripts import COMMON, script_counts  # noqa: E402

OUT = ROOT / "engine" / "data" / "languages.json"
DOMAIN = "gtk30"
PACKAGE = "libgtk-3-common"
MSGID = "The most probable reason is that a temporary file could not be created."

# locale -> (BCP 47 code, English name, script(s) joined by "+"); the order is the order shown.
LANGUAGES = {
    "de": ("de", "German", "Latin"),
    "fr": ("fr", "French", "Latin"),
    "es": ("es", "Spanish", "Latin"),
    "pt": ("pt", "Portuguese", "Latin"),
    "pl": ("pl", "Polish", "Latin"),
    "tr": ("tr", "Turkish", "Latin"),
    "vi": ("vi", "Vietnamese", "Latin"),
    "ru": ("ru", "Russian", "Cyrillic"),
    "uk": ("uk", "Ukrainian", "Cyrillic"),
    "el": ("el", "Greek", "Greek"),
    "hy": ("hy", "Armenian", "Armenian"),
    "ka": ("ka", "Georgian", "Georgian"),
    "he": ("he", "Hebrew", "Hebrew"),
    "ar": ("ar", "Arabic", "Arabic"),
    "fa": ("fa", "Persian", "Arabic"),
    "hi": ("hi", "Hindi", "Devanagari"),
    "mr": ("mr", "Marathi", "Devanagari"),
    "bn": ("bn", "Bengali", "Bengali"),
    "pa": ("pa", "Punjabi", "Gurmukhi"),
    "gu": ("gu", "Gujarati", "Gujarati"),
    "ta": ("ta", "Tamil", "Tamil"),
    "te": ("te", "Telugu", "Telugu"),
    "kn": ("kn", "Kannada", "Kannada"),
    "ml": ("ml", "Malayalam", "Malayalam"),
    "th": ("th", "Thai", "Thai"),
    "km": ("km", "Khmer", "Khmer"),
    "my": ("my", "Burmese", "Myanmar"),
    "zh_CN": ("zh-Hans", "Chinese (Simplified)", "Han"),
    "zh_TW": ("zh-Hant", "Chinese (Traditional)", "Han"),
    "ja": ("ja", "Japanese", "Han+Hiragana+Katakana"),
    "ko": ("ko", "Korean", "Hangul"),
}


def package_version() -> str:
    out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", PACKAGE], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{PACKAGE} is not installed: apt-get install {PACKAGE}")
    return out.stdout.strip()


def translation(locale: str) -> tuple[str, str]:
    path = Path(f"/usr/share/locale/{locale}/LC_MESSAGES/{DOMAIN}.mo")
    with path.open("rb") as f:
        catalog = gettext.GNUTranslations(f)
    text = catalog._catalog.get(MSGID)  # gettext() would fall back to the msgid silently
    if not text or text == MSGID:
        raise SystemExit(f"{path}: no translation of {MSGID!r}; drop {locale!r} from LANGUAGES")
    return text, str(path)


def main() -> None:
    version = package_version()
    entries = [{
        "code": "en", "language": "English", "script": "Latin", "text": MSGID,
        "source": {"package": PACKAGE, "version": version, "domain": DOMAIN, "file": None,
                   "msgid": MSGID, "note": "the msgid itself (GTK's source language)"},
    }]
    for locale, (code, name, script) in LANGUAGES.items():
        text, path = translation(locale)
        found = set(script_counts(text)) - {COMMON}
        if not found <= set(script.split("+")):
            raise SystemExit(f"{locale}: expected {script} script, the text has {sorted(found)}")
        entries.append({
            "code": code, "language": name, "script": script, "text": text,
            "source": {"package": PACKAGE, "version": version, "domain": DOMAIN, "file": path, "msgid": MSGID},
        })
    doc = {
        "description": "One GTK message in many languages, as translated by GTK's translators.",
        "generator": "scripts/gen_languages.py",
        "license": "GTK translations (po/*), see /usr/share/doc/libgtk-3-common/copyright",
        "msgid": MSGID,
        "languages": entries,
    }
    OUT.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(entries)} languages to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
