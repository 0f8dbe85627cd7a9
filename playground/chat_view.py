"""Chat formats: what a conversation costs each model, template tokens and all.

The user builds a conversation (system / user / assistant / tool messages; add,
remove, reorder; a name, a tool-call id, a tool call) and picks models; each
model's chat format (engine.chat) turns it into the exact token sequence the
model reads.  A table gives the counts -- the reply priming included -- and a
drawing per model shows template tokens (grey, dashed) apart from content
tokens (coloured by id); hover shows the id.

The conversation lives in session state of its own (`K_MESSAGES`), so it
survives other pages.  The conversation and the chosen models, packed
(compact JSON, deflated, base64), are the *share code* (`K_CONV`): a field at
the foot of the page, set just before it is drawn, that a user can also paste
into.  The share link carries that code when it fits `state.url_limit(K_CONV)` (4,000
characters); longer conversations travel as the code or as exported JSON.
"""
from __future__ import annotations

import base64
import json
import zlib
from typing import Any

import streamlit as st

import engine
from engine.chat import FIELDS, FORMAT_OF_ENCODING, FORMATS, ROLES, ChatFormatError, Message
from playground import encodings, html, state
from playground.drawing import draw, header
from playground.escaping import md

K_MESSAGES = "chat_messages"  # [{"uid": int, "role", "content", "name", "tool_call_id", "call"}]
K_NEXT = "chat_next_uid"
K_PICK = "chat_models"  # the models multiselect
K_CONV = "chat_conv"  # the share code: conversation + models, packed (a widget; in the share link)
K_CODE_ERROR = "chat_code_error"
K_IMPORT = "chat_import"
K_IMPORTED = "chat_imported_file"

MAX_MESSAGES = 40
MAX_CONTENT = 20_000  # characters per message
MAX_IMPORT_BYTES = 200_000
MAX_MODELS = 6
MAX_INFLATED = 200_000  # bytes a share-link conversation may inflate to

MODEL_LABELS = {
    "cl100k_base": "GPT-3.5 / GPT-4 (cl100k_base)",
    "o200k_base": "GPT-4o / 4.1 / o3 (o200k_base)",
    "o200k_harmony": "gpt-oss, Harmony (o200k_harmony)",
    "llama3": "Llama 3.x (llama3)",
    "llama4": "Llama 4 (llama4)",
    "qwen2.5": "Qwen 2.5 / 3 (qwen2.5)",
    "qwen3.6": "Qwen 3.5 / 3.6 (qwen3.6)",
    "mistral-v1": "Mistral 7B v0.1 (mistral-v1)",
    "mistral-v3": "Mistral v0.3 (mistral-v3)",
    "mistral-tekken": "Mistral NeMo and later (mistral-tekken)",
    "deepseek-v4": "DeepSeek V4 (deepseek-v4)",
}
DEFAULT_MODELS = ["o200k_base", "llama3", "qwen2.5"]
DEFAULT_CONVERSATION = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What is the capital of France?"},
    {"role": "assistant", "content": "Paris."},
    {"role": "user", "content": "And of Japan? 日本"},
]


# ------------------------------------------------------------------ conversation <-> text
def to_json(messages: list[dict]) -> str:
    """The export file: {"messages": [...], "models": [...]}."""
    plain = [Message.from_dict(_fields(m)).to_dict() for m in messages]
    return json.dumps({"messages": plain, "models": _picked()}, ensure_ascii=False, indent=1)


def parse_json(data: bytes) -> tuple[list[dict], list[str]]:
    """Messages and models from an export file; ChatFormatError says what is wrong."""
    if len(data) > MAX_IMPORT_BYTES:
        raise ChatFormatError(f"the file has {len(data):,} bytes; the limit is {MAX_IMPORT_BYTES:,}: import a shorter conversation")
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise ChatFormatError(f"not a JSON file ({error}): export one from this page to see the shape") from None
    if isinstance(doc, list):
        doc = {"messages": doc}
    if not isinstance(doc, dict) or not isinstance(doc.get("messages"), list):
        raise ChatFormatError('expected {"messages": [{"role": ..., "content": ...}, ...]} (or just the list)')
    return _checked(doc["messages"]), [m for m in doc.get("models") or [] if m in FORMAT_OF_ENCODING][:MAX_MODELS]


