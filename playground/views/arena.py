"""Arena: every tokenizer against your text, ranked; and against one sentence in 32 languages.

Every built-in encoding (``engine.list_tokenizer_names()``, an alias such as
``r50k_base`` = ``gpt2`` counted once) and the session's own tokenizers run on
the app-wide text; the user can leave some out.  The ranking is
`engine.explain.arena.rank_counts` (rank 1 = fewest tokens, ties share a rank); the
language matrix is `engine.explain.arena.language_matrix`, measured now on the
samples of ``engine/data/languages.json``, not read from a stored table,
plus the user's own sentences (at most `MAX_OWN`, kept in session state);
it downloads as CSV (one row per cell) and JSON (one record per language).

Counts are cached per (tokenizer, text, policy) as plain integers, so a
deselection or a return visit costs nothing; a text past
`encodings.INLINE_CHARS` is encoded in a job process by `encodings.encode`.
"""
from __future__ import annotations

import json
from dataclasses import asdict

import altair as alt
import pandas as pd
import streamlit as st

import engine
from engine.explain import fertility
from engine.explain.arena import ArenaEntry
from playground import state
from playground.cache import encodings, render_cache
from playground.components.live_input import text_box
from playground.render import html
from playground.render.markdown import md
from playground.widgets import charts, prices
from playground.widgets.page import header, refuse_message
from playground.widgets.text_fields import over_limit, text_field

K_PICK = state.ARENA_PICK
K_METRIC = state.ARENA_METRIC
K_SEEN = state.ARENA_OFFERED  # the names the pills offered last time
ROW = 22  # pixels per language in the heatmap
NUMBER_CELL = 30  # pixels a heatmap cell needs to show its number ("12.3⚠" at font size 10)
METRICS = {"vs_english": "× English", "fertility": "tokens per word", "vs_best": "× best tokenizer", "tokens": "tokens"}
K_OWN = state.ARENA_OWN_SENTENCES  # the user's own heatmap rows: [{"code", "language", "text"}], oldest first
K_OWN_LANG = state.ARENA_OWN_LANGUAGE
K_OWN_TEXT = state.ARENA_OWN_TEXT
K_OWN_KEEP = state.ARENA_OWN_KEEP
K_OWN_ERROR = state.ARENA_OWN_ERROR
MAX_OWN = 8  # own sentences kept per session
MAX_OWN_LANGUAGE = 40  # characters of a language name
MAX_OWN_TEXT = 1_000  # characters of one sentence
OWN_CODE = "yours-"  # + a number: the code of an own sentence, shown after its name
FULL = f"The heatmap keeps at most {MAX_OWN} of your sentences: remove one to add another."


def all_names() -> tuple[list[str], dict[str, str]]:
    """Every built-in and the session's own tokenizers, aliases dropped: (names, {alias: kept name})."""
    names = list(dict.fromkeys(engine.list_tokenizer_names() + state.known_encodings()))
    kept, aliases = encodings.distinct(tuple(names), tuple(encodings.resolve(n) for n in names))
    return kept, aliases


def render() -> None:
    header("Arena", "every tokenizer against your text, ranked — and against one sentence in 32 languages.")
    text = text_box()
    names, aliases = all_names()
    _offer_new(names)
    chosen = st.pills("Tokenizers", names, selection_mode="multi", default=names, key=K_PICK, format_func=md,
                      persist_state="session", help="Click to leave a tokenizer out of the arena (or bring it back).")
    chosen = [n for n in names if n in (chosen or [])]
    if aliases:
        st.caption(" · ".join(f"{md(a)} is the same tokenizer as {md(b)} (counted once)" for a, b in aliases.items()))
    if not chosen:
        st.info("Pick at least one tokenizer above.")
        return
    policy = st.session_state.get(state.SPECIAL, "text")
    key = render_cache.text_key(text)
    counts, unknown = [], {}
    for name in chosen:
        try:
            tokens, unknown[name] = encodings.count_and_unknown(name, encodings.resolve(name), key, text, policy)
            counts.append((name, tokens))
        except ValueError as error:  # refused special-token text (every tokenizer would), or this one failed
            refuse_message(error, name)
            if _refused(error):
                return
    if counts:
        _your_text(engine.explain.arena.rank_counts(counts, text, unknown))
        prices.input_costs(counts, what="your text")
    _languages([name for name, _ in counts] or chosen)


