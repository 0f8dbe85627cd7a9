"""The marked stream's notation and the measured character tables (ported from ctok 1.3.0's ``constants.py``).

Claude 3 and later do not publish their tokenizer.  ctok (Sander Land, MIT) reconstructs the *count*: the
text is rewritten into a "marked stream" in which word boundaries, case and absorbed spaces are written as
marker characters, and the count is the fewest vocabulary pieces that tile that stream.  This module holds
the notation (one private code point per marker inside the engine, a named atom such as ``⟨bow⟩`` for
people) and the tables ctok measured against Anthropic's ``count_tokens``.  Tables marked as enumerated
must stay enumerated: no Unicode-category rule reproduces them.
"""
from __future__ import annotations

import re

# ---- the notation ---------------------------------------------------------------------------------

# Inside the engine each structural marker is one noncharacter code point, so a stream is a plain str
# and a piece of the vocabulary is a plain substring of it.
BOW_G, EOW_G, PAD_G = "\ufdd0", "\ufdd1", "\ufdd2"  # beginning / end of word; a message-frame token
SHIFT_G, CAPS_G = "\ufdd3", "\ufdd4"  # "the word is Title-case" / "the word is ALL CAPS"
MARKER_GLYPHS = frozenset({BOW_G, EOW_G, SHIFT_G, CAPS_G})

# The public form: named atoms in mathematical angle brackets, practically absent from real text.  A
# literal bracket in text is written as byte atoms, so a rendered token always parses back.
L, R = "⟨", "⟩"
BOW, EOW, SHIFT, CAPS, PAD = (f"{L}{name}{R}" for name in ("bow", "eow", "shift", "caps", "pad"))
GLYPH_TO_ATOM = {BOW_G: BOW, EOW_G: EOW, PAD_G: PAD, SHIFT_G: SHIFT, CAPS_G: CAPS}
ATOM_TO_GLYPH = {BOW: BOW_G, EOW: EOW_G, SHIFT: SHIFT_G, CAPS: CAPS_G}

# Text can contain the noncharacters used above.  NFC plus the private-use strip removes BMP private use,
# so five private-use code points are safe escapes for them, inserted after normalisation.
LITERAL_MARKER_ESCAPES = {glyph: chr(0xE000 + i) for i, glyph in enumerate(GLYPH_TO_ATOM)}
ESCAPED_MARKER_LITERALS = {escape: glyph for glyph, escape in LITERAL_MARKER_ESCAPES.items()}
LITERAL_MARKER_ESCAPE_TABLE = str.maketrans(LITERAL_MARKER_ESCAPES)

# ---- character classes ----------------------------------------------------------------------------

WORDY, HARD, DIGIT, PUNCT, SPACE = "wordy", "hard", "digit", "punct", "space"

# Non-ASCII symbols that tile over the punctuation vocabulary.  Enumerated: `（` is punct but `）` is not.
PUNCT_SYMS = frozenset("—»«•°„–−£§€…√→（№†└│།·─═█")

# Category-So members of CJK Symbols and Punctuation that measured markerless.
IDEOGRAPHIC_SYMBOLS = frozenset("〄〒〓〠〶〷〾〿")

# Symbol-letters that take the full word model (boundaries and case) like Latin letters: by block, not by
# category (the Hangzhou numerals, also Nl, measured markerless).
SYMBOL_LETTERS = (
    (0x16EE, 0x16F0),   # Runic golden numbers
    (0x2160, 0x2188),   # Roman numerals
    (0x24B6, 0x24E9),   # circled letters
    (0xA6E6, 0xA6EF),   # Bamum number-letters
)

# Variation selectors are marks (Mn) but ride their base with no word model.
VARIATION_SELECTORS = (0xFE00, 0xFE0F)

# ---- normalisation --------------------------------------------------------------------------------

# C0/C1 controls the API strips before tokenizing (cost 0): every Cc except TAB, LF and NUL.
STRIP_CONTROL = re.compile("[\x01-\x08\x0B-\x1F\x7F\x80-\x9F]")
# BMP private use is stripped too (its two neighbours join into one word).
STRIP_PRIVATE = re.compile("[\ue000-\uf8ff]")
# A lone surrogate cannot be UTF-8; it prices as U+FFFD, so a count is defined for every str.
SURROGATE = re.compile(r"[\ud800-\udfff]")
# Spaces the tokenizer reads as U+0020: all Zs but U+3000, plus Zl/Zp (NUL is folded separately).
FUNNY_SPACE = re.compile("[\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F]")
# The four curly quotes fold to ASCII (v3 only).  The low-9 mark U+201E is a token of its own.
QUOTE_FOLD = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201C": '"', "\u201D": '"'})
# English contraction suffixes an apostrophe binds into the word before it (lowercase, whole-word).
CONTRACTION_SUFFIXES = frozenset({"s", "t", "d", "m", "ll", "re", "ve"})

# The seam: ⟨eow⟩ ' ' [case markers] ⟨bow⟩ -> ⟨eow⟩ [case markers] ⟨bow⟩.  One space between two marked
# spans is the seam itself and is not written as a character.
SEAM_RE = re.compile("(.)" + EOW_G + " " + "([" + SHIFT_G + CAPS_G + "]*)" + BOW_G)
