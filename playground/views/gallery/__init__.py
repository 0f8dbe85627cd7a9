"""Why counts differ: live demos, the token tax of your own text by script, and a context/cost budget.

Every number is measured by the engine on this run (through the cached
wrappers in playground/cache/encodings.py); the demos' texts live in
playground/views/gallery/demos.py.  Two panes behind a segmented control:
the gallery (one demo at a time, picked with pills) and "your text".
"""
from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

import engine
from playground import state
from playground.cache import encodings, render_cache
from playground.components.live_input import text_box
from playground.render import html
from playground.render.gallery import gallery_chips, gallery_name
from playground.render.markdown import md
from playground.views.gallery import classics
from playground.views.gallery.demos import DEMOS, Demo, languages
from playground.widgets import pickers
from playground.widgets import charts
from playground.widgets.charts import wrapping_legend
from playground.widgets.page import header, styles

BASE_ENCODINGS = ("gpt2", "cl100k_base", "o200k_base")
BUDGET_LIMIT = 1_000_000  # characters counted for the budget
CONTEXT_PRESETS = {"8k": 8_192, "32k": 32_768, "128k": 128_000, "200k": 200_000, "1M": 1_000_000}
BAR = 16  # pixels per bar in the token-tax and budget charts (Vega draws about 12 of them, padding aside)
GAP = 12  # pixels between two scripts' groups of bars

K_SECTION = state.GALLERY_SECTION
K_DEMO = state.GALLERY_DEMO
K_PICK = state.GALLERY_PICK_PREFIX  # + demo key
K_PRESET = state.GALLERY_CONTEXT_PRESET
K_CONTEXT = state.GALLERY_CONTEXT
K_PRICE = state.GALLERY_PRICE
SECTIONS = {"demos": "🎛️ Gallery of demos", "yours": "🧾 Your text: token tax & budget"}
ALL = -1  # "all examples" in the pick list


def render() -> None:
    st.session_state[state.TEXT] = st.session_state.get(state.TEXT, state.DEFAULT_TEXT)  # keep across pages
    styles("gallery")
    header("Why counts differ", "the same text costs different token counts: live demos, and your own text's token tax.")
    st.caption("Every number on this page is measured now by this app's engine: nothing is quoted from elsewhere. "
               "The demos always compare gpt2, cl100k_base and o200k_base (their explanations are about these three), "
               "plus your own tokenizers (trained or uploaded); your text's token tax and budget use the encodings "
               "the sidebar picks.")
    section = st.segmented_control("Show", list(SECTIONS), format_func=SECTIONS.get, key=K_SECTION, persist_state="session",
                                   default="demos", required=True, label_visibility="collapsed")
    if section == "yours":
        _your_text(list(st.session_state.get(state.ENCODINGS) or []))
    else:
        _gallery(list(BASE_ENCODINGS) + [n for n in st.session_state.get(state.CUSTOM, {}) if n not in BASE_ENCODINGS])


# ------------------------------------------------------------------ gallery
def _gallery(names: list[str]) -> None:
    key = st.pills("Demo", list(DEMOS), format_func=lambda k: DEMOS[k].title, key=K_DEMO, persist_state="session",
                   default="languages", required=True)
    demo = DEMOS[key]
    st.markdown(demo.explanation)
    if demo.key == "special":
        _special_demo(demo, names)
        return
    tokens = {}
    for n in list(names):
        try:
            tokens[n] = encodings.tokenize_many(n, encodings.resolve(n), demo.texts, "text")
        except ValueError as error:  # an upload without an unknown token that cannot spell a demo's character
            st.warning(f"**{md(n)} is left out of this demo:** {md(error, 600)}")
            names.remove(n)
    counts = {n: [len(t) for t in tokens[n]] for n in names}
    st.markdown(f"**Measured now:** {_finding(demo, tokens, names)}")
    table = _count_table(demo, counts, tokens, names)
    if demo.key == "languages":
        ratio = {f"{n} ×EN": st.column_config.NumberColumn(format="%.2f×") for n in names}
        st.dataframe(table, hide_index=True, width="stretch", height=420,
                     column_config={"Text": st.column_config.TextColumn(width="large"), **ratio})
        _provenance()
    else:
        st.dataframe(table, hide_index=True, width="stretch",
                     column_config={"Example": st.column_config.TextColumn(width="medium")})
    st.altair_chart(charts.sized(_count_chart(demo, counts, names)), width="stretch")
    if demo.key in classics.KEYS:
        classics.panel(demo, tokens, names)
    _look_closer(demo, tokens, names)


