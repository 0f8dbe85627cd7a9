"""The seed vocabulary of Unigram training: every character, and the frequent substrings, as sentencepiece picks them.

SentencePiece's trainer (``unigram_model_trainer.cc``, ``MakeSeedSentencePieces``) starts EM from a big
vocabulary and prunes it down.  The seeds are

1. every character of the (normalized) corpus, scored by its count;
2. every substring that occurs at least twice, found as the internal nodes of a suffix tree
   (an *enhanced suffix array*, the ``esaxx`` library), scored by ``occurrences * length``
   ("character coverage"), minus those that `is_valid_piece` refuses: ones that cross a sentence,
   hold ``▁`` past their first character, mix Unicode scripts, or are longer than 16 characters.

Sentences are laid end to end, as UTF-8, with a 0 byte between them (and after the last).
sentencepiece 0.2.3 builds the suffix array over these *bytes* (libsais; the 2025-02 source used
code points): a substring is a node only where its *bytes* branch, so ``"43"`` followed only by
``–`` and ``—`` (which share their first two bytes) is no seed, and a node ending inside a character
is dropped.  A node that ends with the sentence boundary stands for the text before it ("X always
ends its sentence"); one that crosses it is dropped.  These rules reproduce 0.2.3's seed counts
(its log's "Initialized N seed pieces") on every corpus the tests use.

The substrings are ranked by score, and on equal scores by the order the node walk finds them;
that order matters later (pruning breaks ties by position in the vocabulary, and float sums
follow it), so `substring_nodes` walks the LCP array with ``esaxx``'s stack, node for node.
The suffix array here is plain prefix doubling (``sorted`` by rank pairs, O(n log² n)), tested
equal to sorting the suffixes themselves.
"""
from __future__ import annotations

import regex

__all__ = ["BOUNDARY", "UNK_CHAR", "is_valid_piece", "suffix_array", "substring_nodes", "seed_pieces"]

BOUNDARY = "\x00"  # kSentenceBoundary: between sentences in the suffix array
UNK_CHAR = "\u2585"  # kUNKChar: stands for a character outside the required set
WS = "\u2581"  # kWSChar, ▁
UPP_BOUNDARY = "\t"  # kUPPBoundaryChar: never part of a piece
DEFAULT_SEED_SIZE = 1_000_000  # seed_sentencepiece_size


# The scripts sentencepiece's table knows (unicode_script.h); a character in none of them is Common,
# as that table's default says.  `regex` knows each by the same name.
_SCRIPT_NAMES = (
    "Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali Bhaiksuki "
    "Bopomofo Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian Chakma Cham Cherokee "
    "Coptic Cuneiform Cypriot Cyrillic Deseret Devanagari Duployan Egyptian_Hieroglyphs Elbasan Ethiopic Georgian "
    "Glagolitic Gothic Grantha Greek Gujarati Gurmukhi Han Hangul Hanunoo Hatran Hebrew Hiragana Imperial_Aramaic "
    "Inherited Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kannada Katakana Kayah_Li Kharoshthi "
    "Khmer Khojki Khudawadi Lao Latin Lepcha Limbu Linear_A Linear_B Lisu Lycian Lydian Mahajani Malayalam Mandaic "
    "Manichaean Marchen Meetei_Mayek Mende_Kikakui Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mongolian Mro "
    "Multani Myanmar Nabataean New_Tai_Lue Newa Nko Ogham Ol_Chiki Old_Hungarian Old_Italic Old_North_Arabian "
    "Old_Permic Old_Persian Old_South_Arabian Old_Turkic Oriya Osage Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau "
    "Phags_Pa Phoenician Psalter_Pahlavi Rejang Runic Samaritan Saurashtra Sharada Shavian Siddham SignWriting "
    "Sinhala Sora_Sompeng Sundanese Syloti_Nagri Syriac Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil "
    "Tangut Telugu Thaana Thai Tibetan Tifinagh Tirhuta Ugaritic Vai Warang_Citi Yi"
).split()
_SCRIPT = regex.compile("|".join(f"(?P<{name}>\\p{{Script={name}}})" for name in _SCRIPT_NAMES))
_script_of: dict[str, str] = {}  # bounded by the characters that exist (at most 0x110000 short entries)


def script(c: str) -> str:
    """The Unicode script of `c` as sentencepiece groups them: kana and ー count as Han, unknown is Common."""
    s = _script_of.get(c)
    if s is None:
        m = _SCRIPT.match(c)
        s = m.lastgroup if m else "Common"
        if s in ("Hiragana", "Katakana") or c == "\u30fc":
            s = "Han"
        _script_of[c] = s
    return s


def is_valid_piece(piece: str, max_length: int = 16) -> bool:
    """``TrainerInterface::IsValidSentencePiece`` for the default trainer flags.

    (split_by_whitespace, split_by_unicode_script and split_by_number on; split_digits,
    treat_whitespace_as_suffix and allow_whitespace_only_pieces off.)  ``▁`` may only
    start a piece; a piece keeps to one script (digits are Common, combining marks take
    the script before them); U+0000, tab, space, U+2585 and lone surrogates never appear.
    """
    if not piece or len(piece) > max_length:
        return False
    prev = None  # kAnyType
    for pos, c in enumerate(piece):
        if c in (UNK_CHAR, BOUNDARY, UPP_BOUNDARY, " ") or "\ud800" <= c <= "\udfff":
            return False
        if c == WS:
            if pos > 0:
                return False
            continue
        s = script(c)
        if s == "Inherited":
            s = prev
        if s is not None and prev is not None and s != prev:
            return False
        prev = s
    return True


