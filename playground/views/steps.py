"""BPE steps: replay the merge loop on one piece of the text, one merge at a time.

BPE runs on each pre-tokenization piece separately.  It starts from the
piece's single bytes and, at every step, joins the adjacent pair whose join
has the lowest rank; it stops when no adjacent pair is a token.  The slider
walks `Encoding.bpe_trace(piece)`; parts are rebuilt with
``trace.parts_at(k)`` (one step's parts at a time, never all of them), and at
most `WINDOW` boxes around the merge are drawn, so a 5,000-byte piece stays
responsive.  The last step's ids are checked against ``encode``.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

import engine
from engine.explain import families as explain
from engine.explain.algorithms import algorithm_of
from playground import state
from playground.cache import encodings, render_cache
from playground.render import html
from playground.render.markdown import md
from playground.render.pipeline import algorithm_card
from playground.render.tree import bpe_parts
from playground.widgets import pickers
from playground.widgets.page import header, styles

ENC_KEY = state.STEPS_ENC
SOURCE_KEY = pickers.STEPS_SOURCE  # set by other views through pickers.open_steps
PIECE_KEY = state.STEPS_PIECE
TYPED_KEY = pickers.STEPS_TYPED
STEP_KEY = pickers.STEPS_STEP

SOURCES = {"text": "A piece of the text", "typed": "Type a piece"}
WINDOW = 160  # boxes drawn around the current merge
TABLE_ROWS = 3000  # steps listed in the table
MAX_PIECES = 2000  # distinct pieces offered in the picker


def _move(delta: int | None, last: int) -> None:
    """Stepper buttons: delta steps, or to the end (None)."""
    k = st.session_state.get(STEP_KEY, 0)
    st.session_state[STEP_KEY] = last if delta is None else min(max(k + delta, 0), last)


def _pieces(name: str, enc: engine.Encoding) -> list[str]:
    """The distinct pieces of the current text; ValueError when the tokenizer cannot split it at all (one
    without an unknown token that cannot spell a character of it)."""
    text = st.session_state.get(state.TEXT, "")
    policy = st.session_state.get(state.SPECIAL, "text")
    try:
        pieces = render_cache.pieces(name, enc, text, policy)
    except ValueError:
        pieces = render_cache.pieces(name, enc, text, "text")
    seen: dict[str, None] = {}
    for piece in pieces:
        if not piece.special:
            seen.setdefault(piece.text)
    return list(seen)[:MAX_PIECES]


def _choose_piece(name: str, enc: engine.Encoding) -> str | None:
    st.session_state.setdefault(SOURCE_KEY, "text")  # no default=: other views set this key before switching
    source = st.segmented_control("Piece", list(SOURCES), format_func=SOURCES.get, key=SOURCE_KEY, persist_state="session",
                                  required=True, label_visibility="collapsed")
    if source == "typed":
        st.session_state.setdefault(TYPED_KEY, "unbelievable")
        return st.text_input("Piece", key=TYPED_KEY, persist_state="session", help="Any text; BPE runs on its UTF-8 bytes.") or None
    try:
        pieces = _pieces(name, enc)
    except ValueError as error:
        st.warning(f"**{md(name)} could not split the current text:** {md(str(error).rstrip('.'), 600)}. "
                   f"Choose “{SOURCES['typed']}” above instead.")
        return None
    if not pieces:
        st.info("The text is empty: type one on the Tokenize page, or type a piece here.")
        return None
    if st.session_state.get(PIECE_KEY) not in pieces:
        st.session_state[PIECE_KEY] = max(pieces, key=lambda p: len(p.encode("utf-8")))
    return st.selectbox(
        f"Pieces of the current text ({len(pieces):,} distinct; the longest is preselected)", pieces,
        key=PIECE_KEY, persist_state="session", format_func=lambda p: f"{engine.explain.vocab.readable(p.encode('utf-8'), space=html.SPACE)}   ({html.plural(len(p.encode('utf-8')), 'byte')})",
        help="The encoding's split pattern cut the text into these pieces; BPE never merges across them.")


def _id_labels(enc: engine.Encoding, parts: list[bytes]) -> tuple[list[int | None], list[str]]:
    """Each part's id (None unless exactly one) and its label: the id, the byte-fallback ids, or ?."""
    ids, labels = [], []
    for found in explain.part_ids(enc, parts):
        ids.append(found[0] if len(found) == 1 else None)
        labels.append(str(found[0]) if len(found) == 1 else ("bytes " + " ".join(map(str, found)) if found else "?"))
    return ids, labels


