"""Every BMP code point in context, in a handful of long texts: the default run's exhaustive check of a built-in.

Each code point ``c`` (surrogates excluded: they cannot be UTF-8) is written once into `SEGMENT`, which
holds it after a letter and before one, after a space, doubled, before a digit, after a CJK character,
before a contraction, before a newline and beside punctuation -- the contexts a pre-tokenizer's pattern,
a normalizer and merges treat differently.  The segments are joined in code point order into texts of
`PER_TEXT` code points, so a tokenizer is called a few times on ~130,000 characters rather than 63,488
times on a few; when the ids differ, `first_difference` names the code point whose segment holds the
first differing token (the reference's character offsets say where it starts).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

SEGMENT = "a{c}b {c}{c}1中{c}'s{c}\n !"
SEGMENT_LEN = len(SEGMENT.format(c="x"))
PER_TEXT = 8192

CODE_POINTS = [c for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF]

# ids and character offsets (start, end) of each token, as `tokenizers.Encoding` gives them
Reference = Callable[[list[str]], list[tuple[Sequence[int], Sequence[tuple[int, int]]]]]


def bmp_texts(code_points: Sequence[int] = CODE_POINTS, per_text: int = PER_TEXT) -> list[tuple[Sequence[int], str]]:
    """(code points, text) pairs covering `code_points`, each code point written into one `SEGMENT`."""
    out = []
    for k in range(0, len(code_points), per_text):
        block = code_points[k:k + per_text]
        out.append((block, "".join(SEGMENT.format(c=chr(c)) for c in block)))
    return out


def first_difference(block: Sequence[int], text: str, ours: Sequence[int], ids: Sequence[int],
                     offsets: Sequence[tuple[int, int]]) -> str | None:
    """None when `ours` equals the reference's `ids`; else which code point's segment the first differing token starts in."""
    if list(ours) == list(ids):
        return None
    k = next((i for i, (a, b) in enumerate(zip(ours, ids)) if a != b), min(len(ours), len(ids)))
    start = offsets[k][0] if k < len(offsets) else len(text)
    cp = block[min(start // SEGMENT_LEN, len(block) - 1)]
    seg = start // SEGMENT_LEN * SEGMENT_LEN
    return (f"first differing token #{k} (ours {list(ours[k:k + 4])}, reference {list(ids[k:k + 4])}) in the segment "
            f"of U+{cp:04X} {text[seg:seg + SEGMENT_LEN]!r}")


def assert_every_bmp_code_point(name: str, encode: Callable[[str], Sequence[int]], reference: Reference,
                                code_points: Sequence[int] = CODE_POINTS) -> None:
    """AssertionError naming the first differing code point unless `encode` gives the reference's ids on every text."""
    pairs = bmp_texts(code_points)
    expected = reference([text for _, text in pairs])
    for (block, text), (ids, offsets) in zip(pairs, expected, strict=True):
        where = first_difference(block, text, encode(text), ids, offsets)
        assert where is None, f"{name}: ids differ from the reference; {where}"


def tokenizers_reference(tok) -> Reference:
    """A `Reference` from a `tokenizers.Tokenizer` (or an implementation wrapper such as BertWordPieceTokenizer)."""
    def run(texts: list[str]):
        return [(e.ids, e.offsets) for e in tok.encode_batch(texts, add_special_tokens=False)]
    return run