def _finding(demo: Demo, tokens: dict[str, list[list[engine.Token]]], names: list[str]) -> str:
    """One sentence with this run's numbers: the demo's point, measured."""
    if demo.key in classics.KEYS:
        return classics.finding(demo, tokens, names)
    counts = {n: [len(t) for t in tokens[n]] for n in names}
    label = {s.label: i for i, s in enumerate(demo.samples)}

    def split(n: str, key: str) -> str:
        return "|".join(t.text for t in tokens[n][label[key]])

    def each(fmt) -> str:
        return "; ".join(fmt(n) for n in names) + "."

    if demo.key == "languages":
        hindi = next(i for i, s in enumerate(demo.samples) if s.label.startswith("Hindi"))

        def lang(n: str) -> str:
            en, worst = counts[n][0], max(range(1, len(demo.samples)), key=lambda i: counts[n][i])
            return (f"**{n}** English {en} tokens, Hindi {counts[n][hindi]} ({counts[n][hindi] / en:.1f}×), "
                    f"most {demo.samples[worst].label.split(' (')[0]} {counts[n][worst]} "
                    f"({counts[n][worst] / en:.1f}×)")
        return each(lang)
    if demo.key == "numbers":
        a, b = "Ten digits", "Ten digits, last one changed"
        return each(lambda n: f"**{n}** `{split(n, a)}` vs `{split(n, b)}`")
    if demo.key == "code":
        a, b, c, d = (s.label for s in demo.samples[:4])
        return each(lambda n: f"**{n}** {counts[n][label[a]]} tokens with spaces, {counts[n][label[b]]} with tabs, "
                              f"JSON {counts[n][label[c]]} pretty vs {counts[n][label[d]]} minified")
    if demo.key == "whitespace":
        return each(lambda n: f"**{n}** " + ", ".join(
            f"`{_shown(s.text)}` = {' '.join(str(t.id) for t in tokens[n][label[s.label]])}" for s in demo.samples[:5]))
    if demo.key == "contractions":
        return each(lambda n: f"**{n}** don't {counts[n][0]} tokens, don’t {counts[n][1]}")
    if demo.key == "emoji":
        fam = "Family (ZWJ sequence)"
        cps = len(demo.samples[label[fam]].text)
        return f"the family emoji is {cps} code points; " + each(lambda n: f"**{n}** {counts[n][label[fam]]} tokens")
    if demo.key == "glitch":
        return each(lambda n: f"**{n}** keeps {sum(c == 1 for c in counts[n])} of {len(demo.samples)} as one token")
    return each(lambda n: f"**{n}** {sum(counts[n])} tokens in all")


def _shown(text: str, limit: int = 60) -> str:
    """A one-line preview with visible whitespace, for tables."""
    visible = text.replace(" ", html.SPACE).replace("\t", html.TAB).replace("\n", html.NEWLINE)
    return visible if len(visible) <= limit else visible[: limit - 1] + "…"