def _offer_new(names: list[str]) -> None:
    """A tokenizer the pills have not offered before (one just trained or uploaded) starts chosen;
    the ones the user left out stay out.  Runs before the pills are drawn."""
    seen = st.session_state.get(K_SEEN)
    if seen is not None and K_PICK in st.session_state:
        new = [n for n in names if n not in seen]
        if new:
            st.session_state[K_PICK] = list(st.session_state[K_PICK] or []) + new
    st.session_state[K_SEEN] = list(names)


def _refused(error: ValueError) -> bool:
    """The special-token refusal (here or in a job process): the same for every tokenizer, so stop."""
    return isinstance(error, engine.DisallowedSpecialTokenError)


# ---------------------------------------------------------------- your text
def _summary(ranked: list[ArenaEntry]) -> str:
    best = [e.name for e in ranked if e.rank == 1]
    worst = ranked[-1]
    lead = " and ".join(md(n) for n in best)
    line = (f"**{lead}** need{'s' if len(best) == 1 else ''} the fewest tokens: "
            f"{html.plural(ranked[0].tokens, 'token')} ({ranked[0].chars_per_token:.2f} characters per token).")
    if worst.tokens > ranked[0].tokens:
        line += f" {md(worst.name)} needs {worst.ratio:.2f}× as many ({worst.tokens:,})."
    lost = [e for e in ranked if e.unknown]
    if lost:
        line += (" " + "; ".join(f"{md(e.name)} wrote {html.plural(e.unknown, 'unknown token')}" for e in lost)
                 + ": text it cannot spell is lost, so its count is not what the text costs (⚠ unknown in the table).")
    return line


def _frame(ranked: list[ArenaEntry]) -> pd.DataFrame:
    return pd.DataFrame([{
        "rank": e.rank,
        "tokenizer": e.name,
        "tokens": e.tokens,
        "× best": round(e.ratio, 3),  # beside the count: the first column a narrow screen loses is the last
        "chars/token": round(e.chars_per_token, 3),
        "bytes/token": round(e.bytes_per_token, 3),
        **({"⚠ unknown": e.unknown} if any(x.unknown for x in ranked) else {}),
    } for e in ranked])


def _bar_chart(frame: pd.DataFrame) -> alt.LayerChart:
    order = list(frame["tokenizer"])
    base = alt.Chart(frame).encode(
        y=alt.Y("tokenizer:N", sort=order, title=None, axis=alt.Axis(labelLimit=200)),
        x=alt.X("tokens:Q", title="tokens (fewer is better)"),
        tooltip=["rank", "tokenizer", alt.Tooltip("tokens:Q", format=","), "chars/token", "bytes/token", "× best"],
    )
    bars = base.mark_bar().encode(color=alt.condition(alt.datum.rank == 1, alt.value("#2e7d32"), alt.value("#90a4ae")))
    labels = base.mark_text(align="left", dx=3, fontSize=charts.text_px(11)).encode(text=alt.Text("label:N"))
    frame_height = 24 * len(order) + 10
    # a height in pixels, never alt.Step: with Streamlit's autosize "fit" a step height makes Vega
    # drop fit-y with a console warning
    return (bars + labels).transform_calculate(
        label="format(datum.tokens, ',') + ' · ×' + format(datum['× best'], '.2f')"
              + (" + (datum['⚠ unknown'] > 0 ? ' ⚠' : '')" if "⚠ unknown" in frame else "")
    ).properties(height=frame_height)


