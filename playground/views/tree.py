"""Merge tree: how one token was built, merge by merge, down to its single bytes.

A rank file stores only ``token bytes -> rank``; the engine recovers which two
tokens were merged to make each one (`Encoding.merge_tree`).  The tree reads
bottom-up: the leaves are the token's bytes (with *their* ids, which for
cl100k/o200k are not the byte values), every box joined its two children, and
its id is its rank -- lower ids were learned earlier.

The chosen token and encoding are `state.TOKEN_ID` / `state.TOKEN_ENC`, shared
with the Tokenize, BPE steps and Vocabulary views and the share link
(playground/widgets/pickers.py).  One token's tree is recovered alone, by replaying
BPE on its own bytes (`engine.tokenizer.merges.merge_tree_of`): milliseconds even for o200k,
where recovering all 200,000 merges took seconds.  Trees with many leaves are
drawn left to right, one leaf per line, so 32-byte tokens stay readable.
"""
from __future__ import annotations

import functools
import itertools
from typing import Callable

import streamlit as st

import engine
from engine.explain import families as explain
from engine.explain.algorithms import algorithm_of
from playground import state
from playground.cache import encodings, render_cache
from playground.render import css, html
from playground.render.markdown import md
from playground.render.pipeline import token_card
from playground.render.tree import MIN_SCALE, TreeLayout, layout_merge_tree, merge_tree_figure, merge_tree_svg
from playground.serving import script_gate
from playground.widgets import pickers, vocab_health
from playground.widgets.page import header, styles, token_text
from playground.widgets.pickers import chip_label, encoding_select, text_tokens, token_label, token_problem

ENC_KEY = state.TREE_ENC
MODE_KEY = state.TREE_PICK_MODE
TEXT_KEY = state.TREE_TEXT_TOKEN
ID_KEY = state.TREE_ID
FIND_KEY = state.TREE_FIND
FOUND_KEY = state.TREE_FOUND
DEPTH_KEY = state.TREE_DEPTH
LAYOUT_KEY = state.TREE_LEFT_RIGHT
OTHER_KEY = state.TREE_OTHER_ENC
_LAYOUT_FOR = state.TREE_LAYOUT_FOR  # the token whose default layout LAYOUT_KEY holds

PICK_MODES = {"text": "From the text", "id": "By id", "search": "By search"}
MAX_TEXT_TOKENS = 80  # distinct tokens of the text offered as chips
MAX_FOUND = 60  # search results offered in the picker
FOLD_ABOVE = 63  # trees with more boxes (over 32 bytes) fold their deepest levels by default ...
MAX_DRAWN = 31  # ... down to at most this many boxes (16 across)
NATURAL_SIZE = 12  # bottom-row boxes up to which a tree is drawn at its natural size
LEFT_RIGHT_ABOVE = 16  # trees with more leaves drawn are laid out left to right by default ...
COLUMN_PX = 820  # ... and trees wider top-down than this column (1280-px screen, sidebar open) holds at MIN_SCALE
# In presentation mode a tree is drawn at its natural size, labels at css.PRESENT_TEXT_PX: about a hundred
# pixels a box, so a 1280-pixel projector's column holds six across.  Bigger trees fold their deepest levels
# until the bottom row fits (the slider unfolds them; a wider drawing scrolls sideways).
PRESENT_ACROSS = 6


# ---------------------------------------------------------------- pickers
def _default_token(name: str, enc: engine.Encoding) -> int:
    """The longest token of the (start of the) current text, or 'hello'."""
    tokens = [t for t in text_tokens(name, enc)[0] if not t.special]
    if tokens:
        return max(tokens, key=lambda t: (len(t.bytes), -t.byte_start)).id
    try:
        return enc.encode_ordinary("hello")[0]
    except ValueError:  # a vocabulary without "hello"'s letters and no unknown token: start at id 0
        return 0


def _copy_to_token(key: str) -> None:
    value = st.session_state.get(key)
    if value is not None:
        st.session_state[state.TOKEN_ID] = int(value)


def _on_find() -> None:
    """Typing a whole token picks it at once (leading spaces count: ' the' is not 'the')."""
    query = st.session_state.get(FIND_KEY, "")
    enc = encodings.resolve(st.session_state[state.TOKEN_ENC])
    tid = enc.mergeable_ranks.get(query.encode("utf-8")) if query else None
    if tid is not None:
        st.session_state[state.TOKEN_ID] = tid


