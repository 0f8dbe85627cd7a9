"""Generate engine/data/hf_stage_unicode_fixes.json: where `tokenizers`' character classes differ from ours.

The normalizers and pre-tokenizers of Hugging Face `tokenizers` 0.23.3 test
characters with tables of several ages: Rust's std (newer than Python 3.11's
`unicodedata` 14.0: `to_lowercase`, `is_numeric`), the `unicode_categories`
crate (older: `is_punctuation`, BERT's `is_control` and nonspacing marks), the
`unicode-normalization-alignments` crate (`is_combining_mark`), and
sentencepiece's script table (UnicodeScripts).  Our modules start from
`unicodedata` and the `regex` module's script property; this script asks
`tokenizers` itself (a dev-only tool) about every code point and writes down
only the differences.  `engine/families/hf/normalizers.py` and
`pre_tokenizers.py` read them.

Run:  pip install tokenizers==0.23.3 && python scripts/gen_hf_stage_unicode.py
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import regex
import tokenizers
from tokenizers import normalizers, pre_tokenizers

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from engine.families.hf import normalizers as ours_n  # noqa: E402
from engine.families.hf import pre_tokenizers as ours_p  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "engine" / "data" / "hf_stage_unicode_fixes.json"
CODE_POINTS = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000]


def ranges(cps: list[int]) -> list[list[int]]:
    out: list[list[int]] = []
    for c in sorted(cps):
        if out and out[-1][1] == c - 1:
            out[-1][1] = c
        else:
            out.append([c, c])
    return out


def isolated(pre, ch: str) -> bool:
    return [p for p, _ in pre.pre_tokenize_str("a" + ch + "a")] == ["a", ch, "a"]


def predicate_fix(truth, ours) -> dict[str, list[list[int]]]:
    """Code points where `truth` (tokenizers) says True but `ours` False ("true"), and the other way ("false")."""
    yes, no = [], []
    for c in CODE_POINTS:
        t, o = truth(chr(c)), ours(chr(c))
        if t and not o:
            yes.append(c)
        elif o and not t:
            no.append(c)
    return {"true": ranges(yes), "false": ranges(no)}


def scripts() -> list[list]:
    """[first, last, class] where UnicodeScripts' class differs from `ours_p._regex_script_of`: "Any" for
    what its table lacks, else the name of a representative character's class, found by probing pairs."""
    pre = pre_tokenizers.UnicodeScripts()

    def pieces(text: str) -> list[str]:
        return [p for p, _ in pre.pre_tokenize_str(text)]

    reps: dict[str, str] = {}  # class name -> a character of it (tokenizers' view)
    fixes: list[tuple[int, str]] = []
    for c in CODE_POINTS:
        ch = chr(c)
        if ch == " " or c == 0x30FC:
            continue
        guess = ours_p._regex_script_of(ch)
        if pieces("a" + ch + "\u03b1") == ["a" + ch, "\u03b1"] and pieces("\u03b1" + ch + "a") == ["\u03b1" + ch, "a"]:
            actual = "Any"
        else:
            actual = None
            order = ([guess] if guess in reps else []) + [n for n in reps if n != guess]
            for name in order:
                if len(pieces(reps[name] + ch)) == 1:
                    actual = name
                    break
            if actual is None:
                actual = guess if guess not in reps and guess != "Any" else f"X{c:X}"
                reps[actual] = ch
        if actual != guess:
            fixes.append((c, actual))
    out: list[list] = []
    for c, name in fixes:
        if out and out[-1][1] == c - 1 and out[-1][2] == name:
            out[-1][1] = c
        else:
            out.append([c, c, name])
    return out


def raw(body: str):
    rx = regex.compile(f"[{body}]", regex.V1)
    return lambda ch: rx.match(ch) is not None


def main() -> None:
    punct = pre_tokenizers.Punctuation()
    digits = pre_tokenizers.Digits(individual_digits=True)
    accents = normalizers.StripAccents()
    clean = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=False, strip_accents=False, lowercase=False)
    nonspacing = normalizers.BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=True, lowercase=False)
    lower = normalizers.Lowercase()
    nfd = normalizers.NFD()
    nonspacing_raw = raw(ours_n.RAW_NONSPACING_MARK)
    payload = {
        "tokenizers_version": tokenizers.__version__,
        "punctuation": predicate_fix(lambda ch: isolated(punct, ch), raw(ours_n.RAW_PUNCTUATION)),
        "numeric": predicate_fix(lambda ch: isolated(digits, ch), raw(ours_n.RAW_NUMERIC)),
        "combining_mark": predicate_fix(lambda ch: accents.normalize_str("a" + ch) == "a", raw(ours_n.RAW_COMBINING_MARK)),
        "bert_control": predicate_fix(lambda ch: clean.normalize_str("a" + ch + "a") == "aa",
                                      raw(ours_n.RAW_CONTROL)),
        "nonspacing_mark": predicate_fix(lambda ch: nfd.normalize_str(ch) == ch and nonspacing.normalize_str("a" + ch) == "a",
                                         lambda ch: nfd.normalize_str(ch) == ch and nonspacing_raw(ch)),
        "lowercase": {str(c): lower.normalize_str(chr(c)) for c in CODE_POINTS
                      if lower.normalize_str(chr(c)) != ours_n.raw_lower(chr(c))},
        "scripts": scripts(),
    }
    OUT.write_text(json.dumps(payload, separators=(",", ":"), ensure_ascii=True) + "\n")
    print(f"wrote {OUT}: " + ", ".join(f"{k} {len(v) if not isinstance(v, dict) else sum(map(len, v.values()))}"
                                     for k, v in payload.items() if k != "tokenizers_version"))


if __name__ == "__main__":
    main()