def _your_text(ranked: list[ArenaEntry]) -> None:
    st.subheader("On your text")
    st.markdown(_summary(ranked))
    frame = _frame(ranked)
    # The table at the width its columns need, the chart in the rest of the row (below it when the row is
    # narrower than both): fixed columns (st.columns) cut the table's last column, "× best", at 1280 px.
    # Column widths in pixels, for the table's usual type; presentation mode's type is 20/16 of it.
    px = (lambda w: round(w * 1.25)) if charts.present() else (lambda w: w)
    with st.container(horizontal=True, gap="medium"):
        number = st.column_config.NumberColumn
        st.dataframe(frame, hide_index=True, key=state.ARENA_TABLE, height=min(38 + 35 * len(frame), 500), width="content",
                     column_config={"rank": number(width=px(48)), "tokenizer": st.column_config.TextColumn(width=px(130)),
                                    "tokens": number(width=px(70), format="%d"),
                                    "chars/token": number(width=px(88), format="%.3f"),
                                    "bytes/token": number(width=px(88), format="%.3f"),
                                    "× best": number(width=px(64), format="%.3f"),
                                    "⚠ unknown": number(width=px(96), format="%d", help="unknown tokens ([UNK], <unk>): "
                                                        "text this tokenizer lost")})
        st.altair_chart(charts.sized(_bar_chart(frame)), width="stretch", height=24 * len(frame) + 60)
    st.caption("Rank 1 needs the fewest tokens; equal counts share a rank and the next rank skips (1, 1, 3). "
               "× best = tokens ÷ the fewest tokens. Characters are code points; bytes are UTF-8.")


# ---------------------------------------------------------------- languages
def _heatmap(cells: pd.DataFrame, names: list[str], order: list[str], metric: str) -> alt.LayerChart:
    title = METRICS[metric]
    fmt = ",d" if metric == "tokens" else ".1f"  # (tokens per word too: 2.3 reads better than 2.31 in a cell)
    # Phone-wide, 20 columns leave ~10 px a cell: the numbers would overlap, so a cell narrower than
    # `NUMBER_CELL` shows only its colour and its ⚠ (the tooltip keeps the number), and the names stand upright.
    narrow = f"width / {max(1, len(names))} < {NUMBER_CELL}"
    base = alt.Chart(cells).encode(
        x=alt.X("encoding:N", sort=names, title=None,
                axis=alt.Axis(orient="top", labelAngle=alt.ExprRef(f"{narrow} ? -90 : -35"), labelLimit=140,
                              labelFontSize=alt.ExprRef(f"{narrow} ? {charts.text_px(9)} : {charts.text_px(11)}"), labelOverlap=False)),
        y=alt.Y("label:N", sort=order, title=None, axis=alt.Axis(labelLimit=220, labelOverlap=False)),
        tooltip=[alt.Tooltip("label:N", title="language"), "script", alt.Tooltip("encoding:N", title="tokenizer"),
                 alt.Tooltip("tokens:Q", format=","), alt.Tooltip("vs_english:Q", title="× English", format=".2f"),
                 alt.Tooltip("vs_best:Q", title="× best tokenizer", format=".2f"),
                 alt.Tooltip("fertility:Q", title="tokens per word", format=".2f"),
                 alt.Tooltip("unit:N", title="words counted as"),
                 alt.Tooltip("unknown:Q", title="unknown tokens (text lost)")],
    )
    scale = alt.Scale(scheme="orangered", type="log") if metric != "tokens" else alt.Scale(scheme="orangered")
    rect = base.mark_rect().encode(color=alt.Color(f"{metric}:Q", scale=scale, title=title,
                                                  legend=alt.Legend(orient="bottom", format=fmt)))  # (below: a phone needs the width)
    # a cell whose count includes unknown tokens is marked: the text was lost, not cheaply encoded
    text = base.transform_calculate(
        shown=f"({narrow} ? '' : isValid(datum['{metric}']) ? format(datum['{metric}'], '{fmt}') : '–')"
              " + (datum.unknown > 0 ? '⚠' : '')"
    ).mark_text(fontSize=10).encode(
        text=alt.Text("shown:N"),
        color=alt.condition(f"datum.{metric} > {_dark_above(cells, metric)}", alt.value("white"), alt.value("#222")))
    return (rect + text).properties(height=ROW * len(order), padding={"right": 16})  # (room for the legend's last label)