def _pick_token(name: str, enc: engine.Encoding) -> None:
    """One picker at a time (text chips, id, or search); each writes state.TOKEN_ID."""
    st.session_state.setdefault(MODE_KEY, "text")
    mode = st.segmented_control("Pick a token", list(PICK_MODES), format_func=PICK_MODES.get,
                                key=MODE_KEY, persist_state="session", required=True)
    current = st.session_state.get(state.TOKEN_ID)
    if mode == "id":
        if current is not None and 0 <= current < enc.n_vocab:
            st.session_state[ID_KEY] = current
        st.number_input("Token id", min_value=0, max_value=enc.n_vocab - 1, step=1, key=ID_KEY,
                        on_change=_copy_to_token, args=(ID_KEY,),
                        help=f"0 … {enc.n_vocab - 1}; ids of special tokens and unused ids are explained, not drawn.")
    elif mode == "search":
        st.text_input("Find a token", key=FIND_KEY, persist_state="session", on_change=_on_find,
                      placeholder="part of a token, e.g.  ing  or  Magikarp (leading spaces count)")
        query = st.session_state.get(FIND_KEY, "")
        if query:
            found = encodings.vocab_search(name, enc, query, "substring", False)
            exact = enc.mergeable_ranks.get(query.encode("utf-8"))
            lengths = {tid: len(enc.decode_single_token_bytes(tid)) for tid in found[:5000]}
            ranked = sorted(lengths, key=lambda t: (t != exact, lengths[t], t))[:MAX_FOUND]
            if not ranked:
                st.warning(f"No token of {md(name)} contains {md(repr(query))}. Try a shorter part, or check leading spaces.")
                return
            st.session_state[FOUND_KEY] = current if current in ranked else None
            st.selectbox(f"{len(found):,} tokens contain it; the {len(ranked)} shortest:", ranked,
                         format_func=lambda t: token_label(enc, t), key=FOUND_KEY, index=None,
                         placeholder="Choose one", on_change=_copy_to_token, args=(FOUND_KEY,))
    else:
        seen: dict[int, None] = {}
        tokens, problem = text_tokens(name, enc)
        for tok in tokens:
            if not tok.special:
                seen.setdefault(tok.id)
        ids = list(seen)[:MAX_TEXT_TOKENS]
        if problem:
            st.warning(problem.rstrip(".") + ". Pick a token by id or by search.")
            return
        if not ids:
            st.info("The text is empty: type one on the Tokenize page, or pick a token by id or by search.")
            return
        st.session_state[TEXT_KEY] = current if current in ids else None
        st.pills("Tokens of the current text", ids, format_func=lambda t: chip_label(enc, t),
                 key=TEXT_KEY, on_change=_copy_to_token, args=(TEXT_KEY,))
        if len(seen) > MAX_TEXT_TOKENS:
            st.caption(f"The first {MAX_TEXT_TOKENS} distinct tokens of the text; pick others by id or search.")


# ----------------------------------------------------------------- drawing
def _boxes_by_level(tree: engine.MergeNode) -> list[int]:
    """Boxes drawn when subtrees below `levels` merges are folded, for every `levels` from 0 to the tree's depth:
    the nodes at most that far below the root (one walk, no recursion: a tree may be thousands of merges deep)."""
    per_level = [0] * (tree.depth + 1)
    stack = [(tree, 0)]
    while stack:
        node, level = stack.pop()
        per_level[level] += 1
        if not node.is_leaf:
            stack += ((node.left, level + 1), (node.right, level + 1))
    return list(itertools.accumulate(per_level))


def _drawn(tree: engine.MergeNode, levels: int) -> int:
    """Boxes drawn when subtrees below `levels` merges are folded."""
    return _boxes_by_level(tree)[min(levels, tree.depth)]


def default_levels(tree: engine.MergeNode, *, present: bool = False) -> int:
    """Merge levels drawn at first: all of them for trees of up to FOLD_ABOVE boxes (in presentation mode, as many
    as keep the bottom row within PRESENT_ACROSS boxes)."""
    boxes = _boxes_by_level(tree)
    fold_above, max_drawn = (2 * PRESENT_ACROSS - 1,) * 2 if present else (FOLD_ABOVE, MAX_DRAWN)
    if boxes[-1] <= fold_above:
        return tree.depth
    return max((d for d in range(1, tree.depth + 1) if boxes[d] <= max_drawn), default=1)


def drawn_boxes(tree: engine.MergeNode, *, present: bool = False) -> int:
    """Boxes in the first drawing of `tree` (for tests)."""
    return _drawn(tree, default_levels(tree, present=present))


