"""Vocabulary explorer: every token of an encoding, searchable, filterable, one click from its tree.

Panes (one runs at a time): search the vocabulary (substring or regex, with
quick filters) in a sortable table; one token's facts and its "families"
(tokens that contain it, tokens inside it); the token-length histogram; and,
for GPT-2's vocabulary, the known under-trained "glitch" tokens with their
sources; and scaffold and unreachable tokens: a chart of every built-in from
stored sweeps (`playground.widgets.vocab_health`), then this encoding's own lists.
The chart sits here, not on a page of its own, because every number in it is a
count of vocabulary entries, and each list opens its tokens in the One token pane.
Tables are cached per encoding name (`encodings.vocab_table`), so o200k's 200k
rows are read once.
"""
from __future__ import annotations

import functools

import altair as alt
import pandas as pd
import streamlit as st

import engine
from playground import state
from playground.cache import encodings
from playground.render import html
from playground.render.markdown import md
from playground.serving import jobs
from playground.widgets import charts, pickers, vocab_health
from playground.widgets.page import header, token_text

ENC_KEY = state.VOCAB_ENC
PANE_KEY = pickers.VOCAB_PANE  # other views open the token pane through pickers.open_vocab_token
QUERY_KEY = state.VOCAB_QUERY
MODE_KEY = state.VOCAB_MODE
ICASE_KEY = state.VOCAB_ICASE
FILTER_KEY = state.VOCAB_FILTER
TABLE_KEY = state.VOCAB_TABLE
GLITCH_TABLE_KEY = state.VOCAB_GLITCH_TABLE
ID_KEY = state.VOCAB_ID
UP_KEY = state.VOCAB_CONTAINING
DOWN_KEY = state.VOCAB_CONTAINED
_SHOWN = state.VOCAB_SHOWN_IDS  # ids of the rows on screen, for the row-selection callback

PANES = {"search": "🔎 Search", "token": "🔬 One token", "lengths": "📏 Lengths", "glitch": "👾 Glitch tokens",
         "scaffold": "🧱 Scaffold & unreachable"}
HEALTH_LISTS = {"scaffold": "Scaffold", "unreachable": "Unreachable", "in_context": "Only in context",
                "partial_utf8": "Partial UTF-8"}
KIND_FACT = {"ok": "yes: encodes back to itself", "partial_utf8": "only inside text: its bytes are not a whole character",
             "in_context": "only in context: alone its text encodes to other tokens",
             "unreachable": "no: neither alone nor in the contexts tried does its text encode to it"}
MODES = {"substring": "substring", "regex": "regex"}
FILTERS = {"all": "All", "longest": "Longest", "invalid_utf8": "Not valid UTF-8", "unused": "Unused slots",
           "leading_space": "Leading space",
           "digits": "Digits", "glitch": "Glitch (GPT-2)"}
SHOW_ROWS = 2000  # rows sent to the table
FAMILY = 40  # family members offered as chips

COLUMNS = {
    "id": st.column_config.NumberColumn("id", format="%d"),
    "token": st.column_config.TextColumn("token", width="medium", help=f"{html.SPACE} is a space; bytes that are not valid "
                                         "UTF-8 alone show as <hex>, newline and tab as \\n \\t"),
    "length": st.column_config.NumberColumn("length", width="small", help="bytes"),
    "leading space": st.column_config.CheckboxColumn(f"leading {html.SPACE}", width="small", help="a space, then something else"),
    "valid UTF-8": st.column_config.CheckboxColumn("valid UTF-8", width="small"),
    "glitch": st.column_config.CheckboxColumn("glitch", width="small", help="known under-trained GPT-2 token"),
    "bytes": st.column_config.TextColumn("bytes (hex)", width="large"),
}
ROW_PX = 35  # st.dataframe row height, to size short tables


# ---------------------------------------------------------------- callbacks
def _on_row_selected(key: str) -> None:
    rows = st.session_state[key].selection.rows
    shown = st.session_state.get(_SHOWN, {}).get(key, [])
    if rows and rows[0] < len(shown):
        st.session_state[state.TOKEN_ID] = int(shown[rows[0]])
        st.session_state[PANE_KEY] = "token"


def _copy_to_token(key: str) -> None:
    if st.session_state.get(key) is not None:
        st.session_state[state.TOKEN_ID] = int(st.session_state[key])