def _dark_above(cells: pd.DataFrame, metric: str) -> float:
    """The value above which a cell's colour is dark enough for white text (the top third, log scale)."""
    values = cells[metric]
    lo, hi = float(values.min()), float(values.max())
    if metric == "tokens":
        return lo + (hi - lo) * 0.6
    return lo * (hi / lo) ** 0.6 if lo > 0 else hi


@st.fragment
def _languages(names: list[str]) -> None:
    """The language heatmap (a fragment: "Colour by", adding or removing a sentence redraw only this)."""
    st.subheader("Across languages")
    own = _own_samples()
    try:
        matrix = encodings.language_matrix(tuple(names), tuple(encodings.resolve(n) for n in names), own)
    except ValueError:
        # An upload without an unknown token cannot spell some sentence (its own library fails it too): it is
        # left out of the heatmap, with the reason, and the others are measured.
        names = [n for n in names if _spells_every_sentence(n, own)]
        if not names:
            return
        matrix = encodings.language_matrix(tuple(names), tuple(encodings.resolve(n) for n in names), own)
    metric = st.segmented_control("Colour by", list(METRICS), format_func=METRICS.get, key=K_METRIC,
                                  persist_state="session", default="vs_english", required=True)
    fertile = fertility.fertility_cells(matrix)  # in the same order as matrix.cells()
    # a language counted in characters (no spaces between its words) says so in its label: "per character"
    labels = {f.code: f"{f.language} ({f.code})" + (" · per char" if f.unit == fertility.CHARACTERS else "")
              for f in fertile} if metric == "fertility" else {s.code: f"{s.language} ({s.code})" for s in matrix.languages}
    # a sentence with no word (only punctuation or emoji) has no tokens per word: no value, not 0 (a log scale has no 0)
    cells = pd.DataFrame([{**asdict(c), "label": labels[c.code], "fertility": f.fertility if f.units else None,
                           "unit": f.unit} for c, f in zip(matrix.cells(), fertile)])
    order = [labels[s.code] for s in matrix.languages]
    worst = matrix.worst()
    st.markdown("**Which language each tokenizer taxes most:** " + "; ".join(
        f"{md(c.encoding)} → {md(c.language)} ({c.vs_english:.1f}× English)" for c in worst) + ".")
    st.altair_chart(charts.sized(_heatmap(cells, names, order, metric)), width="stretch", height=ROW * len(order) + 150)
    st.caption(f"The same message in {len(order) - len(own)} languages (GTK's translators' translations of one "
               "sentence, engine/data/languages.json)"
               + (f" and your {html.plural(len(own), 'own sentence')} ({OWN_CODE}…)" if own else "")
               + ", encoded now by each tokenizer. × English = tokens ÷ that tokenizer's "
               "English tokens (the tax a speaker pays); × best tokenizer = tokens ÷ the fewest any chosen "
               "tokenizer needs for that language; tokens per word = tokens ÷ the sentence's words ("
               f"{fertility.WORD_METHOD}: those rows are marked “per char” and compare only with each other). "
               "Colours on a log scale."
               + (" ⚠ = part of that sentence became the tokenizer's unknown token ([UNK], <unk>): the text is "
                  "lost, so the low count is not a low cost." if any(c.unknown for c in matrix.cells()) else ""))
    _heatmap_downloads(matrix)
    _own_sentences(matrix.languages[matrix.reference].text)
    _parity(matrix, len(own))