def _left_right_at_first(tree: engine.MergeNode, max_depth: int | None, present: bool,
                         top_down: Callable[[int | None], TreeLayout]) -> bool:
    """Whether a tree is first drawn left to right: more boxes in its bottom row than a screen holds across, or
    (off the projector) so wide top-down (`top_down(max_depth)`, the layout drawn if not) that a desktop's column
    would shrink it below MIN_SCALE and scroll."""
    across = PRESENT_ACROSS if present else LEFT_RIGHT_ABOVE
    if (_drawn(tree, max_depth if max_depth is not None else tree.depth) + 1) // 2 > across:
        return True
    return not present and top_down(max_depth).width * MIN_SCALE > COLUMN_PX


def _draw_tree(name: str, enc: engine.Encoding, token_id: int, *, key_prefix: str) -> engine.MergeNode:
    tree = render_cache.merge_tree(name, enc, token_id)
    present = bool(st.session_state.get(state.PRESENT))
    levels = default_levels(tree, present=present)
    max_depth = None if levels >= tree.depth else levels
    # the top-down layout at page size, laid out once a run: the left-to-right decision measures it, and it is
    # drawn when that decision (or the reader) keeps the tree top-down
    top_down = functools.cache(lambda depth: layout_merge_tree(tree, max_depth=depth))
    if key_prefix == "main":
        if st.session_state.get(_LAYOUT_FOR) != (name, token_id, present) or DEPTH_KEY not in st.session_state:
            # a new token (or presentation mode switched): its own default folding and layout
            st.session_state[_LAYOUT_FOR] = (name, token_id, present)
            st.session_state[DEPTH_KEY] = levels
            st.session_state[LAYOUT_KEY] = _left_right_at_first(tree, max_depth, present, top_down)
        c1, c2 = st.columns([3, 2])
        max_depth = None
        if levels < tree.depth:
            max_depth = c1.slider("Levels drawn", 1, tree.depth, key=DEPTH_KEY,
                                  help="Deeper subtrees fold into one dashed box that says how many merges it hides.")
            if max_depth >= tree.depth:
                max_depth = None
        left_right = c2.toggle("Draw left to right", key=LAYOUT_KEY, persist_state="session",
                               help="Long tokens have many leaves; left to right gives each leaf its own line.")
    else:
        if not present:  # the other encodings' trees are drawn whole
            max_depth = None
        left_right = _left_right_at_first(tree, max_depth, present, top_down)
    if present:  # natural size, projector type: a wide tree scrolls sideways rather than shrink its type
        layout = layout_merge_tree(tree, max_depth=max_depth, left_right=left_right, font_px=css.PRESENT_TEXT_PX)
        fit = "natural"
    else:
        layout = layout_merge_tree(tree, max_depth=max_depth, left_right=True) if left_right else top_down(max_depth)
        # small trees at their natural size (stretched, five boxes would fill the page); wide ones fit the width
        fit = "stretch" if (len(layout.boxes) + 1) // 2 > NATURAL_SIZE and not left_right else "content"
    label = f"Merge tree of {token_label(enc, token_id)} in {name}: {html.plural(tree.n_merges, 'merge')}"
    st.markdown(merge_tree_figure(layout, fit=fit, label=label), unsafe_allow_html=True)
    st.download_button("Download SVG", lambda: merge_tree_svg(layout, fit="natural", label=label),
                       file_name=f"merge-tree-{html.slug(name)}-{token_id}.svg", mime="image/svg+xml",
                       key=f"{state.TREE_SVG}_{key_prefix}", icon=":material/download:", on_click="ignore",
                       help="The tree as drawn (levels folded as here), at its natural size, for slides or notes.")
    return tree


def _permuted_note(tree: engine.MergeNode, name: str, family: str) -> None:
    if family != "tiktoken":
        return
    moved = [(leaf.bytes[0], leaf.id) for leaf in tree.leaves() if leaf.bytes[0] != leaf.id]
    if moved:
        b, i = moved[0]
        st.caption(f"Leaf ids are not byte values in {md(name)}: byte 0x{b:02x} ({b}) has id {i}. "
                   "Single bytes were ranked like any other token (GPT-2 puts printable bytes first; "
                   "cl100k/o200k rank them by frequency), so always look a byte's id up.")