# -------------------------------------------------------------------- panes
def _token_table(df: pd.DataFrame, ids: list[int], key: str, *, glitch: bool) -> None:
    shown = ids[:SHOW_ROWS]
    st.session_state.setdefault(_SHOWN, {})[key] = shown
    columns = [c for c in COLUMNS if glitch or c != "glitch"]
    height = 420 if len(shown) > 10 else ROW_PX * (len(shown) + 1) + 3
    st.dataframe(df.loc[shown, columns], hide_index=True, width="stretch", height=height, column_config=COLUMNS,
                 key=key, on_select=functools.partial(_on_row_selected, key), selection_mode="single-row")
    st.caption("Click a column header to sort; tick a row to open that token.")


def _search_pane(name: str, enc: engine.Encoding, df: pd.DataFrame, glitch: bool) -> None:
    c1, c2, c3 = st.columns([4, 2, 1.3])
    query = c1.text_input("Search tokens", key=QUERY_KEY, persist_state="session", placeholder="e.g.  ing   or regex  ^\\s?\\d{3}$")
    mode = c2.radio("Match", list(MODES), key=MODE_KEY, persist_state="session", horizontal=True, format_func=MODES.get)
    ignore_case = c3.toggle("Ignore case", key=ICASE_KEY, persist_state="session")
    filters = [f for f in FILTERS if glitch or f != "glitch"]
    if st.session_state.get(FILTER_KEY) not in filters:
        st.session_state[FILTER_KEY] = "all"
    which = st.segmented_control("Quick filter", filters, format_func=FILTERS.get, key=FILTER_KEY, persist_state="session", required=True)
    ids: list[int] | None = None
    if query:
        try:
            ids = encodings.vocab_search(name, enc, query, mode, ignore_case)
        except engine.RegexTimeoutError as err:
            st.error(f"⏱ Stopped: {md(err, 600)}")
            return
        except ValueError as err:
            st.error(md(err, 600))
            return
    if which != "all":
        picked = encodings.vocab_filter(name, enc, which)
        if ids is not None:
            keep = set(ids)
            picked = [i for i in picked if i in keep]
        ids = picked
    if ids is None:
        ids = df.index.tolist()
    more = f"; showing the first {SHOW_ROWS:,}" if len(ids) > SHOW_ROWS else ""
    order = "longest first" if which == "longest" else "by id"
    st.markdown(f"**{len(ids):,}** of {len(df):,} tokens ({order}{more})")
    if ids:
        _token_table(df, ids, TABLE_KEY, glitch=glitch)
    else:
        st.info("No token matches. Leading spaces count (' the' and 'the' are different tokens); "
                "try 'Ignore case' or a shorter search.")


def _family(label: str, enc: engine.Encoding, family: engine.explain.vocab.Family, key: str) -> None:
    st.markdown(f"**{label}** ({family.total:,})")
    if not family.ids:
        st.caption("none")
        return
    st.session_state[key] = None
    st.pills(label, list(family.ids), format_func=lambda t: pickers.chip_label(enc, t), key=key,
             on_change=_copy_to_token, args=(key,), label_visibility="collapsed", wrap=True, width="stretch")
    if family.total > len(family.ids):
        st.caption(f"The first {len(family.ids)} of {family.total:,}.")


def _token_pane(name: str, enc: engine.Encoding, glitch: dict[int, engine.explain.vocab.GlitchToken]) -> None:
    current = st.session_state.get(state.TOKEN_ID)
    if current is None:
        try:
            current = enc.encode_ordinary("hello")[0]
        except ValueError:  # a vocabulary without "hello"'s letters and no unknown token: start at id 0
            current = 0
        st.session_state[state.TOKEN_ID] = current
    if 0 <= current < enc.n_vocab:
        st.session_state[ID_KEY] = current
    st.number_input("Look up a token by id", min_value=0, max_value=enc.n_vocab - 1, step=1, key=ID_KEY,
                    on_change=_copy_to_token, args=(ID_KEY,))
    problem = pickers.token_problem(enc, current)
    if problem and not enc.is_special_token(current):
        st.warning(problem)
        return
    info = engine.explain.vocab.token_info(enc, current)
    token_text(info.bytes)
    facts = {
        "id": str(info.id),
        "bytes (hex)": info.bytes.hex(" "),
        "length": f"{info.length} bytes, {len(info.text)} characters",
        "text (Python)": repr(info.text),
        "leading space": "yes" if info.leading_space else "no",
        "valid UTF-8 alone": "yes" if info.valid_utf8 else "no: a piece of a character; decoding alone gives �",
    }
    stored = getattr(enc, "stored_piece", None)
    if stored is not None:
        facts["stored as"] = stored(current)  # SentencePiece's ▁the / <0x0A>, tokenizer.json's Ġthe
    note = engine.explain.families.token_note(enc, current)
    if note is not None:
        facts["note"] = note.text
    if enc.is_special_token(current):
        facts["special"] = "yes: added whole by encode() when allowed; never built by merges"
    if not enc.is_special_token(current):
        kind = _reachability_kind(name, enc, current)
        if kind is not None:
            facts["reached by text"] = KIND_FACT[kind]
    if current in glitch:
        facts["glitch token"] = f"yes ({glitch[current].note}): see the Glitch tokens pane for sources"
    st.dataframe(pd.DataFrame({"fact": list(facts), "value": list(facts.values())}), hide_index=True, width="stretch")
    if enc.is_special_token(current):
        return
    vocab_health.token_use_line(name, enc, current)
    if st.button("Its merge tree", key=state.VOCAB_TO_TREE, icon=":material/account_tree:"):
        pickers.go("tree")
    st.subheader("Family")
    c1, c2 = st.columns(2)
    with c1:
        _family("Tokens that contain it", enc, engine.explain.vocab.containing(enc, current, limit=FAMILY), UP_KEY)
    with c2:
        _family("Tokens inside it", enc, engine.explain.vocab.contained(enc, current, limit=FAMILY), DOWN_KEY)
    st.caption("Shortest containers first; longest parts first. Click one to move there.")


