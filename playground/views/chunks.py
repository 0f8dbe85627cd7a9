"""Token-budget chunks: the text cut into chunks of at most N tokens of one tokenizer, to read and download.

The cutting is `engine.chunk_text` (token boundaries only, never inside a
character, preferring paragraph or sentence ends; each chunk re-encoded on
its own fits the budget).  Chunks are shown as compact cards, `PAGE_SIZE` per
page, and download as JSONL, JSON or plain text.  The result is cached per
(tokenizer, text, N, preference, policy) as a frozen object.
"""
from __future__ import annotations

import json

import streamlit as st

import engine
from playground import state
from playground.cache import encodings, render_cache
from playground.components.live_input import text_box
from playground.render import css, html
from playground.render.chunks import chunk_cards
from playground.render.markdown import md
from playground.widgets import prices
from playground.widgets.page import draw, header, refuse_message

K_ENCODING = state.CHUNK_ENCODING
K_MAX = state.CHUNK_MAX
K_PREFER = state.CHUNK_PREFER
K_PAGE = state.CHUNK_PAGE
K_FOLLOWED = state.CHUNK_ENCODING_FOLLOWED  # the sidebar pick this view last took on its own (not a widget)
PREFER = {"paragraph": "Paragraph ends", "sentence": "Sentence ends", "none": "Anywhere"}
DEFAULT_MAX = 512  # a budget people use (embedding models take 512 tokens; retrieval chunks are 256-1,000)
FALLBACK_ENCODING = "cl100k_base"  # when the sidebar picks nothing
MAX_BUDGET = 1_000_000
MAX_CHARS = 200_000  # characters chunked here (a tokenize plus one encode per chunk: about 2 s at this size)
PAGE_SIZE = 40


# -------------------------------------------------------------- downloads
def _record(c: engine.explain.chunking.Chunk) -> dict:
    return {"index": c.index, "text": c.text, "tokens": c.tokens, "char_start": c.char_start,
            "char_end": c.char_end, "byte_start": c.byte_start, "byte_end": c.byte_end,
            "token_start": c.token_start, "token_end": c.token_end, "ends_at": c.ends_at}


def as_jsonl(result: engine.explain.chunking.Chunking) -> str:
    """One JSON object per line per chunk (the format embedding pipelines read)."""
    return "".join(json.dumps(_record(c), ensure_ascii=False) + "\n" for c in result.chunks)


def as_json(result: engine.explain.chunking.Chunking) -> str:
    """The settings and every chunk, as one JSON document."""
    return json.dumps({"encoding": result.encoding, "max_tokens": result.max_tokens, "prefer": result.prefer,
                       "total_tokens": result.total_tokens, "characters": result.chars,
                       "chunks": [_record(c) for c in result.chunks]}, ensure_ascii=False, indent=1)


def as_text(result: engine.explain.chunking.Chunking) -> str:
    """Each chunk under a header line ``--- chunk i of n · t tokens ---`` (the chunk's text exactly, then a newline)."""
    n = len(result.chunks)
    return "".join(f"--- chunk {c.index + 1} of {n} · {c.tokens} tokens ---\n{c.text}\n" for c in result.chunks)


# ---------------------------------------------------------------- the view
def _names() -> list[str]:
    return list(dict.fromkeys(engine.list_tokenizer_names() + state.known_encodings()))


def _sanitize(names: list[str]) -> None:
    """Values from a share link are checked before the widgets draw (any value may arrive there)."""
    ss = st.session_state
    first = next((n for n in ss.get(state.ENCODINGS) or [] if n in names), FALLBACK_ENCODING)
    current = ss.get(K_ENCODING)
    # The tokenizer starts on the sidebar's first pick and follows it until the user (or a share link)
    # picks another one here: then the view's own choice stays.
    if current not in names or (current == ss.get(K_FOLLOWED) and current != first):
        ss[K_ENCODING] = ss[K_FOLLOWED] = first
    elif current != ss.get(K_FOLLOWED):
        ss.pop(K_FOLLOWED, None)
    if not isinstance(ss.get(K_MAX), int) or isinstance(ss.get(K_MAX), bool) or not 1 <= ss[K_MAX] <= MAX_BUDGET:
        ss[K_MAX] = DEFAULT_MAX
    if ss.get(K_PREFER) not in PREFER:
        ss[K_PREFER] = "paragraph"
    if not isinstance(ss.get(K_PAGE), int) or isinstance(ss.get(K_PAGE), bool) or ss[K_PAGE] < 1:
        ss[K_PAGE] = 1


