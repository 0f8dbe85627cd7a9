"""Pickers and moves shared by several views: the chosen token and encoding, and going to a view.

The chosen token is ``state.TOKEN_ID`` of encoding ``state.TOKEN_ENC``, shared by
Merge tree, BPE steps and Vocabulary (and set from Tokenize and Compare).  Views
never import each other: a view that sends the user elsewhere calls `go`,
`open_steps` or `open_vocab_token` here, which set the target view's keys
(declared here, read by that view) before switching page.
"""
from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitAPIException

import engine
from engine.sources.catalog import entry, group_by_maker
from playground import state
from playground.cache import encodings, render_cache
from playground.components import token_links
from playground.render import html
from playground.render.markdown import md
from playground.render.tokens import isolate_rtl

# keys another view sets before switching to these views (read by steps_view / vocab_view)
STEPS_SOURCE = state.STEPS_SOURCE
STEPS_TYPED = state.STEPS_TYPED
STEPS_STEP = state.STEPS_K
VOCAB_PANE = state.VOCAB_PANE
_PENDING = state.TOKEN_LINKS_OPEN  # the page to switch to after a pinned token's link was clicked


def go(page: str) -> None:
    """Switch to the view called `page` (a key of pages._VIEWS); outside the app's navigation
    (the AppTest harness) say where to go instead."""
    from playground.pages import PAGES  # pages imports views lazily; this keeps views leaves

    try:
        st.switch_page(PAGES[page])
    except StreamlitAPIException:
        st.info(f"Open *{page}* in the sidebar to go on.")


def open_steps(piece: str) -> None:
    """Make BPE steps show `piece` from its first step (call before `go("steps")`)."""
    st.session_state[STEPS_SOURCE] = "typed"
    st.session_state[STEPS_TYPED] = piece
    st.session_state[STEPS_STEP] = 0


def open_steps_piece(piece: str, step: int = 0) -> None:
    """Make BPE steps show `piece` of the current text at `step` merges done (call before `go("steps")`)."""
    st.session_state[STEPS_SOURCE] = "text"
    st.session_state[state.STEPS_PIECE] = piece
    st.session_state[STEPS_STEP] = step


def open_vocab_token() -> None:
    """Make Vocabulary open on the chosen token (call before `go("vocab")`)."""
    st.session_state[VOCAB_PANE] = "token"


# ------------------------------------------------------------ the chosen token
def set_token(enc_name: str, token_id: int | None) -> None:
    st.session_state[state.TOKEN_ENC] = enc_name
    st.session_state[state.TOKEN_ID] = token_id


def _open_linked(page: str, enc_name: str, token_id: int) -> None:
    set_token(enc_name, token_id)
    if page == "vocab":
        open_vocab_token()
    st.session_state[_PENDING] = page


def _opened() -> None:
    token_links.opened(st.session_state, _open_linked)


def _choose(enc_name: str, token_id: int) -> None:
    if enc_name in state.known_encodings():
        set_token(enc_name, token_id)


def _pinned() -> None:
    token_links.pinned(st.session_state, _choose)


def mount_token_links() -> None:
    """The drawn tokens' hover/pin listeners on this page (components/token_links), and the page a
    pinned token's link asked for last run: the link picks its token, then `go` follows it."""
    page = st.session_state.pop(_PENDING, None)
    if page:
        go(page)
    token_links.mount(on_open=_opened, on_pin=_pinned)


def _on_encoding_change(key: str) -> None:
    """Switch the shared encoding; keep the same token (by its bytes) when the new encoding has it."""
    old_name, new_name = st.session_state.get(state.TOKEN_ENC), st.session_state[key]
    token_id = st.session_state.get(state.TOKEN_ID)
    new_id = None
    if token_id is not None and old_name:
        try:
            data = encodings.resolve(old_name).decode_single_token_bytes(token_id)
            new_id = encodings.resolve(new_name).mergeable_ranks.get(data)
        except (KeyError, engine.UnknownTokenError):
            new_id = None
    set_token(new_name, new_id if new_id is not None else token_id)


