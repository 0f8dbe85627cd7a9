"""Images and PDFs in Chat messages: the "add image / PDF" uploader of each message (in its "More ⋯"
popover; the parts are listed under its text), and what each model row's maker says they cost
(engine.chat.media), with the rule's source and the steps.

Only the header is read (engine.formats.media_headers): an image's pixel size, a PDF's pages and their
MediaBox sizes.  The parts live in session state of their own (`state.CHAT_MEDIA`, by message uid), so
they survive other pages as the conversation does; the bytes are not kept, and the share code, the
JSON export and this browser's copy carry no parts (the page says so).
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from engine.chat.media import (DETAILS, OPENAI_RULES, RESOLUTIONS, RULES, MediaCount, MediaRule, NoRule, count_parts,
                               rule_for_encoding)
from engine.errors import MediaFileError
from engine.formats.media_headers import MAX_MEDIA_BYTES, MediaInfo, read_media
from playground import state
from playground.render.markdown import md

TYPES = ["png", "jpg", "jpeg", "webp", "gif", "pdf"]
MAX_PARTS = 8  # parts per message
NOT_SHARED = ("Images and PDFs are counted from their size only and stay in this session: the share code, the "
              "JSON export and this browser's copy do not carry them.")


def _store() -> dict[int, dict]:
    return st.session_state.setdefault(state.CHAT_MEDIA, {})


def parts_of(uid: int) -> list[dict]:
    """A message's parts: those kept from before the uploader was last drawn afresh, then the uploader's."""
    entry = _store().get(uid) or {}
    return list(entry.get("kept") or []) + list(entry.get("parts") or [])


def info_of(part: dict) -> MediaInfo:
    return MediaInfo(part["kind"], part["format"], part.get("width", 0), part.get("height", 0),
                     tuple(tuple(p) if p else None for p in part.get("pages") or ()))


def read_part(name: str, data: bytes) -> dict:
    """A stored part: the header's facts, or the reason the file was refused."""
    try:
        info = read_media(data, name)
    except MediaFileError as error:
        return {"name": name, "error": str(error)}
    return {"name": name, "kind": info.kind, "format": info.format, "width": info.width, "height": info.height,
            "pages": [list(p) if p else None for p in info.pages]}


def describe(part: dict) -> str:
    if "error" in part:
        return f"{part['name']}: not read: {part['error']}"
    if part["kind"] == "pdf":
        sizes = {tuple(round(v) for v in p) for p in part["pages"] if p}
        size = (f", {' / '.join(f'{w}×{h} pt' for w, h in sorted(sizes)[:3])}" if sizes else ", no MediaBox given")
        return f"{part['name']}: PDF, {len(part['pages']):,} page{'s' * (len(part['pages']) != 1)}{size}"
    return f"{part['name']}: {part['format'].upper()}, {part['width']:,}×{part['height']:,} px"


def _remove(uid: int, index: int) -> None:
    entry = _store().get(uid)
    if entry:
        kept = entry.get("kept") or []
        if index < len(kept):
            entry["kept"] = [p for i, p in enumerate(kept) if i != index]
        else:
            entry["parts"] = [p for i, p in enumerate(entry["parts"]) if i != index - len(kept)]


def uploader(uid: int) -> None:
    """The message's "add image / PDF" uploader.  Drawn in the message's "More ⋯" popover: a dropzone in every
    message box made each box 80 px taller (a phone's message went from one row and its text to three rows)."""
    key = f"{state.CHAT_MEDIA_UPLOAD_PREFIX}{uid}"
    # A fresh uploader (first drawn, or drawn again after another page, where Streamlit forgot its files) is empty
    # without the user having cleared it: the parts stay.  An uploader the user emptied clears them.
    fresh = key not in st.session_state
    files = st.file_uploader("add image / PDF", type=TYPES, accept_multiple_files=True,
                             key=key, max_upload_size=MAX_MEDIA_BYTES // 2**20,
                             help=f"PNG, JPEG, WebP, GIF or PDF, up to {MAX_MEDIA_BYTES // 2**20} MB and {MAX_PARTS} "
                                  "a message; only the size (a PDF's pages) is read. " + NOT_SHARED)
    entry = _store().setdefault(uid, {"sig": (), "parts": [], "kept": []})
    sig = tuple(f.file_id for f in files or ())
    if fresh and not sig and entry["parts"]:  # the uploader forgot its files: their parts are kept beside it
        entry["kept"] = entry.get("kept", []) + entry["parts"]
        entry["parts"] = []
    elif sig != entry["sig"]:  # the user added or removed files: read the new files' headers once
        new = []
        for f in (files or [])[:max(0, MAX_PARTS - len(entry.get("kept", [])))]:
            if f.size > MAX_MEDIA_BYTES:
                new.append({"name": f.name, "error": f"{f.size:,} bytes; a part holds at most {MAX_MEDIA_BYTES:,}"})
            else:
                new.append(read_part(f.name, f.getvalue()))
        entry["parts"] = new
    entry["sig"] = sig


def parts_list(uid: int) -> None:
    """The message's parts under its text, one line each (size or pages, or why a file was refused) with its
    remove button; nothing when it has none."""
    for i, part in enumerate(parts_of(uid)):
        with st.container(horizontal=True, vertical_alignment="center", gap="small"):
            (st.warning if "error" in part else st.caption)(md(describe(part), 600))
            st.button("✕", key=f"{state.CHAT_MEDIA_DEL_PREFIX}{uid}_{i}", on_click=_remove, args=(uid, i),
                      help="Leave this part out")