def _checked(raw: list[Any]) -> list[dict]:
    if len(raw) > MAX_MESSAGES:
        raise ChatFormatError(f"{len(raw)} messages; the limit is {MAX_MESSAGES}: remove some")
    out = []
    for i, item in enumerate(raw):
        try:
            m = Message.from_dict(item)
        except ChatFormatError as error:
            raise ChatFormatError(f"message {i + 1}: {error}") from None
        if len(m.content) > MAX_CONTENT:
            raise ChatFormatError(f"message {i + 1} has {len(m.content):,} characters; the limit is {MAX_CONTENT:,}")
        out.append(m.to_dict())
    return out


def pack(messages: list[dict], models: list[str]) -> str:
    """The share code: ``[models, rows]`` as compact JSON, deflated, URL-safe base64."""
    rows = [[m.get(k) or "" for k in FIELDS] for m in messages]
    raw = json.dumps([",".join(models), rows], ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")


def unpack(text: str) -> tuple[list[dict], list[str]]:
    """`pack` undone, every value checked (a link or a pasted code may hold anything)."""
    try:
        data = base64.urlsafe_b64decode(text.strip() + "=" * (-len(text.strip()) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(data, MAX_INFLATED)
        too_large = bool(inflater.unconsumed_tail)
        doc = None if too_large else json.loads(raw.decode("utf-8"))
    except (ValueError, zlib.error, UnicodeDecodeError):
        raise ChatFormatError("the share code is damaged: copy it again, whole") from None
    if too_large:
        raise ChatFormatError(f"the share code's conversation is too large (over {MAX_INFLATED:,} bytes)")
    if not (isinstance(doc, list) and len(doc) == 2 and isinstance(doc[0], str) and isinstance(doc[1], list)
            and all(isinstance(r, list) and len(r) == len(FIELDS) for r in doc[1])):
        raise ChatFormatError("the share code is damaged: copy it again, whole")
    models = [m for m in dict.fromkeys(doc[0].split(",")) if m in FORMAT_OF_ENCODING][:MAX_MODELS]
    return _checked([dict(zip(FIELDS, r)) for r in doc[1]]), models


# ------------------------------------------------------------------ state
def _fields(m: dict) -> dict:
    return {k: m.get(k) or ("" if k == "content" else None) for k in FIELDS}


def _new_uid() -> int:
    uid = st.session_state.get(K_NEXT, 0)
    st.session_state[K_NEXT] = uid + 1
    return uid


def _set_messages(messages: list[dict]) -> None:
    st.session_state[K_MESSAGES] = [{**_fields(m), "uid": _new_uid()} for m in messages]


def _init() -> None:
    if K_MESSAGES in st.session_state:
        return
    messages, models = DEFAULT_CONVERSATION, DEFAULT_MODELS
    code = st.session_state.get(K_CONV)
    if isinstance(code, str) and code:  # from the share link
        try:
            messages, models = unpack(code)
        except ChatFormatError as error:
            st.warning(f"The link's conversation was not loaded: {md(error)}. Showing the example.")
    _set_messages(messages)
    st.session_state.setdefault(K_PICK, models)


def _picked() -> list[str]:
    return [n for n in st.session_state.get(K_PICK) or [] if n in FORMAT_OF_ENCODING][:MAX_MODELS]


def _clear_widgets() -> None:
    for m in st.session_state.get(K_MESSAGES, []):
        for field in FIELDS:
            st.session_state.pop(f"chat_{field}_{m['uid']}", None)


def _on_code() -> None:
    """A pasted share code replaces the conversation and the models (or says what is wrong)."""
    try:
        messages, models = unpack(st.session_state.get(K_CONV) or "")
    except ChatFormatError as error:
        st.session_state[K_CODE_ERROR] = str(error)
        return
    _clear_widgets()
    _set_messages(messages)
    st.session_state[K_PICK] = models


def _add(role: str) -> None:
    messages = list(st.session_state[K_MESSAGES])
    if len(messages) < MAX_MESSAGES:
        st.session_state[K_MESSAGES] = messages + [{**_fields({"role": role}), "uid": _new_uid()}]


def _move(uid: int, step: int) -> None:
    messages = list(st.session_state[K_MESSAGES])
    i = next(k for k, m in enumerate(messages) if m["uid"] == uid)
    j = i + step
    if 0 <= j < len(messages):
        messages[i], messages[j] = messages[j], messages[i]
        st.session_state[K_MESSAGES] = messages


def _remove(uid: int) -> None:
    st.session_state[K_MESSAGES] = [m for m in st.session_state[K_MESSAGES] if m["uid"] != uid]
    for field in FIELDS:
        st.session_state.pop(f"chat_{field}_{uid}", None)


# ------------------------------------------------------------------ drawing
def token_chips(result: engine.chat.ChatTokens, enc: Any) -> list[tuple[str, str, int | None, bool, int]]:
    """(kind, text, id, special, message) per token, for html.chat_tokens."""
    out = []
    for seg in result.segments:
        for token_id in seg.ids:
            if token_id is None:
                out.append((seg.kind, seg.text, None, False, seg.message))
                continue
            data = enc.decode_single_token_bytes(token_id)
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = f"‹{html.hex_bytes(data)}›"
            out.append((seg.kind, text, token_id, enc.is_special_token(token_id), seg.message))
    return out


# ------------------------------------------------------------------ the page
def render() -> None:
    header("Chat formats", "what a conversation costs each model: template tokens, content tokens, reply priming.")
    st.markdown("\n".join(line for line in html.CHAT_STYLE.splitlines() if line.strip()), unsafe_allow_html=True)
    _init()
    _import_export()
    _editor()
    messages = [_fields(m) for m in st.session_state[K_MESSAGES]]
    _results(messages)
    _share(messages)


def _share(messages: list[dict]) -> None:
    """The share code, set just before its field is drawn (so it always matches the page)."""
    code = pack(messages, _picked())
    st.session_state[K_CONV] = code
    error = st.session_state.pop(K_CODE_ERROR, None)
    if error:
        st.error(f"**That share code was not used:** {md(error, 600)}")
    st.text_input("Share code (paste one here to load its conversation)", key=K_CONV, persist_state="session",
                  on_change=_on_code, help="The conversation and models, packed. The page's link carries it "
                  f"when it is at most {state.url_limit(K_CONV)} characters.")
    if len(code) > state.url_limit(K_CONV):
        st.caption(f"This conversation is too long for the share link ({len(code):,} characters packed, "
                   f"{state.url_limit(K_CONV)} fit): pass on the share code or the exported JSON.")


def _import_export() -> None:
    with st.expander("Import / export JSON"):
        upload = st.file_uploader("Import a conversation (JSON, up to 200 KB)", type=["json"], key=K_IMPORT,
                                  max_upload_size=1)
        if upload is not None and st.session_state.get(K_IMPORTED) != upload.file_id:
            st.session_state[K_IMPORTED] = upload.file_id
            try:
                messages, models = parse_json(upload.getvalue())
            except ChatFormatError as error:
                st.error(f"**Not imported:** {md(error, 600)}")
            else:
                _clear_widgets()
                _set_messages(messages)
                if models:
                    st.session_state[K_PICK] = models
                st.success(f"Imported {html.plural(len(messages), 'message')}.")
        st.download_button("Export JSON", to_json(st.session_state[K_MESSAGES]), file_name="conversation.json",
                           mime="application/json", key="chat_export", on_click="ignore")


def _editor() -> None:
    st.subheader("Conversation")
    messages = [dict(m) for m in st.session_state[K_MESSAGES]]
    for i, m in enumerate(messages):
        uid = m["uid"]
        for field in FIELDS:
            st.session_state.setdefault(f"chat_{field}_{uid}", m.get(field) or ("user" if field == "role" else ""))
        with st.container(border=True):
            c_role, c_name, c_id, c_call, c_up, c_down, c_del = st.columns([2, 2, 2, 2, 0.6, 0.6, 0.6],
                                                                           vertical_alignment="bottom")
            role = c_role.selectbox(f"Message {i + 1}", ROLES, key=f"chat_role_{uid}")
            name = c_name.text_input("name", key=f"chat_name_{uid}", max_chars=64,
                                     help="The speaker's name (OpenAI, Harmony) or, on a tool message, the tool's name.")
            call_id = c_id.text_input("tool call id", key=f"chat_tool_call_id_{uid}", max_chars=64,
                                      disabled=role not in ("assistant", "tool"),
                                      help="Ties a tool result to its call (Mistral v3 needs it).")
            call = c_call.text_input("calls tool", key=f"chat_call_{uid}", max_chars=64, disabled=role != "assistant",
                                     help="Make this assistant message a tool call: the content is then its JSON arguments.")
            c_up.button("↑", key=f"chat_up_{uid}", on_click=_move, args=(uid, -1), disabled=i == 0, help="Move up")
            c_down.button("↓", key=f"chat_down_{uid}", on_click=_move, args=(uid, 1), disabled=i == len(messages) - 1,
                          help="Move down")
            c_del.button("✕", key=f"chat_del_{uid}", on_click=_remove, args=(uid,), help="Remove")
            content = st.text_area("content", key=f"chat_content_{uid}", max_chars=MAX_CONTENT, height=68,
                                   label_visibility="collapsed", placeholder=f"{role} message")
        m.update(role=role, name=name or None, content=content, tool_call_id=call_id if role in ("assistant", "tool") else None,
                 call=(call or None) if role == "assistant" else None)
    st.session_state[K_MESSAGES] = messages
    cols = st.columns(len(ROLES) + 1)
    for col, role in zip(cols, ROLES):
        col.button(f"+ {role}", key=f"chat_add_{role}", on_click=_add, args=(role,),
                   disabled=len(messages) >= MAX_MESSAGES, width="stretch")
    if len(messages) >= MAX_MESSAGES:
        st.caption(f"A conversation here holds at most {MAX_MESSAGES} messages.")


def _results(messages: list[dict]) -> None:
    st.subheader("Tokens per model")
    st.session_state.setdefault(K_PICK, list(DEFAULT_MODELS))
    picked = st.multiselect("Models", list(FORMAT_OF_ENCODING), key=K_PICK, max_selections=MAX_MODELS,
                            persist_state="session", format_func=lambda n: MODEL_LABELS.get(n, n),
                            help="Each model's own chat format; counts include the tokens that prime the reply.")
    if not picked:
        st.info("Pick one or more models to see their token counts.")
        return
    if not messages:
        st.info("Add a message to see what it costs.")
        return
    conversation = json.dumps(messages, ensure_ascii=False)
    results = {name: (encodings.resolve(name), encodings.chat_tokens(name, encodings.resolve(name), conversation)) for name in picked}
    rows = []
    for name, (_enc, r) in results.items():
        fmt = FORMATS[FORMAT_OF_ENCODING[name]]
        ok = not isinstance(r, str)
        rows.append({"model": MODEL_LABELS.get(name, name), "format": fmt.title,
                     "status": "ok" if ok else "cannot express this conversation (see below)",
                     "tokens": r.count if ok else None, "template": r.template_count if ok else None,
                     "content": r.content_count if ok else None, "prime the reply": r.priming if ok else None,
                     "checked against": fmt.checked_against})
    st.dataframe(rows, hide_index=True, key="chat_table")
    st.markdown(html.chat_legend(), unsafe_allow_html=True)
    for name, (enc, r) in results.items():
        label = MODEL_LABELS.get(name, name)
        if isinstance(r, str):
            st.markdown(f"**{md(label)}**")
            st.warning(f"{md(r, 600)}")
            continue
        st.markdown(f"**{md(label)}** · {html.plural(r.count, 'token')} "
                    f"({r.template_count:,} template, {r.content_count:,} content; "
                    f"{html.plural(r.priming, 'token')} prime the reply)")
        draw(html.chat_tokens(token_chips(r, enc), f"chat-{html.slug(name)}"), key=f"chat_tokens_{name}")
        if r.note:
            st.caption(md(r.note, 400))
