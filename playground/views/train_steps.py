"""Training, step by step: watch minbpe learn merges on a small text, one step at a time.

The walk (`engine.training.steps.training_steps`: every step's pair counts,
winner, ties and tokens) is computed once per text and settings and kept in
this session's state, so stepping, scrubbing and auto-play only draw.  The
step controls and everything they change sit in one fragment: a step reruns
that fragment, not the page; while auto-play is on the fragment reruns itself
every `SPEEDS[...]` seconds (``st.fragment(run_every=...)``), and turning it on
or off reruns the page once, since a fragment's timer is fixed when the page draws it.
"""
from __future__ import annotations

import streamlit as st

import engine
from engine.tokenizer.patterns import CL100K_PAT_STR, O200K_PAT_STR, R50K_PAT_STR
from engine.training.steps import MAX_STEP_MERGES, MAX_STEP_TEXT_BYTES, PRESETS, TrainingStep, TrainingWalk, training_steps
from playground import state
from playground.render import html
from playground.render import training as draw_training
from playground.render.markdown import md
from playground.widgets import pickers
from playground.widgets.page import header, styles

SOURCES = {**{name: name for name in PRESETS}, "yours": "your text"}
PATTERNS = {"none (raw bytes)": None, "gpt2": R50K_PAT_STR, "cl100k_base": CL100K_PAT_STR, "o200k_base": O200K_PAT_STR}
SPEEDS = {"slow": 1.5, "normal": 0.8, "fast": 0.35}  # seconds per step in auto-play
DEFAULT_MERGES = 20
TOP_PAIRS = 8  # rows of the pair-count table

K_SOURCE = state.TS_SOURCE
K_TEXT = state.TS_TEXT
K_PATTERN = state.TS_PATTERN
K_MERGES = state.TS_MERGES
K_STEP = state.TS_STEP
K_SPEED = state.TS_SPEED
K_PLAYING = state.TS_PLAYING
K_WALK = state.TS_WALK
K_USE = state.TS_USE


def walk_for(text: str, n_merges: int, pat_str: str | None) -> TrainingWalk:
    """The walk for these settings, computed once and kept in this session (one walk at a time)."""
    key = (text, n_merges, pat_str)
    kept = st.session_state.get(K_WALK)
    if kept is not None and kept[0] == key:
        return kept[1]
    walk = training_steps(text, n_merges, pat_str=pat_str, top=TOP_PAIRS)
    st.session_state[K_WALK] = (key, walk)
    return walk


def _text() -> str:
    source = st.segmented_control("Text", list(SOURCES), format_func=SOURCES.get, key=K_SOURCE,
                                  persist_state="session", default="aaabdaaabac", required=True) or "aaabdaaabac"
    if source != "yours":
        st.code(PRESETS[source], language=None, wrap_lines=True)
        return PRESETS[source]
    st.session_state.setdefault(K_TEXT, PRESETS["nursery rhyme"])
    # No max_chars: the box's own counter counts UTF-16 units; the caption counts characters (code points)
    # as everywhere in this app, and the bytes the limit is about.
    text = st.text_area("Your text", key=K_TEXT, persist_state="session", height=110,
                        help=f"Up to {MAX_STEP_TEXT_BYTES:,} bytes: every step recounts every pair, as minbpe does. "
                             "Train on longer texts in Train your own.")
    st.caption(f"{len(text):,} characters, {len(text.encode('utf-8', 'surrogatepass')):,} of "
               f"{MAX_STEP_TEXT_BYTES:,} bytes")
    return text


def _settings() -> tuple[str | None, int]:
    left, right = st.columns(2)
    choice = left.selectbox("Split pattern", list(PATTERNS), key=K_PATTERN, persist_state="session",
                            help="Without a pattern, pairs may cross spaces and words; with one, the text is first "
                                 "cut into pieces and no merge crosses a piece.")
    n = right.number_input("Merges", 1, MAX_STEP_MERGES, key=K_MERGES, persist_state="session", step=1,
                           help=f"How many merges to learn (at most {MAX_STEP_MERGES}); each adds one token.")
    return PATTERNS.get(choice), int(n)