def suffix_array(codes: list[int]) -> list[int]:
    """Start positions of the suffixes of `codes` in sorted order (prefix doubling)."""
    n = len(codes)
    sa = sorted(range(n), key=codes.__getitem__)
    rank = [0] * n
    r = 0
    for k, i in enumerate(sa):
        if k and codes[i] != codes[sa[k - 1]]:
            r += 1
        rank[i] = r
    step = 1
    while r < n - 1:
        base = n + 1
        # key: (rank of the first `step` items, rank of the next `step`, or -1 past the end)
        key = [rank[i] * base + (rank[i + step] + 1 if i + step < n else 0) for i in range(n)]
        sa.sort(key=key.__getitem__)
        r = 0
        new = [0] * n
        prev = key[sa[0]]
        for i in sa:
            if key[i] != prev:
                r += 1
                prev = key[i]
            new[i] = r
        rank = new
        step *= 2
    return sa


def substring_nodes(codes: list[int], sa: list[int]) -> list[tuple[int, int, int]]:
    """The internal nodes of the suffix tree as ``(left, right, depth)``, in ``esaxx``'s order.

    Node ``(l, r, d)``: the ``d`` items at ``sa[l]`` start exactly the suffixes ``sa[l:r]``, and
    ``r - l >= 2`` of them (a substring occurring ``r - l`` times, with no longer one as frequent).
    """
    n = len(codes)
    if n == 0:
        return []
    # Kasai-style permuted LCP, as esaxx: plcp[i] = LCP of suffix i with the suffix before it in `sa`.
    psi = [0] * n
    psi[sa[0]] = sa[n - 1]
    for k in range(1, n):
        psi[sa[k]] = sa[k - 1]
    plcp = [0] * n
    h = 0
    for i in range(n):
        j = psi[i]
        while i + h < n and j + h < n and codes[i + h] == codes[j + h]:
            h += 1
        plcp[i] = h
        if h > 0:
            h -= 1
    lcp = [plcp[s] for s in sa]
    lcp[0] = -1
    nodes: list[tuple[int, int, int]] = []
    stack = [(-1, -1)]
    i = 0
    while True:
        cur_first, cur_depth = i, (-1 if i == n else lcp[i])
        cand_first, cand_depth = stack[-1]
        while cand_depth > cur_depth:
            if i - cand_first > 1:
                nodes.append((cand_first, i, cand_depth))
            cur_first = cand_first
            stack.pop()
            cand_first, cand_depth = stack[-1]
        if cand_depth < cur_depth:
            stack.append((cur_first, cur_depth))
        if i == n:
            break
        stack.append((i, n - sa[i] + 1))
        i += 1
    return nodes


def seed_pieces(sentences: list[tuple[str, int]], max_length: int = 16,
                seed_size: int = DEFAULT_SEED_SIZE) -> list[tuple[str, int]]:
    """The seed vocabulary with its raw scores (counts), in sentencepiece's order: characters first
    (most frequent first, then by UTF-8 bytes), then substrings (best ``count * length`` in characters
    first, then in node order), at most `seed_size` substrings."""
    chars: dict[str, int] = {}
    parts: list[str] = []
    for sentence, freq in sentences:
        parts.append(sentence)
        for c in sentence:
            if c != UNK_CHAR and c != BOUNDARY:
                chars[c] = chars.get(c, 0) + freq
    data = b"\x00".join(p.encode("utf-8") for p in parts) + b"\x00"
    codes = list(data)
    n = len(codes)
    sa = suffix_array(codes)
    best: dict[str, tuple[int, int]] = {}  # piece -> (-score, node index): the best node that gives it
    for index, (left, right, depth) in enumerate(substring_nodes(codes, sa)):
        if depth <= 1:
            continue
        offset = sa[left]
        if depth > 4 * max_length + 1:  # too long: is_valid_piece would refuse it anyway
            continue
        chunk = data[offset:offset + depth]
        if chunk[-1] == 0:  # "X then a sentence end", every time: stands for X (0.2.3's rule)
            chunk = chunk[:-1]
        if 0 in chunk:  # across sentences
            continue
        try:
            piece = chunk.decode("utf-8")
        except UnicodeDecodeError:  # the node ends (or starts) inside a character
            continue
        if len(piece) < 2 or not is_valid_piece(piece, max_length):
            continue
        key = (-(right - left) * len(piece), index)
        if piece not in best or key < best[piece]:
            best[piece] = key
    found = sorted((key, piece) for piece, key in best.items())
    del found[seed_size:]
    seeds = sorted(chars.items(), key=lambda kv: (-kv[1], kv[0].encode("utf-8")))
    for (negscore, _), piece in found:
        seeds.append((piece, -negscore))
    return seeds