@st.fragment
def _other_encodings(name: str, data: bytes) -> None:
    """The same bytes elsewhere; picking an encoding to draw redraws only this part."""
    st.subheader("The same bytes in other encodings")
    rows, drawable = [], []
    for other in _other_names(name):
        enc2 = encodings.resolve(other)
        tid = enc2.mergeable_ranks.get(data)
        if tid is None:
            try:
                n = len(enc2.encode_ordinary(data.decode("utf-8"))) if engine.text.is_valid_utf8(data) else None
            except ValueError:  # a tokenizer without an unknown token that cannot spell these characters
                n = None
            rows.append((other, "—", "no", f"{n:,}" if n is not None else "—"))
        else:
            rows.append((other, str(tid), "yes", "1"))
            drawable.append(other)
    # A markdown table, not st.dataframe: a handful of rows, and the first Merge tree of a fresh server
    # would otherwise wait for pandas to load (half a second of CPU)
    st.markdown("| encoding | id | one token? | tokens |\n|:--|--:|:--|--:|\n"
                + "\n".join("| " + " | ".join(md(cell) for cell in row) + " |" for row in rows))
    if not drawable:
        st.caption("No other built-in encoding has these bytes as one token.")
        return
    st.caption("The encodings chosen in the sidebar, and gpt2, cl100k_base and o200k_base.")
    if st.session_state.get(OTHER_KEY) not in drawable:
        st.session_state[OTHER_KEY] = None
    other = st.segmented_control("Draw its tree in", drawable, key=OTHER_KEY, persist_state="session")
    if other:
        enc2 = encodings.resolve(other)
        tid = enc2.mergeable_ranks[data]
        tree2 = _draw_tree(other, enc2, tid, key_prefix="other")
        c1, c2, c3 = st.columns(3)
        c1.metric(f"id in {other}", tid)
        c2.metric("depth", tree2.depth)
        c3.metric("merges", tree2.n_merges)


def _links(name: str, data: bytes, piece: str | None = None) -> None:
    """Back, the steps view (BPE: the merge loop on the token's own text; another family: its steps on
    `piece`, the piece that made the token), the vocabulary."""
    c1, c2, c3 = st.columns(3)
    if c1.button("Back to Tokenize", key=state.TREE_TO_TOKENIZE, width="stretch", icon=":material/arrow_back:"):
        pickers.go("tokenize")
    label, hint = (("Watch BPE build it", "Replays the merge loop on this token's text in the BPE steps view.")
                   if piece is None else ("Its piece, step by step", "The same steps for the whole piece, in the "
                                                                      "steps view."))
    if c2.button(label, key=state.TREE_TO_STEPS, width="stretch", icon=":material/footprint:",
                 disabled=piece is None and not (data and engine.text.is_valid_utf8(data)), help=hint):
        pickers.open_steps(piece if piece is not None else data.decode("utf-8"))
        pickers.go("steps")
    if c3.button("Its family in the vocabulary", key=state.TREE_TO_VOCAB, width="stretch", icon=":material/menu_book:"):
        pickers.open_vocab_token()
        pickers.go("vocab")


def _family_leaf_note(enc: engine.Encoding, token_id: int, tree: engine.MergeNode, family: str) -> None:
    """What a leaf-only tree means in SentencePiece and tokenizer.json: a byte-fallback byte, or a token no merge makes."""
    if not tree.is_leaf:
        return
    note = engine.explain.families.token_note(enc, token_id)
    if note is not None and note.kind == "byte":
        st.info(f"A byte-fallback token ({md(note.text)}). It is never merged: SentencePiece uses it only for a "
                "character the vocabulary has no piece for, one token per UTF-8 byte.")
    elif family in ("sentencepiece", "tokenizer.json") and len(tree.bytes.decode("utf-8", "replace")) > 1:
        st.info("No merge of this model makes this token from smaller ones, so BPE never produces it from text "
                "(it is a leaf with all its characters).")


def _family_steps(name: str, enc: engine.Encoding, token_id: int, data: bytes) -> None:
    """A family that never merges: how its own algorithm came to the token (WordPiece's longest-match lookups,
    Unigram's best path through the lattice), on the piece of the text that made it."""
    styles("gallery", "pipeline")
    found = encodings.token_story(name, enc, token_id, st.session_state.get(state.TEXT, ""))
    if found is None:
        st.info("No piece of your text was cut into this token, and cut alone its text gives other tokens (a "
                "## continuation only follows the start of a word; a byte or whitespace is no word). Type a word "
                "that contains it on Tokenize, or pick a token of your text.")
        _links(name, data)
        return
    st.markdown(token_card(name, found), unsafe_allow_html=True)
    st.caption("The chosen token is outlined, and the step that found it is marked in green.")
    _links(name, data, found.story.piece)


