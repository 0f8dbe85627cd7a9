"""Controls shared by every view: the encodings (a picker grouped by maker, searchable by model), the
special-token policy, whitespace markers.

The chosen encodings are `state.ENCODINGS`, the value of the "Encodings" multiselect; its labels name
the models that use each encoding, so typing "gpt-4o" in it finds o200k_base.  Below it, "Browse by maker or model" lists every built-in vocabulary
once under its maker, each with the models that use it (`engine.sources.catalog.catalog`), and the session's own
tokenizers under "Yours" (drawn only while its toggle is on); its search box finds an encoding by model name (``gpt-4o-mini``,
``meta-llama/Llama-3.1-8B``) through `engine.search_encodings`.  Its checkboxes only flip names in and
out of `state.ENCODINGS` (callbacks), so the two controls always agree.
"""
from __future__ import annotations

import streamlit as st

import engine
from engine.sources.catalog import entry, group_by_maker, not_installed
from playground import state
from playground.components import glossary_links, history
from playground.render import css, html
from playground.render.markdown import md

SEARCH_KEY = state.PICKER_SEARCH
OPEN_KEY = state.PICKER_OPEN
PICK_PREFIX = state.PICK_PREFIX  # + html.slug(name): one checkbox per encoding


def pick_key(name: str) -> str:
    return PICK_PREFIX + html.slug(name)


def option_label(name: str) -> str:
    """A checkbox label: the name in bold, its aliases, and who uses it (or where it came from)."""
    found = entry(name)
    if found is not None:
        names = " = ".join(f"**{n}**" for n in (found.name, *found.aliases))
        return f"{names} — {found.models}"
    enc = st.session_state.get(state.CUSTOM, {}).get(name)
    origin = "trained here" if getattr(enc, "training", None) is not None else "uploaded"
    return f"**{md(name)}** — {origin}"


def box_label(name: str) -> str:
    """An option of the Encodings box: the name and the models that use it, so typing a model name
    ("gpt-4o") finds its encoding (the box filters on these labels)."""
    found = entry(name)
    if found is not None:
        return " = ".join((found.name, *found.aliases)) + f" · {found.models}"
    enc = st.session_state.get(state.CUSTOM, {}).get(name)
    return f"{name} · {'trained here' if getattr(enc, 'training', None) is not None else 'uploaded'}"


def _toggle(name: str) -> None:
    chosen = [n for n in st.session_state.get(state.ENCODINGS, []) if n != name]
    if st.session_state.get(pick_key(name)):
        chosen.append(name)
    st.session_state[state.ENCODINGS] = chosen[: state.MAX_SELECTED]


def _browse(names: list[str]) -> None:
    """Every encoding under its maker, with its models; the search narrows the list."""
    query = st.text_input("Find a model or maker", key=SEARCH_KEY, placeholder="gpt-4o-mini, Llama-3.1-8B, mistral…",
                          help="A model name finds the encoding it uses (engine.encoding_name_for_model); "
                               "other words match names, makers and models.")
    chosen = list(st.session_state.get(state.ENCODINGS) or [])
    shown, why = names, {}
    if query.strip():
        custom = [n for n in names if entry(n) is None]
        result = engine.search_encodings(query, own=custom)
        shown = [m.name for m in result.matches]
        why = {m.name: m.why for m in result.matches if m.why.endswith("uses it")}
        if result.note:
            st.caption(md(result.note))
    full = len(chosen) >= state.MAX_SELECTED
    for maker, members in group_by_maker(shown):
        st.markdown(f"**{maker}**")
        for name in members:
            key = pick_key(name)
            st.session_state[key] = name in chosen  # before the widget: the selection wins
            st.checkbox(option_label(name), key=key, on_change=_toggle, args=(name,),
                        disabled=full and name not in chosen,
                        help=f"At most {state.MAX_SELECTED} at once." if full and name not in chosen else None)
            if name in why:
                st.caption(md(f"↳ {why[name]}"))
            found = entry(name)
            if found is not None and found.note:
                st.caption(md(found.note))
    if not query.strip():
        for how in not_installed().values():  # a vocabulary its terms keep out of the repository
            st.caption(md(how))


def _presentation() -> None:
    """The presentation-mode toggle, its styles when on, and the glossary links of every help (teaching pages)."""
    st.toggle("Presentation mode", key=state.PRESENT, persist_state="session", help="Large type, high contrast and wider token boxes, for a "
              "projector. The share link keeps it on. Every help like this one links its words to the glossary.")
    st.markdown(css.style_block("glossary", *(("present",) if st.session_state.get(state.PRESENT) else ())),
                unsafe_allow_html=True)
    glossary_links.mount()


def render() -> None:
    # Every value widget here keeps its value for the session (persist_state): a button that switches page
    # (st.switch_page from a page's main run) brings no widget values from the browser, and Streamlit then
    # clears every widget's state on the page change -- presentation mode, whitespace markers, the special-token
    # policy and the chosen encodings fell back to their defaults.
    with st.sidebar:
        names = state.known_encodings()
        labels = {name: box_label(name) for name in names}  # built here: the widget may format a value later
        st.multiselect(
            "Encodings",
            names,
            key=state.ENCODINGS,
            persist_state="session",
            max_selections=state.MAX_SELECTED,
            format_func=lambda name: labels.get(name, name),
            help=f"Up to {state.MAX_SELECTED}. Compare shows them side by side; Tokenize inspects one of them. "
                 "Type a model name (gpt-4o, Llama 3.1) or an encoding's name to find it; browse below for "
                 "every maker and the exact model ids.",
        )
        # A toggle, not an expander: the list is built (and in the page) only while it is open.
        if st.toggle("Browse by maker or model", key=OPEN_KEY, help="Every tokenizer under its maker, with the "
                     "models that use it; search by model name."):
            with st.container(border=True):
                _browse(names)
        st.radio(
            "Special tokens such as <|endoftext|>",
            list(state.SPECIAL_POLICIES),
            format_func=state.SPECIAL_POLICIES.get,
            key=state.SPECIAL,
            persist_state="session",
            help="tiktoken's encode() refuses special-token text unless you allow it.",
        )
        st.toggle("Show whitespace", key=state.SHOW_WS, persist_state="session", help=f"Draw {html.SPACE} for a space, {html.TAB} for a tab, {html.NEWLINE} for a newline.")
        _presentation()
        history.mount()  # Back: one press per view (playground/components/history.py)