# ------------------------------------------------------------ step controls
def _move(delta: int | None, last: int) -> None:
    """Back / Step / End buttons (callbacks: they run before the slider is drawn)."""
    k = st.session_state.get(K_STEP, 0)
    st.session_state[K_STEP] = last if delta is None else min(max(k + delta, 0), last)
    st.session_state[K_PLAYING] = False


def _toggle_play(last: int) -> None:
    playing = not st.session_state.get(K_PLAYING, False)
    if playing and st.session_state.get(K_STEP, 0) >= last:
        st.session_state[K_STEP] = 0  # play from the start once the end was reached
    st.session_state[K_PLAYING] = playing


def _stepper(walk: TrainingWalk) -> None:
    """The fragment: controls, then this step's table, merges, text and chart."""
    last = len(walk.steps)
    step = min(int(st.session_state.get(K_STEP, 0) or 0), last)
    if st.session_state.get(K_PLAYING):
        if step >= last:  # the end: stop the timer (a page rerun draws the fragment without one)
            st.session_state[K_PLAYING] = False
            st.session_state.pop(state.TS_TICK, None)
            st.rerun()
        if st.session_state.pop(state.TS_TICK, False):
            step += 1
        st.session_state[state.TS_TICK] = True  # the next timer run advances
    st.session_state[K_STEP] = step
    cols = st.columns([1, 1, 1.3, 1, 2.2])
    cols[0].button("◀ Back", key=state.TS_BACK, on_click=_move, args=(-1, last), disabled=step == 0, width="stretch")
    cols[1].button("Step ▶", key=state.TS_NEXT, on_click=_move, args=(1, last), disabled=step >= last,
                   width="stretch", type="primary")
    playing = bool(st.session_state.get(K_PLAYING))
    if cols[2].button("⏸ Pause" if playing else "⏵ Auto-play", key=state.TS_PLAY, on_click=_toggle_play,
                      args=(last,), width="stretch", disabled=last == 0):
        st.session_state.pop(state.TS_TICK, None)  # set by this run's fragment above: the next run is no tick
        st.rerun()  # the page: a fragment's timer is set when the page draws it
    cols[3].button("End ⏭", key=state.TS_END, on_click=_move, args=(None, last), disabled=step >= last,
                   width="stretch")
    speed = cols[4].select_slider("Speed", list(SPEEDS), key=K_SPEED, persist_state="session",
                                  label_visibility="collapsed", help="Seconds per step in auto-play.")
    if playing and speed != st.session_state.get(state.TS_TIMER):
        st.rerun()  # the timer runs at the speed the page drew it with: redraw the page at the new one
    if last:
        st.slider("Step (scrub)", 0, last, key=K_STEP, persist_state="session",
                  help="Drag to any step: 0 is the text as bytes.")
    _show_step(walk, step)


def _show_step(walk: TrainingWalk, k: int) -> None:
    lookup = walk.token_bytes
    ratios = walk.tokens_per_byte()
    n_tokens = walk.n_bytes if k == 0 else walk.steps[k - 1].n_tokens
    cols = st.columns(4)
    cols[0].metric("Step", f"{k} of {len(walk.steps)}")
    cols[1].metric("Vocabulary", f"{256 + k:,}", help="256 byte tokens + one per merge")
    cols[2].metric("Tokens in the text", f"{n_tokens:,}", help=f"{walk.n_bytes:,} bytes before any merge")
    cols[3].metric("Tokens per byte", f"{ratios[k]:.3f}")
    left, right = st.columns([1.1, 1])
    with left:
        if k < len(walk.steps):
            upcoming = walk.steps[k]
            st.markdown(f"**Pair counts before merge {k + 1}** (the most frequent first)")
            st.markdown(draw_training.pair_table([(p.pair, p.count) for p in upcoming.pairs], lookup,
                                                 winner=upcoming.winner, ties=upcoming.ties,
                                                 n_pairs=upcoming.n_pairs), unsafe_allow_html=True)
            st.caption(_tie_note(upcoming))
        else:
            st.markdown("**Done.** " + ("No pair is left: every piece is one token." if walk.stopped_early
                                        else "Every requested merge is learned; raise *Merges* to go on."))
    with right:
        if k:
            made = walk.steps[k - 1]
            st.markdown(f"**New token {made.new_id}**: "
                        f"`{md(engine.explain.vocab.readable(made.new_bytes, space=html.SPACE))}` "
                        f"from {made.count:,} occurrences ({made.replaced:,} replaced)")
        st.markdown(draw_training.ratio_chart(ratios, k), unsafe_allow_html=True)
        st.markdown("**Merges so far**")
        st.markdown(draw_training.merge_list([s.winner for s in walk.steps[:k]], lookup, current=k),
                    unsafe_allow_html=True)
    st.markdown(f"**The text in tokens after {html.plural(k, 'merge')}** (the newest token outlined)")
    st.markdown(draw_training.text_in_tokens(walk.tokens_after(k), lookup,
                                             new_id=256 + k - 1 if k else None, pieces=walk.pat_str is not None),
                unsafe_allow_html=True)
    state.save_query_params("train-steps")  # a fragment run skips app.py's save