def _tree_or_reason(name: str, enc: engine.Encoding, token_id: int, data: bytes) -> engine.MergeNode | None:
    """The token's tree drawn, or why there is none (and the links on)."""
    if not data:  # the empty token (whisper's rank 50256): a tree of one empty box would say nothing
        st.info(md(explain.no_tree_reason(enc, token_id), 800))
        _links(name, data)
        return None
    try:
        return _draw_tree(name, enc, token_id, key_prefix="main")
    except ValueError as err:  # a token no merge makes (Llama 3), or an upload BPE could not produce
        reason = explain.no_tree_reason(enc, token_id)
        if reason:
            st.info(md(reason, 800))
            _links(name, data)
        else:
            st.warning(f"No merge tree for this token: {md(err, 600)}")
        return None


def _other_names(name: str) -> list[str]:
    """The encodings "The same bytes in other encodings" looks in: the sidebar's, and the three OpenAI ones."""
    chosen = [n for n in st.session_state.get(state.ENCODINGS) or [] if n in state.known_encodings()]
    return [other for other in dict.fromkeys([*chosen, *state.DEFAULT_ENCODINGS]) if other != name]


def render() -> None:
    header("Merge tree", "how one token was built: BPE joined smaller parts, pair by pair, down to bytes or characters.")
    # On a projector the tree comes first: the pickers fold away (their values stay), and the family's
    # rule follows the tree, so a 720-pixel screen shows the tree without scrolling.
    present = bool(st.session_state.get(state.PRESENT))
    picking = st.expander("Encoding and token", icon=":material/tune:") if present else st.container()
    with picking:
        name, enc = encoding_select(ENC_KEY)
        note = encodings.family_note(name, enc)
        merges = algorithm_of(enc) == "bpe"  # WordPiece, Unigram, WordLevel: no tree; the family's own steps instead
        rule = (f"**{md(note.title)}**: {md(note.merges)}  \n{md(note.tree)}"
                + (" Read the tree from the leaves up." if merges else ""))
        if not present:
            st.markdown(rule)
    if st.session_state.get(state.TOKEN_ID) is None:
        st.session_state[state.TOKEN_ID] = _default_token(name, enc)
    # The token and its tree are drawn before the token pickers above them (their chips are slow to draw
    # the first time: Streamlit reads its emoji table for a label that is not ASCII), and sent at once when
    # another vocabulary must load for the rest of the page: the tree is what the reader waits for.
    with st.container():
        tree = _token_and_tree(name, enc, merges, rule, present)
    if tree is not None and not all(map(encodings.loaded, _other_names(name))):
        script_gate.send_drawn()
    with picking:
        _pick_token(name, enc)
    if tree is None:
        return
    token_id = int(st.session_state[state.TOKEN_ID])
    data = enc.decode_single_token_bytes(token_id)
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("id (= rank)" if note.family == "tiktoken" else "id", token_id)
    c2.metric("bytes", len(data))
    c3.metric("depth", tree.depth, help="Merges on the longest path from a byte to the token.")
    c4.metric("merges", tree.n_merges, help="Inner boxes: always bytes − 1, whatever the shape.")
    vocab_health.token_use_line(name, enc, token_id)
    _permuted_note(tree, name, note.family)
    _family_leaf_note(enc, token_id, tree, note.family)
    st.caption(f"Boxes show bytes readably: {html.SPACE} is a space (SentencePiece's ▁, tokenizer.json's Ġ), <e6 97> are "
               "bytes that are not a whole UTF-8 character on their own. Colours follow the id, as on the Tokenize page.")
    _links(name, data)
    _other_encodings(name, data)


def _token_and_tree(name: str, enc: engine.Encoding, merges: bool, rule: str, present: bool) -> engine.MergeNode | None:
    """The chosen token and its tree (or why there is none, or the family's own steps); the tree, if drawn."""
    if present and not merges:
        st.markdown(rule)
    token_id = int(st.session_state[state.TOKEN_ID])
    problem = token_problem(enc, token_id)
    if problem:
        st.warning(problem)
        if st.button("Back to Tokenize", key=state.TREE_BACK_PROBLEM, icon=":material/arrow_back:"):
            pickers.go("tokenize")
        return None
    data = enc.decode_single_token_bytes(token_id)
    token_text(data)
    if not merges:
        _family_steps(name, enc, token_id, data)
        return None
    tree = _tree_or_reason(name, enc, token_id, data)
    if present:
        st.markdown(rule)
    return tree
