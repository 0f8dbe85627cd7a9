"""Tokenize: one text, one encoding, every layer of what the tokenizer did.

Counts cover the whole text (the cached `encode`); drawing covers the first
`encodings.DRAW_LIMIT` characters.  Heavy panes (tokens, bytes, pieces,
table) sit behind a segmented control so only the chosen one is built; the
encoding and pane pickers redraw only their own part (`st.fragment`).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

import streamlit as st

import engine
from engine.explain.algorithms import EXPLANATION, algorithm_of
from engine.sources.catalog import entry as catalog_entry
from playground import state
from playground.cache import encodings, render_cache
from playground.components.copy_button import copy_button
from playground.components.live_input import text_box
from playground.render import html
from playground.render.markdown import md
from playground.render.tokens import family_legend, isolate_rtl, pre_pieces, token_bytes
from playground.widgets import other_cuts, pickers
from playground.widgets.page import draw, family_stages, header, refuse_message
from playground.widgets.text_fields import text_field

PANES = ["Tokens", "Bytes", "Pieces", "Table"]
MAX_IDS_SHOWN = 20_000      # ids in the copyable list
MAX_DECODE_CHARS = 1_000_000  # the decode box (about 150,000 ids)
MAX_PICK = 500              # distinct tokens offered in the merge-tree picker
PICK_KEY = state.TOK_PICK        # the "Explain a token" box
_ID_SPLIT = re.compile(r"[\s,;]+")
# One count of characters everywhere (this metric, the text box's counter, Compare's table, the limits):
# Unicode code points, Python's len().  The browser's own count (UTF-16 units) said 231 for a text of 227.
CHARS_HELP = ("Unicode code points, as the text box counts them: 👋🏽 (a hand and a skin tone) is 2, "
              "a flag 2, 𝔘 1.")


# ------------------------------------------------------------------ decode box
@dataclass(frozen=True)
class ParsedIds:
    ids: list[int]
    bad: list[str]


def parse_ids(text: str) -> ParsedIds:
    """Ids typed or pasted as ``15339, 1917``, ``[15339 1917]`` or one per line; the rest in `bad`."""
    body = text.strip().strip("[]()")
    ids, bad = [], []
    for part in _ID_SPLIT.split(body):
        if not part:
            continue
        if re.fullmatch(r"\d{1,12}", part):
            ids.append(int(part))
        else:
            bad.append(part)
    return ParsedIds(ids, bad)


def _decode_box(name: str, enc: engine.Encoding) -> None:
    raw = text_field("Decode ids", key=state.TOK_DECODE, limit=MAX_DECODE_CHARS, persist_state="session",
                     placeholder="15339, 1917   or   [15339 1917]",
                     help=f"Token ids of {md(name)}, separated by commas, spaces or new lines.")
    if not raw or not raw.strip():
        return
    parsed = parse_ids(raw)
    if parsed.bad:
        shown = ", ".join(repr(b) for b in parsed.bad[:10]) + (" …" if len(parsed.bad) > 10 else "")
        st.error(f"Not token ids: {md(shown)}. Use whole numbers separated by commas or spaces.")
    unknown = enc.unknown_ids(parsed.ids)
    if unknown:
        shown = ", ".join(map(str, unknown[:20])) + (" …" if len(unknown) > 20 else "")
        st.warning(f"Unknown to {md(name)} (ids run 0–{enc.max_token_value:,}, with gaps): {shown}. "
                   "They are left out of the text below.")
    unknown_set = set(unknown)  # once: testing against set(unknown) per id was quadratic
    known = [t for t in parsed.ids if t not in unknown_set]
    if known:
        data = enc.decode_bytes(known)
        st.code(data.decode("utf-8", errors="replace"), language=None, wrap_lines=True)
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            st.caption("Some ids stop inside a character; those bytes show as �.")


# ------------------------------------------------------------------ panes
def _metrics(stats: engine.explain.compare.EncodingStats) -> None:
    cols = st.columns(5)
    cols[0].metric("Tokens", f"{stats.tokens:,}")
    cols[1].metric("Characters", f"{stats.chars:,}", help=CHARS_HELP)
    cols[2].metric("UTF-8 bytes", f"{stats.bytes:,}")
    cols[3].metric("Bytes / token", f"{stats.bytes_per_token:.2f}")
    cols[4].metric("Chars / token", f"{stats.chars_per_token:.2f}")


def _tokens_pane(view: render_cache.TokenView) -> None:
    draw(view.markup, key=state.TOK_TOKENS_BLOCK)
    note = ("Hover a token for its ids, bytes and rank; click it to pin it: the buttons under the ids then open "
            "its merge tree (or its family's own explanation), its steps and its vocabulary entry.")
    if view.n_split:
        note += (f" {html.plural(view.n_split, 'character')} (as you see them) "
                 f"{'are' if view.n_split != 1 else 'is'} cut into several tokens: drawn once with stripes, "
                 "every id in the tooltip.")
    st.caption(note)


def _bytes_pane(name: str, tokens) -> None:
    draw(token_bytes(tokens, f"bytes-{html.slug(name)}"), key=state.TOK_BYTES_BLOCK)
    invalid = sum(not t.is_valid_utf8 for t in tokens)
    st.caption("Each box is one token's bytes in hex. "
               + (f"{html.plural(invalid, 'token')} {'are' if invalid != 1 else 'is'} not valid UTF-8 on its own "
                  "(dashed red): a piece of a character." if invalid else "Every token is valid UTF-8 on its own."))


def _pieces_pane(names: list[str], text: str, policy: str, show_ws: bool) -> None:
    st.caption("Before BPE, each encoding cuts the text into pieces (a regex; SentencePiece: at ▁ word starts; "
               "tokenizer.json: its pre-tokenizer sequence); BPE then merges inside a piece, never across. "
               "GPT-2 keeps a number whole; cl100k_base and o200k_base cut it into groups of 1–3 digits.")
    for name in names:
        enc = encodings.resolve(name)
        try:
            pieces = render_cache.pieces(name, enc, text, policy)
            tokens = render_cache.tokens(name, enc, text, policy)
        except ValueError as error:
            refuse_message(error, name)
            continue
        per_piece = [0] * len(pieces)
        for tok in tokens:
            per_piece[tok.piece_index] += 1
        st.markdown(f"**{md(name)}** · {html.plural(len(pieces), 'piece')} → {html.plural(len(tokens), 'token')}")
        draw(pre_pieces(pieces, per_piece, f"pieces-{html.slug(name)}", show_ws=show_ws), key=f"{state.TOK_PIECES_PREFIX}{name}")
        with st.expander(f"How {md(name)} splits and merges"):
            family_stages(encodings.family_note(name, enc))


def token_rows(tokens, pieces) -> list[dict]:
    return [{
        "#": i,
        "id": t.id,
        "text": t.text,
        "bytes (hex)": html.hex_bytes(t.bytes),
        "byte start": t.byte_start,
        "byte end": t.byte_end,
        "char start": t.char_start,
        "char end": t.char_end,
        "piece": pieces[t.piece_index].text if t.piece_index < len(pieces) else "",
        "special": t.special,
        "valid UTF-8 alone": t.is_valid_utf8,
    } for i, t in enumerate(tokens)]


def _table_pane(name: str, tokens, pieces) -> None:
    rows = token_rows(tokens, pieces)
    import pandas as pd  # imported on first use, so the first page draws without waiting for it

    frame = pd.DataFrame(rows)
    st.dataframe(frame, hide_index=True, height=420, key=state.TOK_TABLE)
    c1, c2, _ = st.columns([1, 1, 4])
    c1.download_button("Download CSV", frame.to_csv(index=False), file_name=f"tokens-{html.slug(name)}.csv",
                       mime="text/csv", key=state.TOK_CSV, icon=":material/download:")
    c2.download_button("Download JSON", json.dumps({"encoding": name, "tokens": rows}, ensure_ascii=False, indent=1),
                       file_name=f"tokens-{html.slug(name)}.json", mime="application/json", key=state.TOK_JSON,
                       icon=":material/download:")


def _ids_box(ids: tuple[int, ...], view: render_cache.TokenView) -> None:
    draw(view.ids_markup, key=state.TOK_IDS_BLOCK)
    shown = ids[:MAX_IDS_SHOWN]
    label = (f"Copy all {html.plural(len(ids), 'id')}" if len(shown) == len(ids)
             else f"Copy the first {len(shown):,} ids")
    copy_button(label, "[" + ", ".join(map(str, shown)) + "]", key=state.TOK_COPY_IDS)
    if len(ids) > len(shown):
        st.caption(f"The button copies the first {len(shown):,} of {len(ids):,} ids; "
                   "the Table pane downloads the drawn part.")


def _on_pick(name: str) -> None:
    pickers.set_token(name, st.session_state.get(PICK_KEY))


def _making_step(name: str, enc: engine.Encoding, piece: str, token_id: int) -> int:
    """The number of merges done on `piece` just before the merge that makes `token_id` (so BPE steps opens
    with that merge next, drawn in red), or 0 when no merge makes it (a single byte, a whole-piece token)."""
    try:
        trace = encodings.bpe_trace(name, enc, piece)
    except ValueError:
        return 0
    return next((s.index for s in trace.steps if s.rank == token_id), 0)


def _token_actions(name: str, enc: engine.Encoding, start: render_cache.Drawn) -> None:
    """The "Explain a token" box and its buttons.  The box shows the chosen token (state.TOKEN_ID: the
    token pinned in the drawing, or picked here or on Merge tree) when it is a token of this text, so
    every button acts on the token the user last clicked: its merge tree (or its family's own
    explanation), the steps on the piece of the text that holds it, its vocabulary entry."""
    tokens = start.tokens
    first_seen: dict[int, engine.Token] = {}
    for tok in tokens:
        if tok.id not in first_seen and not tok.special:
            first_seen[tok.id] = tok
            if len(first_seen) >= MAX_PICK:
                break
    chosen = st.session_state.get(state.TOKEN_ID) if st.session_state.get(state.TOKEN_ENC) == name else None
    if chosen is not None and chosen not in first_seen:  # pinned past the first MAX_PICK distinct tokens
        found = next((t for t in tokens if t.id == chosen and not t.special), None)
        if found is not None:
            first_seen[chosen] = found
    if not first_seen:
        return
    if chosen in first_seen:
        st.session_state[PICK_KEY] = chosen  # before the widget: the chosen token wins
    options = list(first_seen)
    algorithm = algorithm_of(enc)
    explained = {"bpe": "The merge tree shows how BPE built the token from single bytes.",
                 "wordpiece": "WordPiece never merges: its longest-match lookups show how it found the token.",
                 "unigram": "Unigram never merges: its lattice shows the best-scoring cut the token is part of.",
                 }.get(algorithm, "The token is one vocabulary entry, looked up whole.")
    picked = st.selectbox("Explain a token", options, key=PICK_KEY, on_change=_on_pick, args=(name,),
                          format_func=lambda t: f"{isolate_rtl(html.visible(first_seen[t].text))} · id {t}",
                          help="The tokens of this text, in order of first appearance; clicking a token in "
                               f"the drawing picks it here, and the buttons below act on it. {explained}")
    c1, c2, c3 = st.columns(3)
    if c1.button(f"Open its {EXPLANATION[algorithm].lower()} →", key=state.TOK_OPEN_TREE, width="stretch"):
        pickers.set_token(name, picked)
        pickers.go("tree")
    token = first_seen.get(picked)
    piece = start.pieces[token.piece_index].text if token is not None and token.piece_index < len(start.pieces) else None
    if c2.button("Its BPE steps →" if algorithm == "bpe" else "Its piece's steps →",
                 key=state.TOK_OPEN_STEPS, width="stretch", disabled=not piece,
                 help="The steps view on the piece of this text that holds the token (BPE: at the merge "
                      "that makes it)."):
        pickers.set_token(name, picked)
        pickers.open_steps_piece(piece, _making_step(name, enc, piece, picked) if algorithm == "bpe" else 0)
        pickers.go("steps")
    if c3.button("In the vocabulary →", key=state.TOK_OPEN_VOCAB, width="stretch",
                 help="Its entry: bytes, notes, the tokens that contain it and those inside it."):
        pickers.set_token(name, picked)
        pickers.open_vocab_token()
        pickers.go("vocab")


# ------------------------------------------------------------------ the view
def render() -> None:
    header("Tokenize", "type or paste text and see how a tokenizer (GPT, Llama, Qwen, Mistral, DeepSeek, GLM, MiniMax, Claude 1/2 or your own) cuts it into tokens, byte by byte.")
    text = text_box()
    names = list(st.session_state.get(state.ENCODINGS) or [])
    if not names:
        st.info("Pick an encoding under *Encodings* in the sidebar.")
        return
    _inspect(names, text)


@st.fragment
def _inspect(names: list[str], text: str) -> None:
    """Everything below the text box: the encoding and pane pickers redraw only this part."""
    if st.session_state.get(state.TOK_ENCODING) not in names:
        st.session_state[state.TOK_ENCODING] = names[0]
    name = st.segmented_control("Encoding", names, key=state.TOK_ENCODING, persist_state="session", required=True, format_func=md,
                                help="Which of the sidebar's encodings to inspect.") or names[0]
    policy = st.session_state.get(state.SPECIAL, "text")
    show_ws = bool(st.session_state.get(state.SHOW_WS, True))
    enc = encodings.resolve(name)
    found = catalog_entry(name)
    if found is not None and found.note:  # what a built-in is not (Claude 3+'s private tokenizer, say)
        st.caption(md(found.note))
    try:
        ids = render_cache.ids(name, enc, text, policy)
        view = render_cache.token_view(name, enc, text, policy, show_ws)
        start = render_cache.drawn(name, enc, text, policy)  # the token records the panes draw
    except ValueError as error:
        refuse_message(error, name)
        return

    _metrics(render_cache.stats(name, text, len(ids)))
    pane = st.segmented_control("Show", PANES, key=state.TOK_PANE, persist_state="session", default="Tokens", required=True) or "Tokens"
    if pane == "Tokens":
        _tokens_pane(view)
        legend = family_legend(encodings.family_note(name, enc).family)
        if legend:
            st.markdown(legend, unsafe_allow_html=True)
    elif pane == "Bytes":
        _bytes_pane(name, [t for t in start.tokens if t.char_start < render_cache.DRAWN_CHARS])
    elif pane == "Pieces":
        _pieces_pane(names, text, policy, show_ws)
    else:  # the table covers the first DRAW_LIMIT characters: only this pane pays for all their records
        try:
            _table_pane(name, render_cache.tokens(name, enc, text, policy), render_cache.pieces(name, enc, text, policy))
        except ValueError as error:
            refuse_message(error, name)

    left, right = st.columns(2)
    with left:
        st.markdown(f"**Token ids** ({len(ids):,})")
        _ids_box(ids, view)
    with right:
        _decode_box(name, enc)
    _token_actions(name, enc, start)
    other_cuts.panel(name, enc, text, show_ws)  # non-canonical tokenizations (BPE families only)
    state.save_query_params("tokenize")  # a fragment run skips app.py's save: the link follows the pickers too