def _tie_note(step: TrainingStep) -> str:
    if not step.ties:
        return "No tie: one pair has the top count."
    return (f"A tie: {html.plural(len(step.ties) + 1, 'pair')} have {step.count:,} occurrences. minbpe takes "
            "max(stats, key=stats.get): Python's max keeps the first of equal keys, and the counts dict lists "
            "pairs in the order they were first seen, left to right, so the pair seen first wins.")


# ------------------------------------------------------------ use the result
def _use(text: str, pat_str: str | None) -> None:
    """Callback: train the same merges as a tokenizer (engine.train_bpe learns exactly these) and select it."""
    k = int(st.session_state.get(K_STEP, 0) or 0)
    try:
        enc = engine.train_bpe(text, 256 + max(k, 1), pat_str=pat_str)
        name = state.add_custom(enc)
    except ValueError as exc:  # the server's memory budget for tokenizers
        state.notify("error", str(exc))
        return
    state.select(name, make_room=True)  # chosen as the run this callback starts begins
    st.session_state[state.TEXT] = text
    st.session_state[state.TS_USED] = name


def render() -> None:
    styles("gallery", "training")
    header("Training, step by step", "watch minbpe learn its merges: count every pair, merge the most frequent "
                                     "(a tie goes to the pair seen first), redraw, repeat.")
    st.session_state.setdefault(K_MERGES, DEFAULT_MERGES)
    st.session_state.setdefault(K_SPEED, "normal")
    text = _text()
    pat_str, n_merges = _settings()
    if not text:
        st.info("Type a text above to train on.")
        return
    try:
        walk = walk_for(text, n_merges, pat_str)
    except ValueError as exc:
        st.error(md(exc, 600))
        return
    st.session_state[K_STEP] = min(int(st.session_state.get(K_STEP, 0) or 0), len(walk.steps))
    playing = bool(st.session_state.get(K_PLAYING))
    st.session_state[state.TS_TIMER] = st.session_state.get(K_SPEED)
    st.fragment(_stepper, run_every=SPEEDS.get(st.session_state.get(K_SPEED), 0.8) if playing else None)(walk)

    used = st.session_state.get(state.TS_USED)
    if used and used in st.session_state.get(state.ENCODINGS, []):
        st.success(f"**{md(used)}** is selected in the sidebar's Encodings: open **Tokenize** or **Compare**.")
        st.caption("Kept for this tab only: a reload clears it — the same text and step make it again.")
    left, right, _ = st.columns([1, 1, 2])
    args = (text, pat_str)
    if left.button("Use in Tokenize", key=K_USE + "_tok", on_click=_use, args=args, icon=":material/text_fields:",
                   help="This text's merges up to the current step, as a tokenizer in your session."):
        pickers.go("tokenize")
    if right.button("Use in Compare", key=K_USE + "_cmp", on_click=_use, args=args, icon=":material/difference:"):
        pickers.go("compare")