def _count_table(demo: Demo, counts: dict[str, list[int]], tokens: dict[str, list], names: list[str]) -> pd.DataFrame:
    rows = []
    for i, sample in enumerate(demo.samples):
        row = {"Example": sample.label}
        if demo.key == "languages":
            row["Script"] = languages()["languages"][i]["script"].replace("+", " + ")
        for n in names:
            row[n] = counts[n][i]
        if demo.key == "languages":
            for n in names:
                row[f"{n} ×EN"] = round(counts[n][i] / counts[n][0], 2)  # English is the first sample
        if demo.show_split:
            for n in names:
                row[f"{n} split"] = "|".join(_shown(t.text, 30) for t in tokens[n][i])
        if demo.show_ids:
            for n in names:
                row[f"{n} ids"] = " ".join(str(t.id) for t in tokens[n][i])
        row["Chars"] = len(sample.text)
        row["Bytes"] = len(sample.text.encode("utf-8"))
        row["Text"] = sample.text if demo.key == "languages" else _shown(sample.text)
        if demo.key in ("languages", "glitch"):
            row["Source" if demo.key == "languages" else "Origin"] = sample.note
        rows.append(row)
    return pd.DataFrame(rows)


def _count_chart(demo: Demo, counts: dict[str, list[int]], names: list[str]) -> alt.Chart:
    ratio = demo.key == "languages"
    data = pd.DataFrame([
        {"Example": s.label, "Encoding": n, "Tokens": counts[n][i],
         "Ratio to English": counts[n][i] / counts[n][0]}
        for i, s in enumerate(demo.samples) for n in names
    ])
    x = "Ratio to English" if ratio else "Tokens"
    order = [s.label for s in demo.samples]
    bars = alt.Chart(data).mark_bar().encode(
        x=alt.X(f"{x}:Q", title="tokens ÷ English tokens" if ratio else "tokens"),
        y=alt.Y("Example:N", sort=order, title=None, axis=alt.Axis(labelLimit=220)),
        yOffset=alt.YOffset("Encoding:N", sort=names),
        color=alt.Color("Encoding:N", sort=names, legend=wrapping_legend(orient="top", title=None)),
        tooltip=["Example", "Encoding", "Tokens", alt.Tooltip("Ratio to English:Q", format=".2f")],
    )
    height = max(180, len(demo.samples) * (12 * len(names) + 12))
    if not ratio:
        return bars.properties(height=height)
    one = alt.Chart(pd.DataFrame({"x": [1.0]})).mark_rule(color="#444", strokeDash=[4, 3]).encode(x="x:Q")
    return (bars + one).properties(height=height)


def _provenance() -> None:
    doc = languages()
    first = doc["languages"][1]["source"]
    st.caption(f"Source: msgid “{doc['msgid']}” of the `{first['domain']}` gettext domain, Debian package "
               f"`{first['package']}` {first['version']} (/usr/share/locale/<locale>/LC_MESSAGES/"
               f"{first['domain']}.mo), extracted by `{doc['generator']}`. {doc['license']}. "
               "Translations are the translators' own, so some are freer than others.")


def _look_closer(demo: Demo, tokens: dict[str, list], names: list[str]) -> None:
    st.markdown("##### Look closer")
    st.caption(f"One chip per token, coloured by its id (small number). {html.SPACE} is a space, {html.TAB} a tab, "
               f"{html.NEWLINE} a newline; "
               "a gap marks the start of a new pre-tokenizer piece; ‹hex› is part of a character.")
    options = list(range(len(demo.samples))) + [ALL]
    focus = next((i for i, s in enumerate(demo.samples) if s.label == demo.focus), 0)
    pick = st.selectbox("Example", options, index=focus, key=K_PICK + demo.key, persist_state="session",
                        format_func=lambda i: "All examples, one per line" if i == ALL else demo.samples[i].label)
    indices = range(len(demo.samples)) if pick == ALL else [pick]
    if pick != ALL and demo.samples[pick].note:
        st.caption(demo.samples[pick].note)
    for n in names:
        total = sum(len(tokens[n][i]) for i in indices)
        st.markdown(gallery_name(n, total), unsafe_allow_html=True)
        for i in indices:
            chips = gallery_chips(_chip_data(tokens[n][i]), show_ids=demo.show_ids or pick != ALL,
                                       example=demo.samples[i].label, encoding=n)
            st.markdown(chips, unsafe_allow_html=True)
    text = "\n".join(demo.texts) if pick == ALL else demo.samples[pick].text
    _open_buttons(text, names, demo.key)