def _settings(rules: list[MediaRule | NoRule], names: list[str]) -> tuple[str, str, str]:
    openai = st.session_state.setdefault(state.CHAT_MEDIA_OPENAI, OPENAI_RULES[0])
    detail = st.session_state.setdefault(state.CHAT_MEDIA_DETAIL, "auto")
    resolution = st.session_state.setdefault(state.CHAT_MEDIA_RESOLUTION, "default")
    with st.container(horizontal=True, gap="small"):
        if "o200k_base" in names:
            openai = st.selectbox("OpenAI model for the o200k_base row", OPENAI_RULES, key=state.CHAT_MEDIA_OPENAI,
                                  format_func=lambda k: RULES[k].title, width=360)
        if any(isinstance(r, MediaRule) and r.setting == "detail" for r in rules) or "o200k_base" in names:
            detail = st.selectbox("detail (OpenAI)", DETAILS, key=state.CHAT_MEDIA_DETAIL, width=160)
        if any(isinstance(r, MediaRule) and r.setting == "media_resolution" for r in rules):
            resolution = st.selectbox("media_resolution (Gemini 3)", ("default",) + RESOLUTIONS,
                                      key=state.CHAT_MEDIA_RESOLUTION, width=200)
    return openai, detail, resolution


def _setting(rule: MediaRule | NoRule, detail: str, resolution: str) -> str:
    if isinstance(rule, MediaRule):
        return {"detail": detail, "media_resolution": resolution}.get(rule.setting, "")
    return ""


def _dashes(rows: list[dict], numbers: list[str]) -> list[dict]:
    """The rows with their counts written out ("1,105") and an uncounted cell as "—": a None cell reads "None"
    in st.dataframe (a Styler's na_rep did not reach it here)."""
    return [{k: (("—" if v is None else f"{v:,}") if k in numbers else v) for k, v in row.items()} for row in rows]


def counts(results: dict[str, tuple[Any, Any]], uids: list[int], labels: dict[str, str]) -> dict[str, int]:
    """Under the counts table: each row's image/PDF tokens by its maker's rule, beside its text count, with
    the rule and its source; the steps per part; and every maker's rule for the same parts.  Returns each
    row's image/PDF tokens where its rule counts them (the context window adds them to the row's text)."""
    parts = [p for uid in uids for p in parts_of(uid) if "error" not in p]
    if not parts or not results:
        return {}
    infos = [info_of(p) for p in parts]
    names = list(results)
    openai = st.session_state.get(state.CHAT_MEDIA_OPENAI, OPENAI_RULES[0])
    st.markdown(f"**Images and PDFs** — {len(parts)} part{'s' * (len(parts) != 1)}, counted by each maker's "
                "published rule (sizes only)")
    openai, detail, resolution = _settings([rule_for_encoding(n, openai) for n in names], names)
    rows, steps, counted = [], [], {}
    for name, (_enc, r) in results.items():
        rule = rule_for_encoding(name, openai)
        total, each = count_parts(rule, infos, _setting(rule, detail, resolution))
        if total:
            counted[name] = total
        text = None if isinstance(r, str) else r.count
        note = next((c.note for c in each if c.tokens is None and c.note), "")
        # image/PDF tokens first after the model: a phone shows the first columns
        rows.append({"model": labels.get(name, name), "image/PDF tokens": total, "text tokens": text,
                     "total": text + total if text is not None and total is not None else None,
                     "rule": rule.title if isinstance(rule, MediaRule) else note,
                     "source": f"{rule.source.title} ({rule.source.url}), read {rule.source.read_on}"
                     if isinstance(rule, MediaRule) else ""})
        steps.append((labels.get(name, name), rule, each))
    st.dataframe(_dashes(rows, ["text tokens", "image/PDF tokens", "total"]), hide_index=True, key=state.CHAT_MEDIA_TABLE,
                 column_config={"rule": st.column_config.TextColumn(width="large"),
                                "source": st.column_config.TextColumn(width="large"),
                                **{c: st.column_config.TextColumn(c) for c in ("text tokens", "image/PDF tokens", "total")}})
    for label, rule, each in steps:  # the table's cells are cut on a phone: each row's reason in full
        if isinstance(rule, NoRule):
            st.caption(f"**{md(label)}**: {md(rule.note)}")
        elif rule.caveat:
            st.caption(f"**{md(label)}** ({md(rule.title)}): {md(rule.caveat, 400)}")
        if isinstance(rule, MediaRule) and any(c.tokens is None for c in each):
            st.caption(f"**{md(label)}**: " + md("; ".join(dict.fromkeys(c.note for c in each if c.note)), 400))
    st.caption(md(NOT_SHARED, 400))
    with st.expander("How each part was counted"):
        for label, rule, each in steps:
            if isinstance(rule, NoRule):
                continue
            st.markdown(f"**{md(label)}** · {md(rule.title)} · [{md(rule.source.title)}]({rule.source.url}) "
                        f"(read {rule.source.read_on})")
            if rule.caveat:
                st.caption(f"Caveat: {md(rule.caveat, 400)}")
            for part, c in zip(parts, each):
                body = " → ".join(c.steps) if c.tokens is not None else c.note
                st.caption(md(f"{describe(part)}: {body}", 800))
    with st.expander("Every maker's rule on these parts"):
        table = []
        for key, rule in RULES.items():
            total, _ = count_parts(rule, infos, _setting(rule, detail, resolution))
            table.append({"rule": rule.title, "maker": rule.maker, "tokens": total, "caveat": rule.caveat,
                          "source": f"{rule.source.title} ({rule.source.url}), read {rule.source.read_on}"})
        st.dataframe(_dashes(table, ["tokens"]), hide_index=True, key=state.CHAT_MEDIA_RULES_TABLE)
    return counted