def _parity(matrix: engine.explain.arena.LanguageMatrix, own: int) -> None:
    """Per tokenizer: its Gini over the translations, its median and costliest cost vs English, its median
    tokens per word; then the published numbers beside ours, each with its paper."""
    st.markdown("#### Fertility and parity")
    shipped = {s.code for s in engine.explain.arena.language_samples()}  # translations: the same content
    rows = sorted(fertility.parity_rows(matrix, shipped), key=lambda r: (r.gini, matrix.encodings.index(r.encoding)))
    if not rows:
        return
    # st.table, not st.dataframe: it wraps its headers and fits a phone's width (no column behind a scroll);
    # numbers stay numbers (right-aligned), formatted by the Styler
    frame = pd.DataFrame([{
        "tokenizer": r.encoding + (" ⚠" if r.unknown else ""),
        "Gini": r.gini,
        "× English, median": r.median_vs_english,
        "costliest": f"{r.worst_language} {r.worst_vs_english:.1f}×",
        "tokens per word, median": r.median_fertility,
    } for r in rows]).set_index("tokenizer")
    st.table(frame.style.format({"Gini": "{:.3f}", "× English, median": "{:.2f}", "tokens per word, median": "{:.2f}"}))
    st.caption(f"Over the {rows[0].languages} translations"
               + (f" (your {html.plural(own, 'own sentence')} left out: a Gini over texts that need not say the "
                  "same thing would measure the texts)" if own else "")
               + ", most equal first. Gini: 0 when every language costs the same number of tokens, toward 1 "
                 "when one language holds them all (the Gini the parity-aware trainer reports). × English, median: "
                 "the middle language's tokens ÷ English's (English itself not counted). Tokens per word: the median over the languages written "
                 "with spaces (tokens ÷ words, words as above)."
               + (" ⚠ = some sentences became unknown tokens ([UNK], <unk>): that text is lost, so the tokenizer's "
                  "numbers are too low, not good." if any(r.unknown for r in rows) else ""))
    st.markdown("**Published numbers beside ours.** Ours come from one sentence, not a corpus: compare the order "
                "of size, not the decimals.")
    cited: set[str] = set()
    for b in fertility.PUBLISHED:
        source = (f"{md(b.authors)}, the same paper" if b.url in cited  # its long title once is enough
                  else f"{md(b.authors)}, [“{md(b.paper)}”]({b.url}) ({md(b.venue)}, {b.year})")
        cited.add(b.url)
        st.markdown(f"- *{md(b.finding)}* — {source}. **Here:** {_live(b, matrix, rows, shipped)}")
    st.caption("Fewer tokens is not by itself a better model. A count says what a text costs — the bill, the room "
               "it takes in the context window, the time per reply — not how well a model understands it; that is "
               "measured on tasks, and no count here measures it.")


def _live(b: fertility.Baseline, matrix: engine.explain.arena.LanguageMatrix,
          rows: list[fertility.ParityRow], shipped: set[str]) -> str:
    """Our number beside a published one, in words, for the tokenizers chosen now."""
    if b.measure == "worst_vs_english":
        low, high = min(rows, key=lambda r: r.worst_vs_english), max(rows, key=lambda r: r.worst_vs_english)
        line = f"the costliest language is {md(high.worst_language)} at {high.worst_vs_english:.1f}× English with {md(high.encoding)}"
        if low is not high:
            line += f"; with {md(low.encoding)} the costliest is {md(low.worst_language)} at {low.worst_vs_english:.1f}×"
        return line + "."
    by_name = {r.encoding: r for r in rows}
    missing = [t for t in b.tokenizers if t not in by_name]
    if missing:
        return f"choose {' and '.join(md(t) for t in missing)} above to see {'its' if len(missing) == 1 else 'their'} number on these translations."
    if b.measure == "median_vs_english_non_latin":
        n = sum(1 for s in matrix.languages if s.code in shipped
                and engine.explain.unicode_scripts.dominant_script(s.text) != "Latin")
        return "; ".join(f"{md(t)}'s median over our {n} non-Latin languages is "
                         f"{fertility.non_latin_median(matrix, t, shipped):.1f}× English" for t in b.tokenizers) + "."
    what, value = (("median", lambda r: r.median_vs_english) if b.measure == "median_vs_english"
                   else ("mean", lambda r: r.mean_vs_english))
    others = by_name[b.tokenizers[0]].languages - 1
    return ("; ".join(f"{md(t)}'s {what} over our {others} other languages is {value(by_name[t]):.2f}× English"
                      for t in b.tokenizers)
            + f" (the paper measured {md(b.languages)}, ours are the Arena's translations: compare the order of size).")