def _chip_data(tokens: list[engine.Token]) -> list[tuple[int, bytes, bool, bool]]:
    out, piece = [], None
    for t in tokens:
        out.append((t.id, t.bytes, piece is not None and t.piece_index != piece, t.special))
        piece = t.piece_index
    return out


def _open(text: str, names: list[str], policy: str | None) -> None:
    """Button callback (runs before the next script run, so widget keys may still be written)."""
    st.session_state[state.TEXT] = text
    st.session_state[state.ENCODINGS] = names[:4]
    if policy:
        st.session_state[state.SPECIAL] = policy


def _open_buttons(text: str, names: list[str], key: str, policy: str | None = None) -> None:
    left, right, _ = st.columns([1, 1, 1])  # wide enough for both labels in presentation mode's larger type
    args = (text, names, policy)
    if left.button("Open in Tokenize", key=f"{state.GALLERY_OPEN_TOK_PREFIX}{key}", icon=":material/text_fields:",
                   on_click=_open, args=args):
        pickers.go("tokenize")
    if right.button("Open in Compare", key=f"{state.GALLERY_OPEN_CMP_PREFIX}{key}", icon=":material/difference:",
                    on_click=_open, args=args):
        pickers.go("compare")


POLICY_LABELS = {
    "text": "as text: disallowed_special=()",
    "special": 'as special: allowed_special="all"',
    "refuse": "tiktoken's default (refuse)",
}


def _special_demo(demo: Demo, names: list[str]) -> None:
    rows, errors = [], {}
    chips: dict[tuple[str, str, str], list[engine.Token]] = {}
    for n in names:
        enc = encodings.resolve(n)
        for policy, label in POLICY_LABELS.items():
            for sample in demo.samples:
                try:
                    toks = encodings.tokenize_many(n, enc, (sample.text,), policy)[0]
                except ValueError as exc:
                    errors.setdefault(n, str(exc))
                    rows.append({"Example": sample.text, "Encoding": n, "Policy": label, "Tokens": None,
                                 "Ids": "refused: ValueError (message below)"})
                    continue
                chips[(n, policy, sample.text)] = toks
                rows.append({"Example": sample.text, "Encoding": n, "Policy": label, "Tokens": len(toks),
                             "Ids": " ".join(str(t.id) for t in toks)})
    table = pd.DataFrame(rows)
    text = demo.samples[0].text
    # refusing is the demo's point ("refuse" policy); a tokenizer that cannot spell the text at all (no unknown
    # token) stays in the table, with its error, and out of the sentences and chips below
    for n in [n for n in names if not all((n, p, text) in chips for p in ("text", "special"))]:
        st.warning(f"**{md(n)} is left out of this demo:** {md(errors.pop(n), 600)}")
        names.remove(n)
    as_text = {n: len(chips[(n, "text", text)]) for n in names}
    as_special = {n: len(chips[(n, "special", text)]) for n in names}
    st.markdown("**Measured now:** " + "; ".join(
        f"**{n}** `{text}` is {as_text[n]} tokens as text, {as_special[n]} with the special token"
        for n in names) + ".")
    st.dataframe(table, hide_index=True, width="stretch")
    chart = alt.Chart(table.dropna(subset=["Tokens"])).mark_bar().encode(
        x=alt.X("Tokens:Q", title="tokens"),
        y=alt.Y("Policy:N", title=None, axis=alt.Axis(labelLimit=260)),
        yOffset=alt.YOffset("Encoding:N", sort=names),
        color=alt.Color("Encoding:N", sort=names, legend=wrapping_legend(orient="top", title=None)),
        row=alt.Row("Example:N", title=None, header=alt.Header(labelAngle=0, labelAlign="left")),
        tooltip=["Example", "Encoding", "Policy", "Tokens"],
    ).properties(height=30 * len(names) + 20)
    st.altair_chart(charts.sized(chart))
    if errors:
        first = next(iter(errors))
        st.markdown(f"With tiktoken's default, `encode()` refuses the text ({md(first)} shown):")
        st.code(errors[first], language=None)
    st.markdown("##### Look closer")
    for n in names:
        st.markdown(gallery_name(n), unsafe_allow_html=True)
        for policy in ("text", "special"):
            toks = chips[(n, policy, text)]
            st.markdown(gallery_chips(_chip_data(toks), example=f"{text} ({policy})", encoding=n),
                        unsafe_allow_html=True)
    _open_buttons(text, names, demo.key, policy="special")