def _lengths_pane(name: str, enc: engine.Encoding) -> None:
    hist = pd.DataFrame(encodings.length_histogram(name, enc), columns=["length", "tokens"])
    log = st.toggle("Log scale (shows the few very long tokens)", key=state.VOCAB_LOG, persist_state="session")
    chart = alt.Chart(hist).mark_bar().encode(
        x=alt.X("length:Q", title="token length (bytes)", bin=False),
        y=alt.Y("tokens:Q", title="tokens", scale=alt.Scale(type="symlog") if log else alt.Undefined),
        tooltip=["length", "tokens"],
    ).properties(height=320)
    st.altair_chart(charts.sized(chart), width="stretch")
    mean = (hist["length"] * hist["tokens"]).sum() / hist["tokens"].sum()
    st.caption(f"{md(name)}: {hist['tokens'].sum():,} ordinary tokens, mean {mean:.1f} bytes, longest "
               f"{hist['length'].max()} bytes (use the 'Longest' filter in Search to see them).")


def _glitch_pane(name: str, enc: engine.Encoding, df: pd.DataFrame, glitch: dict[int, engine.explain.vocab.GlitchToken]) -> None:
    if not glitch:
        st.info("The glitch-token list is for GPT-2's vocabulary: pick gpt2 or r50k_base above.")
        return
    st.markdown("Tokens that were frequent in the text the tokenizer was built from but rare in the "
                "model's training data, so GPT-2/GPT-3 barely learned them and behaved oddly when asked "
                "to repeat them. Select a row to inspect the token.")
    ids = sorted(glitch)
    table = df.loc[ids, ["id", "token", "length"]].assign(origin=[glitch[i].note for i in ids])
    st.session_state.setdefault(_SHOWN, {})[GLITCH_TABLE_KEY] = ids
    st.dataframe(table, hide_index=True, width="stretch", height=360, key=GLITCH_TABLE_KEY,
                 on_select=functools.partial(_on_row_selected, GLITCH_TABLE_KEY), selection_mode="single-row")
    st.markdown("**Sources**")
    st.markdown("\n".join(f"- {s['authors']} ({s['year']}), *{s['title']}*, {s['venue']}."
                          for s in engine.explain.vocab.glitch_sources()))


def _reachability_kind(name: str, enc: engine.Encoding, token_id: int) -> str | None:
    """The token's kind from a built-in's stored sweep; None for any other encoding: one token's fact never
    starts a whole vocabulary's sweep (the Scaffold & unreachable pane does, in a job)."""
    if name in st.session_state.get(state.CUSTOM, {}) or name not in engine.explain.unreachable.stored_names():
        return None
    try:
        found = encodings.reachability(name, enc)
    except (ValueError, jobs.JobError, jobs.ServerBusyError):
        return None
    return found.kind(token_id)


