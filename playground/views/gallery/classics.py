"""The classic demos' own sentences and panels in "Why counts differ": letters, reversal, trailing space,
YAML vs JSON, UTF-8/16/32.  Their texts live in demos.py; every number is measured now by
`engine.explain.classics` through the cached wrappers.  The gallery draws the common parts (counts,
chart, chips); `finding` and `panel` add what each classic shows.
"""
from __future__ import annotations

from typing import Sequence

import pandas as pd
import streamlit as st

import engine
from engine.explain import classics
from playground.cache import encodings, teach
from playground.render import html
from playground.views.gallery.demos import Demo

KEYS = ("letters", "reverse", "trailing", "yaml", "utf")


def letter_of(label: str) -> str:
    """The letter a sample of the letters demo counts: the s's of Mississippi, else the r's."""
    return "s" if label.startswith("Mississippi") else "r"


def _split(tokens: Sequence[engine.Token]) -> str:
    return "|".join(html.visible(t.text) for t in tokens)


def finding(demo: Demo, tokens: dict[str, list[list[engine.Token]]], names: list[str]) -> str:
    """One sentence with this run's numbers for a classic demo."""
    label = {s.label: i for i, s in enumerate(demo.samples)}

    def each(fmt) -> str:
        return "; ".join(fmt(n) for n in names) + "."

    if demo.key == "letters":
        def letters(n: str) -> str:
            alone = tokens[n][label["strawberry"]]
            counts = classics.letters_per_token([t.bytes for t in alone], "r")
            inside = next(t for t in tokens[n][label["In a sentence"]] if "strawberry" in t.text)
            return (f"**{n}** `{_split(alone)}` holds its r's as {'+'.join(map(str, counts))}; in the question "
                    f"`{html.visible(inside.text)}` is one id ({inside.id}) with all 3 inside")
        return each(letters)
    if demo.key == "reverse":
        def rev(n: str) -> str:
            fwd, back = tokens[n][label["Word"]], tokens[n][label["Word reversed"]]
            return f"**{n}** `{_split(fwd)}` ({len(fwd)} tokens) reversed is `{_split(back)}` ({len(back)})"
        return each(rev)
    if demo.key == "trailing":
        def space(n: str) -> str:
            plain, spaced = tokens[n][label["Prompt"]], tokens[n][label["Prompt + space"]]
            return f"**{n}** {len(plain)} tokens, {len(spaced)} with the space (its last token, id {spaced[-1].id}, is a lone space)"
        return each(space)
    if demo.key == "yaml":
        counts = {n: [len(t) for t in tokens[n]] for n in names}
        return each(lambda n: f"**{n}** JSON pretty {counts[n][0]}, minified {counts[n][1]}, YAML {counts[n][2]} tokens")
    sizes = [classics.utf_sizes(s.text) for s in demo.samples]
    emoji = label["Emoji"]
    return (f"the emoji sample is {sizes[emoji].code_points} characters (code points), {sizes[emoji].utf16_units} "
            f"UTF-16 units, {sizes[emoji].utf8_bytes} UTF-8 bytes; "
            + each(lambda n: f"**{n}** {len(tokens[n][emoji])} tokens"))


def panel(demo: Demo, tokens: dict[str, list[list[engine.Token]]], names: list[str]) -> None:
    """The table each classic adds under its finding."""
    if demo.key == "letters":
        rows = []
        for i, sample in enumerate(demo.samples):
            letter = letter_of(sample.label)
            for n in names:
                toks = tokens[n][i]
                counts = classics.letters_per_token([t.bytes for t in toks], letter)
                rows.append({"Example": sample.label, "Encoding": n, "Letter": letter,
                             "Tokens holding it": " ".join(f"{html.visible(t.text)}·{c}" for t, c in zip(toks, counts) if c),
                             "In the text": sample.text.lower().count(letter), "Tokens": len(toks)})
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    elif demo.key == "reverse":
        rows = []
        for n in names:
            r = teach.reversal(n, encodings.resolve(n), demo.samples[0].text)
            rows.append({"Encoding": n, "Text": demo.samples[0].text, "Its ids reversed decode to": r.reversed_ids_text,
                         "Letters reversed": r.reversed_text, "Tokens": len(r.ids),
                         "Tokens reversed": len(r.reversed_text_ids), "Ids in common": r.shared})
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    elif demo.key == "trailing":
        rows = []
        for n in names:
            t = teach.trailing_space(n, encodings.resolve(n), demo.samples[0].text)
            if t is None:
                rows.append({"Encoding": n, "Held back": "this family has no encode_with_unstable"})
                continue
            rows.append({"Encoding": n, "Stable ids": " ".join(map(str, t.stable)),
                         "Held back": "the final space",
                         "Possible continuations": t.n_completions,
                         "e.g.": " ".join(engine.explain.vocab.readable(c, space=html.SPACE) for c in t.completions)})
        st.caption(f"`encode_with_unstable({demo.samples[1].text!r})`: the stable ids, and how many token sequences "
                   "could continue the held-back end (the lowest-id words among them, i.e. learned first).")
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    elif demo.key == "utf":
        rows = []
        for i, sample in enumerate(demo.samples):
            s = classics.utf_sizes(sample.text)
            row = {"Example": sample.label, "Text": sample.text, "Characters (code points)": s.code_points,
                   "UTF-16 units (JavaScript length)": s.utf16_units, "UTF-8 bytes": s.utf8_bytes,
                   "UTF-16 bytes": s.utf16_bytes, "UTF-32 bytes": s.utf32_bytes}
            for n in names:
                row[f"{n} tokens"] = len(tokens[n][i])
            rows.append(row)
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
