"""The drawn tokens of Tokenize and Compare, and how each family's tokens read.

Each builder returns ONE line of markup: newlines in the user's text become `&#10;`, so
Streamlit's markdown sees a single raw-HTML block and never parses `*`, `_`, `$` or a blank
line inside it.  Units carry their tooltip (ids, bytes, text, rank, piece), right-to-left runs
sit in one ``dir="rtl"`` span, and SentencePiece and tokenizer.json tokens get their notes:
byte-fallback units a dashed outline (class ``bytefb``) and their <0xNN> pieces in the tooltip,
▁ pieces and Ġ-spelled entries a line each, and a legend under the tokens (the notes come in as
data, `engine.explain.families.TokenizedText.notes`: a builder never calls the engine).

Given the text the tokens were made from, the families that change the text before they split it
are drawn as they are, not as byte-level BPE: characters no token covers (the spaces a WordPiece or
Whitespace pre-tokenizer drops) sit between the tokens uncoloured (class ``gap``); a WordPiece
continuation shows its ``##`` dimmed (class ``cont``: glued to the token before); and a token whose
text is not the user's characters (BERT's lower-casing and accent stripping, NFKC, Metaspace's dummy
▁) is underlined (class ``norm``) with "your text … → token …" in its tooltip.
"""
from __future__ import annotations

import unicodedata
from typing import Sequence

from playground.render.html import (NEWLINE, SPACE, attrs, container, element, esc, hex_bytes, hue_class, one_line, show_whitespace,
                                    token_color, visible)