def encoding_label(name: str, maker: str) -> str:
    """An option label: the name, its maker and the models that use it ("llama3 — Meta · Llama 3, 3.1…")."""
    found = entry(name)
    if found is not None:
        aliases = "".join(f" = {a}" for a in found.aliases)
        return f"{name}{aliases} — {found.maker} · {found.models}"
    return f"{name} — {maker or 'yours'}"


def encoding_select(key: str, label: str = "Encoding") -> tuple[str, engine.Encoding]:
    """The shared "chosen encoding" picker (built-ins + this session's own tokenizers)."""
    groups = group_by_maker(state.known_encodings())
    options = [name for _, names in groups for name in names]  # grouped by maker, as in the sidebar
    makers = {name: maker for maker, names in groups for name in names}
    if st.session_state.get(state.TOKEN_ENC) not in options:
        st.session_state[state.TOKEN_ENC] = "cl100k_base"
    st.session_state[key] = st.session_state[state.TOKEN_ENC]  # before the widget: the shared key wins
    name = st.selectbox(label, options, key=key, on_change=_on_encoding_change, args=(key,),
                        format_func=lambda n: encoding_label(n, makers.get(n, "")),
                        help="Shared by Merge tree, BPE steps and Vocabulary, grouped by maker; type a model "
                             "name to filter. Trained and uploaded tokenizers appear here too.")
    return name, encodings.resolve(name)


def text_tokens(name: str, enc: engine.Encoding) -> tuple[tuple[engine.Token, ...], str | None]:
    """Tokens of the start of the current text, the part Tokenize draws (`render_cache.drawn`: the whole
    text up to about 7,000 characters), shared with Tokenize's cache.  A picker offers 80 of them: after a
    2 MB paste, tokenizing the first 100,000 characters for it took most of a second of the Merge tree
    page.  Special-token text is encoded as plain text when the policy refuses it, so nothing is refused.
    With no tokens, why (markdown): a tokenizer without an unknown token cannot spell a character of the
    text, as its own library cannot (the error names the character)."""
    text = st.session_state.get(state.TEXT, "")
    policy = st.session_state.get(state.SPECIAL, "text")
    try:
        return render_cache.drawn(name, enc, text, policy).tokens, None
    except ValueError:
        pass
    try:
        return render_cache.drawn(name, enc, text, "text").tokens, None
    except ValueError as error:
        return (), f"**{md(name)} could not split the current text:** {md(error, 600)}"


def token_label(enc: engine.Encoding, token_id: int) -> str:
    """A token as a chip or option label: its bytes readably (space as ␣) and its id."""
    try:
        data = enc.decode_single_token_bytes(token_id)
    except engine.UnknownTokenError:
        return f"? · {token_id}"
    return f"{isolate_rtl(engine.explain.vocab.readable(data, space=html.SPACE))} · {token_id}"


def chip_label(enc: engine.Encoding, token_id: int) -> str:
    """`token_label` for pills, whose labels Streamlit renders as markdown (a token may be ``**``,
    ``[x](…)`` or, in an uploaded vocabulary, a web address): escaped by `md`."""
    return md(token_label(enc, token_id))


def token_problem(enc: engine.Encoding, token_id: int) -> str | None:
    """Why `token_id` has no tree, or None; markdown (the token and the name, from a file, escaped)."""
    if enc.is_special_token(token_id):
        text = enc.decode_single_token_bytes(token_id).decode("utf-8", "replace")
        return (f"Id {token_id} is the special token “{md(text)}”: encode() adds it whole, it is never built "
                "by merges, so it has no tree. Pick an ordinary token.")
    if enc.unknown_ids([token_id]):
        return (f"Id {token_id} is not a token of {md(enc.name)}: ordinary ids are 0 … {len(enc.mergeable_ranks) - 1}"
                f"{', special ids ' + ', '.join(map(str, sorted(enc.special_tokens.values()))) if enc.special_tokens else ''}"
                "; the ids between are unused. Pick another id.")
    return None