# ---------------------------------------------------------------- your text
def _your_text(names: list[str]) -> None:
    """The token tax and budget of the app-wide text for `names` (the sidebar's encodings)."""
    text = text_box("Your text", notes=False)  # live, like Tokenize's box: no Ctrl+Enter
    if not text:
        st.info("Type or paste some text above to see what it costs.")
        return
    if not names:
        st.info("Pick one or more encodings in the sidebar's Encodings box to see this text's token tax and budget.")
        return
    policy = st.session_state.get(state.SPECIAL, "text")
    if len(text) > encodings.DRAW_LIMIT:
        st.info(f"Long text ({len(text):,} characters): the token tax covers the first "
                f"{encodings.DRAW_LIMIT:,} characters; the budget counts the first {BUDGET_LIMIT:,}.")
    counted = text[:BUDGET_LIMIT]
    taxes, counts = {}, {}
    for n in list(names):
        try:
            taxes[n] = encodings.token_tax(n, encodings.resolve(n), text, policy)
            counts[n] = len(render_cache.ids(n, encodings.resolve(n), counted, policy))
        except engine.DisallowedSpecialTokenError as exc:
            st.error(f"{md(exc, 600)}\n\nTo measure this text, choose “as plain text” or “as special tokens” "
                     "under “Special tokens” in the sidebar.")
            return
        except ValueError as exc:  # an upload without an unknown token that cannot spell a character of it
            st.warning(f"**{md(n)} could not split this text:** {md(exc, 600)}")
            names.remove(n)
    if not names:
        return
    _token_tax(taxes, names)
    _budget(counts, len(counted), names)


def _token_tax(taxes: dict[str, list[engine.explain.unicode_scripts.ScriptShare]], names: list[str]) -> None:
    st.subheader("Token tax by script")
    st.markdown("Each character belongs to a Unicode script (Common = digits, punctuation, spaces, emoji). "
                "A token is shared among the scripts of its bytes in proportion to how many bytes each owns, "
                "so the token column of every encoding adds up to its token count.")
    scripts: dict[str, engine.explain.unicode_scripts.ScriptShare] = {}
    for n in names:
        for share in taxes[n]:
            scripts.setdefault(share.script, share)
    order = sorted(scripts, key=lambda s: -scripts[s].chars)
    cols = st.columns(len(names))
    for col, n in zip(cols, names):
        tokens = int(sum(s.tokens for s in taxes[n]))  # an integer: the shares add up exactly
        chars = sum(s.chars for s in taxes[n])
        col.metric(n, html.plural(tokens, "token"))
        col.caption(f"{chars / tokens:.2f} characters per token" if tokens else "no tokens")
    rows = []
    for script in order:
        row = {"Script": script, "Chars": scripts[script].chars, "Bytes": scripts[script].bytes}
        for n in names:
            share = next((s for s in taxes[n] if s.script == script), None)
            row[f"{n} tokens"] = round(float(share.tokens), 2) if share else 0.0
            row[f"{n} tokens/char"] = round(share.tokens_per_char, 3) if share else 0.0
        rows.append(row)
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    data = pd.DataFrame([
        {"Script": s.script, "Encoding": n, "Tokens per character": s.tokens_per_char,
         "Tokens": float(s.tokens), "Chars": s.chars}
        for n in names for s in taxes[n]
    ])
    chart = alt.Chart(data).mark_bar().encode(
        x=alt.X("Tokens per character:Q"),
        y=alt.Y("Script:N", sort=order, title=None),
        yOffset=alt.YOffset("Encoding:N", sort=names),
        color=alt.Color("Encoding:N", sort=names, legend=wrapping_legend(orient="top", title=None)),
        tooltip=["Script", "Encoding", alt.Tooltip("Tokens per character:Q", format=".3f"),
                 alt.Tooltip("Tokens:Q", format=".2f"), "Chars"],
    )
    st.altair_chart(charts.sized(_rows_high(chart, len(order) * (len(names) * BAR + GAP))), width="stretch")