def render() -> None:
    header("Token-budget chunks", "cut a long text into chunks of at most N tokens, on token boundaries.")
    text = text_box()
    names = _names()
    _sanitize(names)
    c1, c2, c3 = st.columns([3, 2, 4], vertical_alignment="bottom")
    name = c1.selectbox("Tokenizer", names, key=K_ENCODING, persist_state="session")
    max_tokens = int(c2.number_input("At most N tokens per chunk", min_value=1, max_value=MAX_BUDGET, step=16,
                                     key=K_MAX, persist_state="session"))
    prefer = c3.segmented_control("Cut preferably at", list(PREFER), format_func=PREFER.get, key=K_PREFER,
                                  persist_state="session", required=True,
                                  help="Within the budget, end a chunk at the last paragraph end (a blank line), "
                                       "else the last sentence end, else as late as possible. A preferred end is "
                                       "taken only when the chunk is then at least half full.")
    if len(text) > MAX_CHARS:
        st.warning(f"The text has {len(text):,} characters; this view chunks the first {MAX_CHARS:,} "
                   "(the downloads cover the same part).")
        text = text[:MAX_CHARS]
    if not text:
        st.info("Type or paste a text above to cut it into chunks.")
        return
    policy = st.session_state.get(state.SPECIAL, "text")
    try:
        result = encodings.chunk(name, encodings.resolve(name), render_cache.text_key(text), text, max_tokens, prefer, policy)
    except engine.ChunkingError as error:
        st.error(md(error, 600))
        return
    except ValueError as error:
        refuse_message(error, name)
        return
    _summary(result)
    prices.input_costs([(name, result.total_tokens)], what="the whole text")
    _downloads(result, name)
    _cards(result)


def _summary(result: engine.explain.chunking.Chunking) -> None:
    sizes = [c.tokens for c in result.chunks]
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Chunks", f"{len(sizes):,}")
    c2.metric("Tokens in the text", f"{result.total_tokens:,}")
    c3.metric("Largest chunk", f"{max(sizes):,} tokens")
    c4.metric("Average fill", f"{sum(sizes) / len(sizes) / result.max_tokens:.0%}",
              help="Mean chunk size as a share of the budget.")
    ends = {kind: sum(1 for c in result.chunks[:-1] if c.ends_at == kind) for kind in ("paragraph", "sentence", "token")}
    st.caption(f"{ends['paragraph']:,} chunks end at a paragraph end, {ends['sentence']:,} at a sentence end, "
               f"{ends['token']:,} between two other tokens (the last one ends the text). Each chunk's count is the "
               "chunk encoded on its own (at most N); a character split over several byte tokens is never cut.")


def _downloads(result: engine.explain.chunking.Chunking, name: str) -> None:
    stem = f"chunks-{html.slug(name)}-{result.max_tokens}"
    c1, c2, c3 = st.columns(3)
    c1.download_button("Download JSONL", lambda: as_jsonl(result), file_name=f"{stem}.jsonl",
                       mime="application/jsonl", key=state.CHUNK_JSONL, icon=":material/download:", on_click="ignore")
    c2.download_button("Download JSON", lambda: as_json(result), file_name=f"{stem}.json",
                       mime="application/json", key=state.CHUNK_JSON, icon=":material/download:", on_click="ignore")
    c3.download_button("Download text", lambda: as_text(result), file_name=f"{stem}.txt",
                       mime="text/plain", key=state.CHUNK_TXT, icon=":material/download:", on_click="ignore")


@st.fragment
def _cards(result: engine.explain.chunking.Chunking) -> None:
    """The chunks, `PAGE_SIZE` per page (the page picker redraws only this)."""
    pages = max(1, -(-len(result.chunks) // PAGE_SIZE))
    if st.session_state.get(K_PAGE, 1) > pages:
        st.session_state[K_PAGE] = 1
    page = 1
    if pages > 1:
        left, right = st.columns([2, 7], vertical_alignment="bottom")
        page = int(left.number_input(f"Page (of {pages})", min_value=1, max_value=pages, step=1, key=K_PAGE,
                                     persist_state="session"))
        first = (page - 1) * PAGE_SIZE
        right.caption(f"Chunks {first + 1:,}–{min(first + PAGE_SIZE, len(result.chunks)):,} of {len(result.chunks):,}")
    first = (page - 1) * PAGE_SIZE
    show_ws = bool(st.session_state.get(state.SHOW_WS, True))
    draw(css.style_block("chunks") + chunk_cards(result.chunks[first:first + PAGE_SIZE], result.max_tokens, show_ws=show_ws), key=state.CHUNK_CARDS)