def _stepper(n: int) -> int:
    if st.session_state.get(STEP_KEY, 0) > n:
        st.session_state[STEP_KEY] = 0
    b = st.columns([1, 1, 1, 1, 6])
    b[0].button("⏮", key=state.STEPS_FIRST, on_click=_move, args=(-n, n), help="Back to single bytes", width="stretch")
    b[1].button("◀", key=state.STEPS_PREV, on_click=_move, args=(-1, n), help="One merge back", width="stretch")
    b[2].button("▶", key=state.STEPS_NEXT, on_click=_move, args=(1, n), help="Next merge", width="stretch")
    b[3].button("⏭", key=state.STEPS_LAST, on_click=_move, args=(None, n), help="All merges done", width="stretch")
    return b[4].slider("Step", 0, n, key=STEP_KEY, persist_state="session", label_visibility="collapsed",
                       help="0 = single bytes; each step performs one merge.")


def _draw_step(enc: engine.Encoding, note: engine.explain.families.FamilyNote, trace: engine.BpeTrace, k: int) -> None:
    n = len(trace.steps)
    parts = trace.parts_at(k)
    step = trace.steps[k] if k < n else None
    centre = step.position if step else 0
    first = max(0, min(centre - WINDOW // 2, len(parts) - WINDOW))
    window = parts[first : first + WINDOW]
    ids, id_labels = _id_labels(enc, window)
    candidates = explain.pair_candidates(enc, window)
    if step is not None:
        show = lambda b: engine.explain.vocab.readable(b, space=html.SPACE).replace("`", "ˋ")  # noqa: E731 (inside `code`)
        cand = candidates[step.position - first] if 0 <= step.position - first < len(candidates) else None
        why = {"rank": "the lowest rank of all neighbouring pairs",
               "score": "the highest score of all neighbouring pairs",
               "merge #": "listed earliest in the file's merges of all neighbouring pairs"}[note.priority]
        value = f"{note.priority} **{cand.shown}**, " if cand is not None and note.priority != "rank" else (
            f"rank **{step.rank}**, " if note.priority == "rank" else "")
        made = f"; id {step.rank}" if note.priority != "rank" else ""
        st.markdown(
            f"**{k} of {html.plural(n, 'merge')} done.** Next, merge {k + 1}: join `{show(step.left)}` + `{show(step.right)}` "
            f"→ `{show(step.merged)}` ({value}{why}{made})")
    else:
        st.markdown(f"**Done after {html.plural(n, 'merge')}:** no two neighbouring parts join into a token any more.")
    st.markdown(bpe_parts(window, ids, merge_at=step.position if step else None,
                               pair_ranks=[None if c is None else c.priority for c in candidates], first=first,
                               total=len(parts), pair_labels=[None if c is None else c.shown for c in candidates],
                               id_labels=id_labels), unsafe_allow_html=True)
    extra = (f" Drawing parts {first} … {first + len(window) - 1} of {len(parts):,} around the merge."
             if len(parts) > len(window) else "")
    gap = {"rank": "the rank of joining those two neighbours (blank: not a token); the red one is merged next "
                   "(on a tie, the leftmost).",
           "score": "the score of the piece joining those two neighbours (blank: not a piece); the red one, the "
                    "highest, is merged next (on a tie, the leftmost). “bytes …” under a character: it has no piece, "
                    "so encode() gives its byte-fallback tokens.",
           "merge #": "the position in the file's merges list of the merge joining those two neighbours (blank: not "
                      "listed); the red one, listed earliest, is merged next."}[note.priority]
    st.caption("Each box is a part with its token id. The small numbers between boxes are " + gap + extra)


def _check(name: str, enc: engine.Encoding, note: engine.explain.families.FamilyNote, piece: str, trace: engine.BpeTrace) -> None:
    final = list(trace.final_ids)
    shown = ", ".join(map(str, final[:12])) + (f", … ({len(final):,} ids)" if len(final) > 12 else "")
    expected = encodings.whole_piece_ids(name, enc, piece)
    if expected is None:
        n = max(2, len(render_cache.pieces(name, enc, piece, "text")))
        st.info(f"The encoding's splitter cuts this text into {html.plural(n, 'piece')}, and encode() runs BPE on each "
                f"separately; here BPE ran on the whole string: [{shown}]. Pick a piece of the text to compare with encode().")
    elif expected == final:
        st.success(f"✅ After the last step the ids are [{shown}], the same as `enc.encode(piece)` gives for this piece.")
    else:
        st.error(f"❌ The last step gives [{shown}] but encode() gives {expected[:12]}. This is a bug; please report it.")
    if note.family == "tiktoken":
        ranks = enc.mergeable_ranks
        if [ranks.get(p) for p in trace.parts_at(len(trace.steps))] != final:
            st.caption("This piece is itself a token, so encode() (like tiktoken) takes it whole without running the loop.")


def _table(trace: engine.BpeTrace, k: int, family: str) -> None:
    steps = trace.steps[:TABLE_ROWS]
    show = lambda b: engine.explain.vocab.readable(b, space=html.SPACE)  # noqa: E731
    df = pd.DataFrame({
        "step": [s.index + 1 for s in steps],
        "next": ["▶" if s.index == k else "" for s in steps],
        "position": [s.position for s in steps],
        "left": [show(s.left) for s in steps],
        "right": [show(s.right) for s in steps],
        "merged": [show(s.merged) for s in steps],
        "rank (id)" if family == "tiktoken" else "id": [s.rank for s in steps],
    })
    st.dataframe(df, hide_index=True, width="stretch", height=300, key=state.STEPS_TABLE)
    if len(trace.steps) > TABLE_ROWS:
        st.caption(f"The first {TABLE_ROWS:,} of {len(trace.steps):,} steps.")


MAX_STORY_STEPS = 400  # lookups or lattice nodes listed for one piece


def _no_merges(name: str, enc: engine.Encoding, note, piece: str) -> None:
    """WordPiece, Unigram and WordLevel have no merge loop to replay: say so, and show the model's own steps
    on the piece, drawn as on Three algorithms (WordPiece: each longest-match lookup, ``##`` marking a
    continuation; Unigram: every candidate of the lattice and the best path with its scores)."""
    st.info(f"{note.tree} {note.merges}")
    try:
        steps = encodings.model_steps(name, enc, piece) if note.family == "wordpiece" else None
        story = encodings.piece_story(name, enc, piece)
    except ValueError as err:
        st.error(f"{md(err, 600)}. Choose another piece.")
        return
    st.markdown(algorithm_card(name, [story], max_steps=MAX_STORY_STEPS, open_steps=True), unsafe_allow_html=True)
    if steps and note.family == "wordpiece":
        st.dataframe(pd.DataFrame({"characters": [f"{a.start}–{a.end}" for a in steps],
                                   "looked up": [a.candidate for a in steps],
                                   "in the vocabulary": ["✅" if a.found else "" for a in steps]}),
                     hide_index=True, width="stretch", key=state.STEPS_WORDPIECE)
        st.caption("Longest match first: the longest vocabulary entry the piece starts with, then the longest "
                   "##-entry that continues it; a piece with no match at some point becomes one [UNK].")
    st.success(f"Ids for this piece: {list(encodings.piece_ids(name, enc, piece))}")


def render() -> None:
    header("BPE steps", "replay the merge loop on one piece of your text, one merge at a time.")
    styles("tree", "gallery", "pipeline")
    name, enc = pickers.encoding_select(ENC_KEY)
    note = encodings.family_note(name, enc)
    st.markdown(f"**{md(note.title)}**: {md(note.merges)}")
    piece = _choose_piece(name, enc)
    if not piece:
        return
    if algorithm_of(enc) != "bpe":  # a SentencePiece .model may be Unigram: the algorithm, not the family, decides
        _no_merges(name, enc, note, piece)
        return
    try:
        trace = encodings.bpe_trace(name, enc, piece)
    except ValueError as err:
        st.error(f"{md(err, 600)}. Choose another piece or encoding.")
        return
    n = len(trace.steps)
    c1, c2, c3 = st.columns(3)
    c1.metric("bytes", len(trace.piece), help="SentencePiece starts from characters, the others from bytes.")
    c2.metric("merges", n)
    c3.metric("tokens at the end", len(trace.final_ids))
    if n == 0:
        st.info("Nothing to merge: the piece is a single part, or no two neighbouring parts join into a token.")
        k = 0
    else:
        k = _stepper(n)
    _draw_step(enc, note, trace, k)
    _check(name, enc, note, piece, trace)
    if n:
        st.subheader("All steps")
        _table(trace, k, note.family)
    final = list(dict.fromkeys(trace.final_ids))[:40]
    picked = st.pills("Open the merge tree of a final token", final, key=state.STEPS_FINAL_PICK,
                      format_func=lambda t: pickers.chip_label(enc, t))
    if picked is not None:
        pickers.set_token(name, picked)
        pickers.go("tree")