def _spells_every_sentence(name: str, own: tuple) -> bool:
    """Whether `name` encodes every language sample; if not, a warning says which character it lacks."""
    try:
        encodings.language_matrix((name,), (encodings.resolve(name),), own)
    except ValueError as error:
        st.warning(f"**{md(name)} is left out of the languages:** {md(error, 600)}")
        return False
    return True


# ------------------------------------------------------- the heatmap's data
def heatmap_rows(matrix: engine.explain.arena.LanguageMatrix) -> list[dict]:
    """One record per (language, tokenizer), the heatmap's cells, for the CSV."""
    return [{"language": c.language, "code": c.code, "script": c.script, "tokenizer": c.encoding,
             "tokens": c.tokens, "characters": c.chars, "x_english": round(c.vs_english, 4),
             "x_best": round(c.vs_best, 4), "unknown_tokens": c.unknown,
             "words": f.units, "words_counted_as": f.unit, "tokens_per_word": round(f.fertility, 4)}
            for c, f in zip(matrix.cells(), fertility.fertility_cells(matrix))]


def heatmap_csv(matrix: engine.explain.arena.LanguageMatrix) -> str:
    """The cells as CSV.  A text cell starting with = + - @ gets a leading ' (a spreadsheet would run it
    as a formula, and language names can be the user's own)."""
    frame = pd.DataFrame(heatmap_rows(matrix))
    for column in ("language", "code", "script", "tokenizer"):
        frame[column] = [f"'{v}" if v[:1] in ("=", "+", "-", "@", "\t", "\r") else v for v in frame[column]]
    return frame.to_csv(index=False)


def heatmap_json(matrix: engine.explain.arena.LanguageMatrix) -> str:
    """The tokenizers, the reference language and per language its sentence, its words (and whether they were
    counted as words or characters) and, per tokenizer, the tokens, both ratios, tokens per word and how many of
    the tokens are unknown tokens (lost text)."""
    cells = {(c.code, c.encoding): c for c in matrix.cells()}
    fertile = {(f.code, f.encoding): f for f in fertility.fertility_cells(matrix)}
    return json.dumps({
        "tokenizers": list(matrix.encodings),
        "reference": matrix.languages[matrix.reference].code if matrix.languages else None,
        "languages": [{
            "code": s.code, "language": s.language, "script": s.script, "text": s.text,
            "yours": s.code.startswith(OWN_CODE),
            "tokens": {n: cells[(s.code, n)].tokens for n in matrix.encodings},
            "x_english": {n: round(cells[(s.code, n)].vs_english, 4) for n in matrix.encodings},
            "x_best": {n: round(cells[(s.code, n)].vs_best, 4) for n in matrix.encodings},
            "unknown_tokens": {n: cells[(s.code, n)].unknown for n in matrix.encodings},
            "words": fertile[(s.code, matrix.encodings[0])].units if matrix.encodings else 0,
            "words_counted_as": fertility.count_words(s.text).unit,
            "tokens_per_word": {n: round(fertile[(s.code, n)].fertility, 4) for n in matrix.encodings},
        } for s in matrix.languages],
    }, ensure_ascii=False, indent=1)