def _apply_preset() -> None:
    preset = st.session_state.get(K_PRESET)
    if preset in CONTEXT_PRESETS:
        st.session_state[K_CONTEXT] = CONTEXT_PRESETS[preset]


def _clear_preset() -> None:
    st.session_state[K_PRESET] = None


def _budget(counts: dict[str, int], n_chars: int, names: list[str]) -> None:
    st.subheader("Budget")
    st.session_state.setdefault(K_CONTEXT, CONTEXT_PRESETS["128k"])
    st.session_state.setdefault(K_PRICE, 1.0)
    left, right = st.columns(2)
    with left:
        st.pills("Context presets", list(CONTEXT_PRESETS), key=K_PRESET, persist_state="session", on_change=_apply_preset)
        context = st.number_input("Context window (tokens)", min_value=1, max_value=100_000_000, step=1_000,
                                  key=K_CONTEXT, persist_state="session", on_change=_clear_preset)
    with right:
        price = st.number_input("Price per 1 million tokens (enter your provider's current price)",
                                min_value=0.0, max_value=1_000_000.0, step=0.05, format="%.4f", key=K_PRICE, persist_state="session",
                                help="No price list is built in: prices change, and a stale one misleads.")
    rows = []
    for n in names:
        tokens = counts[n]
        rows.append({"Encoding": n, "Tokens": tokens, "Share of context %": round(100 * tokens / context, 2),
                     "Fits": "yes" if tokens <= context else f"no, {tokens - context:,} over",
                     "Copies that fit": context // tokens if tokens else None,
                     "Cost": round(tokens / 1_000_000 * price, 6)})
    st.caption(f"{n_chars:,} characters counted, special tokens handled "
               f"{state.SPECIAL_POLICIES.get(st.session_state.get(state.SPECIAL, 'text'))}.")
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch",
                 column_config={"Cost": st.column_config.NumberColumn(format="%.6f"),
                                # thousands separators, as the chart's labels write them (7,534, not 7534)
                                **{c: st.column_config.NumberColumn(format="localized")
                                   for c in ("Tokens", "Copies that fit")}})
    data = pd.DataFrame(rows)
    data["Label"] = [f"{v:,.2f}% · {html.plural(int(t), 'token')}" for v, t in zip(data["Share of context %"], data["Tokens"])]
    base = alt.Chart(data).encode(
        x=alt.X("Share of context %:Q", title=f"% of a {context:,}-token context (dashed line: full)"),
        y=alt.Y("Encoding:N", sort=names, title=None),
    )
    bars = base.mark_bar().encode(color=alt.Color("Encoding:N", sort=names, legend=None),
                                  tooltip=["Encoding", "Tokens", "Share of context %", "Cost"])
    labels = base.mark_text(align="left", dx=4, color="#333").encode(text="Label:N")
    full = alt.Chart(pd.DataFrame({"x": [100.0]})).mark_rule(color="#c62828", strokeDash=[4, 3]).encode(x="x:Q")
    st.altair_chart(charts.sized(_rows_high(bars + labels + full, len(names) * (BAR + GAP))), width="stretch")


def _rows_high(chart: alt.TopLevelMixin, height: int) -> alt.TopLevelMixin:
    """`chart` as wide as the page with a plot `height` pixels high (axes and legend outside it).

    Streamlit's default autosize "fit" squeezes axes, legend and plot into the given height: with
    two to five scripts the token-tax bars were one to three pixels thick.  "fit-x" fits only the width.
    """
    return chart.properties(height=height, autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))