def _health_pane(name: str, enc: engine.Encoding, df: pd.DataFrame, glitch: bool) -> None:
    vocab_health.builtin_charts()
    st.subheader(f"In {md(name)}")
    own = name in st.session_state.get(state.CUSTOM, {})
    st.session_state.setdefault(state.SCAFFOLD_CORPUS, "builtin")
    st.segmented_control("Count scaffold tokens over", list(vocab_health.CORPORA), format_func=vocab_health.CORPORA.get,
                         key=state.SCAFFOLD_CORPUS, persist_state="session", required=True)
    text = vocab_health.corpus_text()
    if st.session_state.get(state.SCAFFOLD_CORPUS) == "text" and text is None:
        st.caption("The sidebar's text is empty: counting over the built-in corpus.")
    counts, reason = vocab_health.counts_or_reason(name, enc, text)
    try:
        found = encodings.reachability(name, enc)
    except engine.explain.unreachable.StaleReachabilityError as err:
        st.warning(md(err, 400))
        found = None
    except (jobs.JobError, jobs.ServerBusyError, ValueError) as err:
        st.warning(f"The sweep of this vocabulary did not finish: {md(err, 400)}")
        found = None
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("scaffold", "—" if counts is None else f"{len(counts.scaffold):,}",
              help="Never emitted over the corpus, but inside an emitted token's merge tree.")
    c2.metric("% of reached", "—" if counts is None else f"{100 * counts.share_of_reached:.1f}%",
              help="Scaffold tokens as a share of the distinct tokens the corpus emitted or built inside another.")
    c3.metric("unreachable", "—" if found is None else f"{len(found.unreachable):,}")
    c4.metric("partial UTF-8", "—" if found is None else f"{len(found.partial_utf8):,}")
    if counts is None:
        st.info(reason)
    else:
        st.caption(f"Over {vocab_health.corpus_label(text)}: {counts.tokens:,} tokens emitted, {counts.reached:,} "
                   f"distinct tokens reached, {len(counts.scaffold):,} of them scaffolding "
                   f"({100 * counts.share:.2f}% of the {counts.vocab_size:,}-token vocabulary).")
    if found is not None:
        never = [t for t, i in sorted(enc.special_tokens.items(), key=lambda kv: kv[1]) if i in found.special_never]
        if never:
            shown = ", ".join(md(t, 60) for t in never[:6]) + (f" and {len(never) - 6:,} more" if len(never) > 6 else "")
            st.caption(f"{len(never):,} of {found.specials:,} special tokens are never produced by ordinary text: {shown}.")
        if own:
            st.caption("Swept now (your own tokenizer): every token decoded and encoded again.")
    lists = {"scaffold": list(counts.scaffold) if counts is not None else [],
             **{k: list(getattr(found, k)) if found is not None else [] for k in list(HEALTH_LISTS)[1:]}}
    offered = [k for k in HEALTH_LISTS if k != "scaffold" or counts is not None]  # WordPiece: no scaffold list
    if st.session_state.get(state.VOCAB_HEALTH_LIST) not in offered:
        st.session_state[state.VOCAB_HEALTH_LIST] = offered[0]
    which = st.segmented_control("List", offered, key=state.VOCAB_HEALTH_LIST, persist_state="session",
                                 required=True, format_func=lambda k: f"{HEALTH_LISTS[k]} ({len(lists[k]):,})")
    ids = [i for i in lists[which] if i in df.index]
    if ids:
        _token_table(df, ids, state.VOCAB_HEALTH_TABLE, glitch=glitch)
    else:
        st.caption("No token of this kind.")


def render() -> None:
    header("Vocabulary", "every token of an encoding: search it, filter it, and open any token's tree.")
    name, enc = pickers.encoding_select(ENC_KEY)
    df = encodings.vocab_table(name, enc)
    glitch = engine.explain.vocab.glitch_tokens(enc)
    family = encodings.family_note(name, enc)
    if family.family in ("sentencepiece", "tokenizer.json"):
        st.caption(f"{family.title}: tokens are shown as the bytes they stand for ({html.SPACE} for SentencePiece's ▁ and "
                   "tokenizer.json's Ġ); open one token to see how the file spells it."
                   + (" Byte-fallback pieces <0x00>…<0xFF> are not listed: each is one byte." if
                      family.family == "sentencepiece" else ""))
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("ordinary tokens", f"{len(df):,}")
    c2.metric("special tokens", len(enc.special_tokens))
    c3.metric("longest", f"{df['length'].max()} bytes")
    c4.metric("not valid UTF-8 alone", f"{int((~df['valid UTF-8']).sum()):,}")
    st.session_state.setdefault(PANE_KEY, "search")  # no default=: callbacks and other views set this key
    pane = st.segmented_control("View", list(PANES), format_func=PANES.get, key=PANE_KEY, persist_state="session", required=True,
                                label_visibility="collapsed")
    if pane == "token":
        _token_pane(name, enc, glitch)
    elif pane == "lengths":
        _lengths_pane(name, enc)
    elif pane == "glitch":
        _glitch_pane(name, enc, df, glitch)
    elif pane == "scaffold":
        _health_pane(name, enc, df, bool(glitch))
    else:
        _search_pane(name, enc, df, bool(glitch))