def _shorten(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _unit_background(ids: tuple[int, ...]) -> str:
    """One colour per token; a character split over several tokens shows their colours as stripes."""
    if len(ids) == 1:
        return f"background:{token_color(ids[0])}"
    step = 100 / len(ids)
    stops = ", ".join(f"{token_color(t)} {i * step:.0f}% {(i + 1) * step:.0f}%" for i, t in enumerate(ids[:12]))
    return f"background:linear-gradient(90deg, {stops})"


def unit_tip(unit, piece_text: str | None, n_vocab: int | None = None, notes=None, source: str | None = None) -> str:
    """The tooltip of a drawn unit: id(s), bytes in hex, rank, piece, family notes, and (given the `source` text)
    what the tokenizer changed of the user's characters -- plain text, one fact a line.  The page composes the same text in the browser from a span's attributes
    (`unit_tip_parts`, playground/components/token_links.js); this is the reference the tests compare with."""
    ids = unit.ids
    lines = [("id " if len(ids) == 1 else f"{len(ids)} tokens: ids ") + " ".join(map(str, ids[:12]))
             + (" …" if len(ids) > 12 else "")]
    lines.append("bytes " + _tip_bytes(unit))
    if unit.special:
        lines.append("special token: added whole")
    elif len(ids) == 1 and notes is None:  # a family's ids are not ranks
        lines.append(f"rank {ids[0]:,}" + (f" of {n_vocab:,}" if n_vocab else ""))
    changed = _changed(unit.text, source, unit.char_start, unit.char_end, ids[0], notes)[1]
    return "\n".join([*lines, *_tip_extra(unit, piece_text, notes)[0], *([changed] if changed else [])])


def _tip_bytes(unit) -> str:
    return " | ".join(hex_bytes(t.bytes) for t in unit.tokens[:12]) + (" …" if len(unit.tokens) > 12 else "")


def _tip_extra(unit, piece_text: str | None, notes) -> tuple[list[str], bool]:
    """The tooltip lines after id, bytes and rank (the piece, family notes), and whether the unit is byte fallback."""
    lines = []
    if piece_text is not None and len(piece_text) > len(unit.text):
        lines.append("piece " + _shorten(visible(piece_text), 30))
    if notes is None:
        return lines, False
    found, byte_fallback = unit_notes(unit.ids, notes)
    return [*lines, *found], byte_fallback


def is_rtl(text: str) -> bool | None:
    """True/False by the first strong character; None when the text has none (spaces, digits, emoji)."""
    for ch in text:
        kind = unicodedata.bidirectional(ch)
        if kind in ("R", "AL"):
            return True
        if kind == "L":
            return False
    return None


def isolate_rtl(text: str) -> str:
    """Plain `text` for a label (a pill, an option), wrapped in FSI … PDI when it holds right-to-left
    letters: an Arabic token would otherwise pull the id after it into its run ("12 · بال")."""
    if any(unicodedata.bidirectional(ch) in ("R", "AL") for ch in text):
        return f"\u2068{text}\u2069"
    return text


def direction_runs(texts: list[str]) -> list[tuple[int, int, bool]]:
    """``(first, end, rtl)`` runs of unit indexes: a right-to-left run takes in the neutral units
    (spaces, punctuation) between two right-to-left units, so "مرحبا بالعالم" is one run."""
    dirs = [is_rtl(t) for t in texts]
    runs: list[tuple[int, int, bool]] = []
    i = 0
    while i < len(dirs):
        if dirs[i]:
            j = i + 1
            last = i
            while j < len(dirs) and dirs[j] is not False:
                if dirs[j]:
                    last = j
                j += 1
            runs.append((i, last + 1, True))
            i = last + 1
        else:
            j = i + 1
            while j < len(dirs) and not dirs[j]:
                j += 1
            runs.append((i, j, False))
            i = j
    return runs




def token_units(units, element_id: str, *, show_ws: bool, pieces=None, shared_cuts=None,
                cls: str = "tokens view", encoding: str | None = None, n_vocab: int | None = None,
                idlist: str | None = None, notes=None, source: str | None = None, explain: str | None = None) -> str:
    """Coloured spans, one per display unit (engine.explain.compare.DisplayUnit), in a div with `element_id`.

    Each span is ``<span class="tok h7" data-ids="…" data-t="…" data-start="…" data-end="…"
    data-b="…" data-x="…">``: its ids, the index of its first token, the character
    offsets of the unit, its bytes in hex, and any tooltip lines past id, bytes and rank
    (the piece, family notes).  The page composes the tooltip from these (`unit_tip` is the
    same text, built here, for tests); the colour is a hue class, or stripes for a split
    character.  About 110 bytes a span: with the whole tooltip and colour written into each
    (230 bytes) the browser spent most of a keystroke sanitising and parsing the rows.
    Right-to-left runs (Arabic, Hebrew) sit in one ``<span class="rtl" dir="rtl">`` each, so
    they read right to left with joined letters; units carry no padding or margin, which
    would break the joins.  With `shared_cuts` (a set of byte offsets) every span but the
    first is marked ``same`` (every encoding cuts here) or ``cut`` (only some do).
    `notes` ({id: engine TokenNote} of the ids that have one, or None for a family without notes) adds
    family notes to the tooltip, leaves out the rank line (a family's ids are not ranks) and marks
    byte-fallback units ``bytefb``.
    `source` (the text the tokens' character offsets point into) draws gaps, ``##`` and normalizer
    changes (the module docstring).
    `explain` names what shows how the family came to a token when it is not a merge tree ("Best path" for
    Unigram, "Longest match" for WordPiece): the pinned tooltip's first link says it (token_links.js).
    """
    # Each unit's properties are read once and the span is one f-string: ids, offsets and hex need
    # no escaping (digits, spaces, "|", "…"); the text and the extra lines are escaped.  About three
    # times faster than `token_units_reference` (a keystroke on Compare redraws thousands of spans).
    spans = []
    texts = []
    t = 0
    end = 0
    piece_labels: dict[int, str] = {}  # a piece's label once per piece: without a pre-tokenizer it is the whole text
    for unit in units:
        toks = unit.tokens
        first_tok = toks[0]
        ids = [tok.id for tok in toks]
        text = (first_tok.bytes if len(toks) == 1 else b"".join(tok.bytes for tok in toks)).decode("utf-8", "replace")
        texts.append(text)
        special = any(tok.special for tok in toks)
        classes = "tok special" if special else "tok"
        if len(toks) > 1:
            classes += " split"
        if shared_cuts is not None and first_tok.byte_start > 0:
            classes += " same" if first_tok.byte_start in shared_cuts else " cut"
        extra = []
        if pieces is not None:
            piece_text = pieces[first_tok.piece_index].text
            if len(piece_text) > len(text):
                label = piece_labels.get(first_tok.piece_index)
                if label is None:
                    label = piece_labels[first_tok.piece_index] = "piece " + _shorten(visible(piece_text), 30)
                extra.append(label)
        cont, changed = _changed(text, source, first_tok.char_start, toks[-1].char_end, ids[0], notes)
        if notes is not None:
            found, byte_fallback = unit_notes(ids, notes)
            extra += found
            if byte_fallback:
                classes += " bytefb"
        if changed is not None:
            classes += " norm"
            extra.append(changed)
        hexes = " | ".join(tok.bytes.hex(" ") for tok in toks[:12]) + (" …" if len(toks) > 12 else "")
        if len(ids) == 1:
            classes += " " + hue_class(ids[0])
            style = ""
        else:
            style = f' style="{esc(_unit_background(tuple(ids)))}"'
        body = text[len(cont):]
        shown = show_whitespace(body) if show_ws and not special else esc(body)
        if cont:
            shown = f'<span class="cont">{cont}</span>{shown}'
        x = f' data-x="{esc(chr(10).join(extra))}"' if extra else ""
        spans.append(_gap(source, end, first_tok.char_start, show_ws)
                     + f'<span class="{classes}" data-ids="{" ".join(map(str, ids))}" data-t="{t}" '
                     f'data-start="{first_tok.char_start}" data-end="{toks[-1].char_end}" data-b="{hexes}"'
                     f'{x}{style}>{shown}</span>')
        t += len(toks)
        end = max(end, toks[-1].char_end)
    out = []
    for first, end, rtl in direction_runs(texts):
        run = "".join(spans[first:end])
        out.append(f'<span class="rtl" dir="rtl">{run}</span>' if rtl else run)
    div = {"class": cls, "id": element_id, "data-enc": encoding, "data-idlist": idlist,
           "data-ranks": None if notes is not None else "1", "data-nv": n_vocab, "data-explain": explain}
    return one_line(f'<div {attrs(div)}>{"".join(out)}</div>')


def token_units_reference(units, element_id: str, *, show_ws: bool, pieces=None, shared_cuts=None,
                cls: str = "tokens view", encoding: str | None = None, n_vocab: int | None = None,
                idlist: str | None = None, notes=None, source: str | None = None, explain: str | None = None) -> str:
    """`token_units` written plainly, one property and one attribute escape at a time: the
    reference the tests compare the fast version with, character for character."""
    spans = []
    t = 0
    covered = 0  # characters of `source` drawn so far
    for unit in units:
        classes = ["tok"]
        if unit.special:
            classes.append("special")
        if unit.split:
            classes.append("split")
        if shared_cuts is not None and unit.byte_start > 0:
            classes.append("same" if unit.byte_start in shared_cuts else "cut")
        piece = pieces[unit.tokens[0].piece_index].text if pieces is not None else None
        extra, byte_fallback = _tip_extra(unit, piece, notes)
        if byte_fallback:
            classes.append("bytefb")
        cont, changed = _changed(unit.text, source, unit.char_start, unit.char_end, unit.ids[0], notes)
        if changed is not None:
            classes.append("norm")
            extra.append(changed)
        if len(unit.ids) == 1:
            classes.append(hue_class(unit.ids[0]))
        body = unit.text[len(cont):]
        text = show_whitespace(body) if show_ws and not unit.special else esc(body)
        if cont:
            text = element("span", cont, {"class": "cont"}) + text
        gap = ""
        if source is not None and unit.char_start > covered:
            gap = element("span", source[covered:unit.char_start], {"class": "gap"})
            if show_ws:
                gap = element("span", show_whitespace(source[covered:unit.char_start]), {"class": "gap"}, raw=True)
        covered = max(covered, unit.char_end)
        spans.append(gap + element("span", text, {
            "class": " ".join(classes),
            "data-ids": " ".join(map(str, unit.ids)),
            "data-t": t,
            "data-start": unit.char_start,
            "data-end": unit.char_end,
            "data-b": _tip_bytes(unit),
            "data-x": "\n".join(extra) or None,
            "style": _unit_background(unit.ids) if len(unit.ids) > 1 else None,
        }, raw=True))
        t += len(unit.tokens)
    out = []
    for first, end, rtl in direction_runs([u.text for u in units]):
        run = "".join(spans[first:end])
        out.append(f'<span class="rtl" dir="rtl">{run}</span>' if rtl else run)
    div = {"class": cls, "id": element_id, "data-enc": encoding, "data-idlist": idlist,
           "data-ranks": None if notes is not None else "1", "data-nv": n_vocab, "data-explain": explain}
    return one_line(f'<div {attrs(div)}>{"".join(out)}</div>')


def id_list(ids: Sequence[int], element_id: str, *, limit: int) -> str:
    """The ids as ``[15339, 1917]``, each id a ``<span class="id" data-id="…" data-t="…">`` so
    hovering a token can light up its ids here."""
    shown = ids[:limit]
    items = ", ".join(f'<span class="id" data-id="{i}" data-t="{k}">{i}</span>' for k, i in enumerate(shown))
    more = f", … ({len(ids) - len(shown):,} more)" if len(ids) > len(shown) else ""
    return f'<div {attrs({"class": "idlist", "id": element_id})}>[{items}{more}]</div>'


def token_bytes(tokens, element_id: str) -> str:
    """Hex bytes per token; tokens that are not valid UTF-8 on their own get class ``invalid``."""
    out = []
    for i, tok in enumerate(tokens):
        valid = tok.is_valid_utf8
        title = f"id {tok.id}\ntext {tok.text!r}" + ("" if valid else "\nnot valid UTF-8 alone: part of a character")
        out.append(element("span", hex_bytes(tok.bytes), {
            "class": "tok" if valid else "tok invalid",
            "data-ids": tok.id,
            "data-i": i,
            "title": title,
            "style": f"background:{token_color(tok.id)}",
        }))
    return one_line(container(out, "bytes", element_id))


def pre_pieces(pieces, tokens_per_piece: list[int], element_id: str, *, show_ws: bool) -> str:
    """The regex pieces BPE runs on, in alternating colours, with offsets and token counts on hover."""
    out = []
    for p in pieces:
        n = tokens_per_piece[p.index] if p.index < len(tokens_per_piece) else 0
        title = (f"piece {p.index}\nchars {p.char_start}–{p.char_end} · bytes {p.byte_start}–{p.byte_end}\n"
                 f"{n} token{'s' if n != 1 else ''}" + ("\nspecial token" if p.special else ""))
        classes = "piece " + ("a" if p.index % 2 == 0 else "b") + (" special" if p.special else "")
        text = show_whitespace(p.text) if show_ws and not p.special else esc(p.text)
        out.append(element("span", text, {"class": classes, "data-i": p.index, "title": title}, raw=True))
    return one_line(container(out, "pieces", element_id))


CONTINUATION = "##"  # WordPiece's continuing_subword_prefix, as every BERT-style vocabulary writes it


def _gap(source: str | None, start: int, end: int, show_ws: bool) -> str:
    """The characters between two units that no token covers, uncoloured ("" when there are none)."""
    if source is None or end <= start:
        return ""
    gap = source[start:end]
    return f'<span class="gap">{show_whitespace(gap) if show_ws else esc(gap)}</span>'


def _changed(text: str, source: str | None, start: int, end: int, first_id: int, notes) -> tuple[str, str | None]:
    """(the token text without a WordPiece ``##``, or "", and the tooltip line when the token's text is not the
    user's characters): how a normalizing family's unit is drawn.  Only with `notes` (a family's tokens) and
    `source`."""
    if notes is None or source is None:
        return "", None
    yours = source[start:end]
    cont = ""
    found = notes.get(first_id)
    if (found is not None and found.kind == "stored" and text.startswith(CONTINUATION) and len(text) > len(CONTINUATION)
            and not yours.startswith(CONTINUATION)):
        cont, text = CONTINUATION, text[len(CONTINUATION):]
    if text == yours:
        return cont, None
    return cont, f"your text “{_shorten(visible(yours), 20)}” → token “{_shorten(visible(text), 20)}”: the tokenizer changed it"


def unit_notes(ids, notes) -> tuple[list[str], bool]:
    """Tooltip lines for a unit's tokens (byte-fallback bytes joined on one line) and whether it is byte fallback;
    `notes` is {id: TokenNote} of the ids that have one."""
    lines: list[str] = []
    fallback: list[str] = []
    for tid in ids[:12]:
        found = notes.get(tid)
        if found is None:
            continue
        if found.kind == "byte":
            fallback.append(found.stored)
        elif found.text not in lines:
            lines.append(found.text)
    if fallback:
        lines.insert(0, "byte fallback " + " ".join(fallback) + ": no token for this character, so each of its "
                     "UTF-8 bytes is a token")
    return lines, bool(fallback) and len(fallback) == len(ids[:12])


def family_legend(family: str) -> str:
    """One line under the drawn tokens on how to read this family's tokens ("" for tiktoken-style ones)."""
    if family == "sentencepiece":
        return (f'<div class="fam-legend"><span class="sw">▁ → {SPACE}</span>SentencePiece writes a space as ▁ (U+2581) '
                "inside its pieces: ‘▁the’ is the token for ‘ the’. It also puts a ▁ before the text (the dummy "
                f"prefix), so the first token starts with {SPACE} though the text does not. "
                f'<span class="sw bytefb">{NEWLINE}</span>byte fallback: a character with no piece becomes one '
                "&lt;0xNN&gt; token per UTF-8 byte (&lt;0x0A&gt; is a newline), drawn as that character; "
                "hover for its bytes.</div>")
    if family == "tokenizer.json":
        return (f'<div class="fam-legend"><span class="sw">Ġ → {SPACE}</span>tokenizer.json stores tokens in GPT-2\'s '
                "printable byte alphabet (Ġ is a space, Ċ a newline: ‘Ġthe’ is ‘ the’); drawn here as the text "
                "they stand for, the stored spelling in the tooltip.</div>")
    changed = (f'<span class="gap">{SPACE}</span>grey: text no token holds (the pre-tokenizer drops it). '
               '<span class="sw norm">abc</span>underlined: the token is not your text as typed (the normalizer '
               "changed it); hover for both.")
    if family == "wordpiece":
        return ('<div class="fam-legend"><span class="sw"><span class="cont">##</span>ing</span>WordPiece takes the '
                "longest vocabulary entry each word starts with, then the longest ##-entry from where it ended: ## "
                f"means glued to the token before, no space. {changed}</div>")
    if family == "unigram":
        return (f'<div class="fam-legend"><span class="sw">▁ → {SPACE}</span>Unigram cuts each word the most probable '
                "way into vocabulary pieces (the best path by piece scores), so a word's pieces are not built from "
                f"smaller ones; ▁ is a space, and one is put before the text. {changed}</div>")
    if family in ("wordlevel", "char-bpe"):
        return f'<div class="fam-legend">{changed}</div>'
    return ""