def _heatmap_downloads(matrix: engine.explain.arena.LanguageMatrix) -> None:
    stem = html.file_stem("arena-languages", matrix.encodings)
    with st.container(horizontal=True):  # each button as wide as its label (narrow columns cut it to "Download …")
        st.download_button("Download CSV", lambda: heatmap_csv(matrix), file_name=f"{stem}.csv", mime="text/csv",
                           key=state.ARENA_LANG_CSV, icon=":material/download:", on_click="ignore")
        st.download_button("Download JSON", lambda: heatmap_json(matrix), file_name=f"{stem}.json",
                           mime="application/json", key=state.ARENA_LANG_JSON, icon=":material/download:",
                           on_click="ignore")


# ------------------------------------------------------ your own sentences
def _own_samples() -> tuple[tuple[str, str, str, str], ...]:
    """The user's own sentences as (code, language, script, text), in the order they were added."""
    return tuple((s["code"], s["language"], engine.explain.unicode_scripts.dominant_script(s["text"]), s["text"])
                 for s in st.session_state.get(K_OWN, []))


def add_own_sentence() -> None:
    """Form callback: keep the typed language and sentence (checked, bounded) as a new heatmap row."""
    ss = st.session_state
    language = " ".join(str(ss.get(K_OWN_LANG) or "").split())
    text = str(ss.get(K_OWN_TEXT) or "").strip()
    own = list(ss.get(K_OWN, []))
    if over_limit("Language", language, MAX_OWN_LANGUAGE) or over_limit("Sentence", text, MAX_OWN_TEXT):
        ss.pop(K_OWN_ERROR, None)  # refused whole and kept in its box, whose warning says by how much
        return
    if not language or not text:
        ss[K_OWN_ERROR] = "Type a language name and a sentence, then press “Add to the heatmap”."
        return
    if len(own) >= MAX_OWN:  # the button is disabled then; two quick clicks can still get here
        ss[K_OWN_ERROR] = FULL
        return
    number = 1 + max((int(s["code"][len(OWN_CODE):]) for s in own), default=0)
    own.append({"code": f"{OWN_CODE}{number}", "language": language, "text": text})
    ss[K_OWN] = own
    ss[K_OWN_KEEP] = [s["code"] for s in own]
    ss[K_OWN_LANG] = ss[K_OWN_TEXT] = ""  # added: the boxes are ready for the next one
    ss.pop(K_OWN_ERROR, None)


def keep_own_sentences() -> None:
    """Multiselect callback: the sentences left out of it are removed."""
    keep = set(st.session_state.get(K_OWN_KEEP) or [])
    st.session_state[K_OWN] = [s for s in st.session_state.get(K_OWN, []) if s["code"] in keep]


def _own_sentences(reference: str) -> None:
    own = st.session_state.get(K_OWN, [])
    with st.expander(f"Add your own sentences ({len(own)} of {MAX_OWN})", expanded=bool(own)):
        st.caption(f"For a fair × English, translate this English sentence: “{md(reference, 400)}” — your "
                   "sentences stay in this session (not in the share link).")
        # not clear_on_submit: a refused sentence stays in its box; add_own_sentence clears the boxes after adding
        with st.form("arena_own_form", border=False):
            c1, c2 = st.columns([1, 3])
            text_field("Language", key=K_OWN_LANG, limit=MAX_OWN_LANGUAGE, where=c1, placeholder="e.g. Klingon")
            text_field("Sentence", key=K_OWN_TEXT, limit=MAX_OWN_TEXT, area=True, where=c2, height=80)
            st.form_submit_button("Add to the heatmap", on_click=add_own_sentence, disabled=len(own) >= MAX_OWN)
        if len(own) >= MAX_OWN:
            st.caption(FULL)
        error = st.session_state.get(K_OWN_ERROR)
        if error:
            st.warning(error)
        if own:
            st.session_state[K_OWN_KEEP] = [s["code"] for s in own]
            labels = {s["code"]: f"{s['language']} ({s['code']}): {s['text'][:40]}" for s in own}
            st.multiselect("Your sentences (remove one with its ×)", list(labels), format_func=labels.get,
                           key=K_OWN_KEEP, on_change=keep_own_sentences)
