"""The Chat formats page's Gemini rows: their labels, and the request they count as Google's API takes it.

A Gemini row's count is what google-genai 3.3.0's ``LocalTokenizer.count_tokens`` answers offline for the
conversation's request (engine.chat.gemini): the texts of ``contents`` / ``parts``, the tools' function
declarations and ``systemInstruction``, each encoded alone with the Gemma vocabulary the SDK maps the model
to.  This module shows that request, so the user sees exactly what was counted.
"""
from __future__ import annotations

import json
from typing import Any

import streamlit as st

import engine
from engine.chat import ChatFormatError, gemini
from playground.render.markdown import md

MODEL_LABELS = {
    "gemini-2.5": "Gemini 2.0 / 2.5 / 3 preview (gemma3, Google's SDK count)",
    "gemini-3.1": "Gemini 3.1 / 3.5 (gemma4, Google's SDK count)",
}
MAX_SHOWN_CHARS = 60_000  # a longer request is summarised, not drawn as a JSON tree (the export has it whole)


def _request(messages: list[dict], tools: list[dict]) -> dict | None:
    try:
        return gemini.request_of(engine.chat.as_messages(messages), tools)
    except ChatFormatError:
        return None  # the row's own status says why it is not counted


def render(results: dict[str, tuple[Any, Any]], messages: list[dict], tools: list[dict]) -> None:
    """For the picked Gemini rows that were counted: which models they stand for, the rule, and the request."""
    rows = [name for name, (_enc, r) in results.items() if name in gemini.ROW_ENCODING and not isinstance(r, str)]
    if not rows:
        return
    request = _request(messages, tools)
    if request is None:
        return
    with st.expander("Gemini's request, as Google's API takes it (what its rows count)"):
        for name in rows:
            models = ", ".join(gemini.ROW_MODELS[name])
            bos = gemini.BOS_PER_TEXT[gemini.ROW_ENCODING[name]]
            st.markdown(f"**{md(MODEL_LABELS[name])}** counts {md(models, 600)} with "
                        f"`{gemini.ROW_ENCODING[name]}`" + (" and one `<bos>` per text" if bos else "") + ".")
        st.caption(f"The count is {gemini.SDK}'s offline LocalTokenizer.count_tokens: every text of the request "
                   "(parts, function calls' names and arguments, function responses, the tools' names, descriptions "
                   "and schema words, the system instruction) encoded on its own and added up; no template and no "
                   "reply priming. Numbers and true/false in arguments, a schema's type and title cost nothing "
                   "there. Google's API may count the same request differently.")
        text = json.dumps(request, ensure_ascii=False, indent=1)
        if len(text) > MAX_SHOWN_CHARS:
            st.caption(f"The request is {len(text):,} characters of JSON: too long to draw here "
                       f"(at most {MAX_SHOWN_CHARS:,}).")
        else:
            st.json(request, expanded=2)
