"""Train your own: learn a BPE vocabulary from your text, or upload a tokenizer, then compare it.

Training runs `engine.train_bpe` (minbpe's exact merges) with a progress bar
and a live log of merges.  The result -- its compression curve, its merges
with counts and ties, and its files (minbpe ``.model``/``.vocab``, tiktoken
ranks) -- belongs to this session only: it lives in `st.session_state`,
is registered with `state.add_custom` under a name that contains a hash of
its content, and is never cached across users or written to disk.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

import engine
from engine.tokenizer.patterns import CL100K_PAT_STR, O200K_PAT_STR, R50K_PAT_STR, SPLIT_TIMEOUT, compile_pattern
from engine.tokenizer.special_tokens import check_special_tokens
from engine.formats.minbpe import render_token
import engine.sources.uploads
from engine.formats import file_kinds
from engine.sources import local_files
from engine.sources.uploads import MAX_FILE_BYTES, MODEL_KINDS
from playground import state
from playground.cache import memo, uploads
from playground.render import html
from playground.render.markdown import md
from playground.serving import jobs
from playground.widgets import charts, pickers, train_lab, unigram_training
from playground.widgets.page import header
from playground.widgets.text_fields import text_field

MAX_TEXT_BYTES = 2_000_000  # training text cap, box and upload alike
MAX_PATTERN_CHARS = 2_000  # custom split pattern
MAX_SPECIALS_CHARS = 2_000  # the special-tokens box
TRAIN_TIMEOUT = 180.0  # seconds a training job may run
# The same cap for the uploader (which refuses a bigger file in the browser, before sending it) and for
# the server (.streamlit/config.toml's server.maxUploadSize, which must equal this: a test compares them).
# Streamlit counts both in MiB, so a file of 40.0-41.9 MB reaches the engine, which names its limit.
UPLOAD_LIMIT_MB = MAX_FILE_BYTES // 1_000_000
MIN_VOCAB, MAX_VOCAB, DEFAULT_VOCAB = 257, 4096, 512
LOG_LINES = 12
PATTERNS = {
    "none (raw bytes)": None,
    "gpt2": R50K_PAT_STR,
    "cl100k_base": CL100K_PAT_STR,
    "o200k_base": O200K_PAT_STR,
    "custom": "",
}
TRAIN_PANES = ["Compression curve", "Merges"]  # what a trained tokenizer's report shows
# Said where a tokenizer is made: it lives in the server's memory for this tab's session, and a reload starts a new
# one (after it, widgets/browser_memory.py names what was cleared).
KEPT_TRAINED = ("Kept for this tab only: a reload clears it — download it to keep it (the .tiktoken file loads "
                "again below, as a rank file).")
KEPT_UPLOADED = "Kept for this tab only: a reload clears it — keep your file to load it again."
DETECT = "Any tokenizer file"  # the kind is read from the content (engine.sources.uploads.load_files)
UPLOAD_KINDS = [DETECT, "tiktoken rank file", "encoder.json + vocab.bpe", "minbpe .model", "tokenizer.json (Hugging Face)",
                "SentencePiece .model", "Tekken .json (Mistral)"]
ENGINE_KINDS = dict(zip(UPLOAD_KINDS, ("detected", "tiktoken", "data_gym", "minbpe", "tokenizer.json", "sentencepiece",
                                       "tekken")))
UPLOAD_LABELS = {
    DETECT: "Tokenizer file(s): tokenizer.json, tokenizer.model, tekken.json, a GGUF model, vocab.txt (WordPiece), "
            "or vocab.json and merges.txt together",
    "tiktoken rank file": "Rank file (.tiktoken: '<base64> <rank>' lines)",
    "encoder.json + vocab.bpe": "vocab.bpe",
    "minbpe .model": "minbpe .model file",
    "tokenizer.json (Hugging Face)": "tokenizer.json (any model type: BPE as Llama 3's, Qwen's or DeepSeek's, WordPiece, "
                                     "Unigram, WordLevel)",
    "SentencePiece .model": "SentencePiece tokenizer.model (BPE or Unigram, e.g. Mistral 7B's, Llama 2's or T5's)",
    "Tekken .json (Mistral)": "Mistral tekken_*.json",
}
SAMPLE_TEXT = (
    "Byte pair encoding starts from single bytes and keeps merging the most frequent pair. "
    "The pair that appears most often in the text becomes a new token, then the counting starts again. "
    "Frequent words such as the, and, of and in become single tokens first; rare words stay in pieces. "
    "Train a vocabulary on your own text, then compare it with GPT-2 and cl100k_base!\n"
) * 4

# This view's own session keys (widgets and results).
T_TEXT = state.TRAIN_TEXT
T_FILE = state.TRAIN_FILE
T_REPLACE = state.TRAIN_REPLACE
T_VOCAB = state.TRAIN_VOCAB
T_PATTERN = state.TRAIN_PATTERN
T_CUSTOM = state.TRAIN_CUSTOM_PATTERN
T_SPECIALS = state.TRAIN_SPECIALS
T_GO = state.TRAIN_GO
T_RESULT = state.TRAIN_RESULT  # the trained engine.Encoding
T_PANE = state.TRAIN_PANE
T_USE = state.TRAIN_USE
T_FLASH = state.TRAIN_FLASH  # the name "Use in Compare" selected last (a message while it stays selected)
T_PENDING = state.TRAIN_PENDING_NOTICES  # notices "Use in Compare" raised, for the page it goes to
U_KIND = state.UPLOAD_KIND
U_FILE = state.UPLOAD_FILE
U_JSON = state.UPLOAD_ENCODER_JSON
U_PATTERN = state.UPLOAD_PATTERN
U_CUSTOM = state.UPLOAD_CUSTOM_PATTERN
U_SPECIALS = state.UPLOAD_SPECIALS
U_GO = state.UPLOAD_GO
U_RESULT = state.UPLOAD_RESULT  # the name of the tokenizer loaded last (held by playground.cache.uploads)
U_USE = state.UPLOAD_USE
U_ROUND = state.UPLOAD_ROUND
U_NAME = state.UPLOAD_NAME  # the name the user gives the next upload
U_SUGGESTED = state.UPLOAD_SUGGESTED_NAME  # the name the box was filled with (kept unless the user typed another)
L_PICK = state.LOCAL_PICK  # the tokenizer on this machine picked in the list (its label)
L_GO = state.LOCAL_GO


# ------------------------------------------------------------ plain helpers
@dataclass(frozen=True)
class DecodedText:
    text: str | None
    error: str | None = None
    warning: str | None = None


def decode_upload(data: bytes, filename: str, *, replace: bool, limit: int = MAX_TEXT_BYTES) -> DecodedText:
    """Text of an uploaded file: size cap, strict UTF-8 unless `replace`."""
    if len(data) > limit:
        return DecodedText(None, f"{md(filename)} is {len(data) / 1e6:.1f} MB; the limit is {limit / 1e6:.0f} MB. "
                                 "Upload a smaller part of it.")
    try:
        return DecodedText(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        if not replace:
            line = data[: exc.start].count(b"\n") + 1
            return DecodedText(None, f"{md(filename)} is not UTF-8 ({exc.reason} at byte {exc.start}, line {line}). "
                                     "Tick 'Decode with replacement' to turn the bad bytes into �, or save it as UTF-8.")
    text = data.decode("utf-8", errors="replace")
    n_bad = text.count("\ufffd") - data.decode("utf-8", errors="ignore").count("\ufffd")
    return DecodedText(text, warning=f"{n_bad} invalid byte sequence(s) in {md(filename)} were replaced by �.")


def parse_specials(text: str) -> list[str]:
    """Space-separated special tokens; ValueError with the reason."""
    return check_special_tokens(text.split())


def pattern_for(choice: str, custom: str) -> str | None:
    """The split pattern for a choice of `PATTERNS`; ValueError for a bad custom one."""
    if choice != "custom":
        return PATTERNS[choice]
    if not custom.strip():
        raise ValueError("enter a custom split pattern, e.g. ` ?\\p{L}+| ?\\p{N}+|\\s+`")
    compile_pattern(custom)
    return custom


def shown(token: bytes) -> str:
    """A token for the merges table: minbpe's rendering, with spaces as ␣ (the glyph of every token view)."""
    return render_token(token).replace(" ", html.SPACE)


def merges_frame(enc: engine.Encoding) -> pd.DataFrame:
    token = enc.decode_single_token_bytes
    return pd.DataFrame([{
        "rank": m.rank,
        "id": m.new_id,
        "left": shown(token(m.pair[0])),
        "right": shown(token(m.pair[1])),
        "merged": shown(m.bytes),
        "count": m.count,
        "tie": "tie" if m.tied else "",
    } for m in enc.training.merges])


# The compression curve as a Vega-Lite spec written out: built with Altair, every rerun of this page
# after a training would validate the chart against the Vega-Lite schema on the server.
CURVE_SPEC = {
    "mark": {"type": "line"},
    "encoding": {
        "x": {"field": "vocab size", "type": "quantitative", "title": "vocabulary size"},
        "y": {"field": "bytes/token", "type": "quantitative", "title": "bytes per token (training text)",
              "scale": {"zero": False}},
        "tooltip": [{"field": "vocab size", "type": "quantitative"},
                    {"field": "bytes/token", "type": "quantitative", "format": ".3f"}],
    },
}


def curve_frame(report: engine.TrainingReport) -> pd.DataFrame:
    counts = report.token_counts()
    return pd.DataFrame({
        "vocab size": [256 + k for k in range(len(counts))],
        "bytes/token": [report.n_bytes / c if c else 0.0 for c in counts],
    })


def model_files(enc: engine.Encoding) -> dict[str, tuple[str | bytes, str]]:
    """{file name: (content, mime)} for the download buttons."""
    stem = enc.name
    return {
        f"{stem}.model": (engine.formats.minbpe.dump_minbpe_model(enc), "text/plain"),
        f"{stem}.vocab": (engine.formats.minbpe.dump_minbpe_vocab(enc), "text/plain"),
        f"{stem}.tiktoken": (engine.formats.tiktoken_files.dump_tiktoken_bpe(dict(enc.mergeable_ranks)), "text/plain"),
    }


def load_tokenizer(
    kind: str,
    main_file: tuple[str, bytes],
    encoder_json: tuple[str, bytes] | None,
    pat_str: str | None,
    specials: list[str],
) -> engine.Encoding:
    """An `Encoding` from an uploaded tokenizer (`engine.load_tokenizer`); ValueError naming file and line."""
    return engine.load_tokenizer(ENGINE_KINDS[kind], main_file, encoder_json, pat_str, specials)


# ------------------------------------------------------------- callbacks
def use_in_compare(result_key: str) -> None:
    """Register the session's tokenizer and select it in the sidebar (runs before the rerun)."""
    found = st.session_state.get(result_key)
    if isinstance(found, str):  # an upload: registered when it was loaded
        if found not in st.session_state.get(state.CUSTOM, {}):
            return
        name = found
    elif found is None:
        return
    else:
        before = len(st.session_state.get(state.NOTICES, []))
        try:
            name = state.add_custom(found)
        except ValueError as exc:  # the server's memory budget for tokenizers, a name taken
            state.notify("error", str(exc))
            return
        st.session_state[T_PENDING] = list(st.session_state.get(state.NOTICES, [])[before:])
    state.select(name, make_room=True)  # chosen as the run this callback starts begins
    st.session_state[T_FLASH] = name


def _use_button(label: str, key: str, result_key: str, **kwargs) -> None:
    """"Use in Compare": select the tokenizer (callback), then go to Compare, as the Gallery's buttons do."""
    if st.button(label, key=key, on_click=use_in_compare, args=(result_key,), **kwargs):
        pending = st.session_state.pop(T_PENDING, [])
        if st.session_state.get(T_FLASH) in st.session_state.get(state.ENCODINGS, []):
            # This run showed the callback's notices ("your oldest tokenizer was removed"), and switching
            # page discards what it drew: the page it goes to shows them again.
            for kind, text in pending:
                state.notify(kind, text)
            pickers.go("compare")
            state.take_notices()  # still here: no page to switch to (the AppTest harness), already shown


def uploader_key(kind: str, loads: int) -> str:
    """The key of `kind`'s file uploader after `loads` loads from the detecting uploader.

    That uploader takes several files, and a browser adds the next file beside the ones it holds, so a second
    upload was read together with the first (and refused as a pair that is none): each load moves it to a new
    key, empty for the next file.  The one-file uploaders keep theirs (a new file replaces the old one), so the
    same rank file can be loaded again with another split pattern."""
    return f"{U_FILE}_{UPLOAD_KINDS.index(kind)}" + (f"_{loads}" if kind == DETECT and loads else "")


def _name_kind(kind: str) -> str:
    """What a default name says when the file's own name is generic ("my-tokenizer" for a detected kind)."""
    return "tokenizer" if kind == DETECT else ENGINE_KINDS[kind]


def _on_new_file(key: str, kind: str) -> None:
    """A new file in an uploader (or none): the last result no longer describes it, so it goes (a
    failure must never sit under an old "Loaded …"); the name box gets a name from the file."""
    st.session_state.pop(U_RESULT, None)
    upload = st.session_state.get(key)
    if isinstance(upload, list):  # the detecting uploader takes one or two files
        upload = upload[0] if upload else None
    if upload is not None:
        st.session_state[U_NAME] = st.session_state[U_SUGGESTED] = uploads.suggest_name(upload.name, _name_kind(kind))


# --------------------------------------------------------------- training
def train_with_progress(text: str, vocab_size: int, pat_str: str | None, specials: list[str]) -> engine.Encoding:
    """Train in a job process (`playground.serving.jobs`), drawing a progress bar and the latest merges."""
    bar = st.progress(0.0, text="Counting pairs…")
    log = st.empty()
    lines: list[str] = []
    last = [0.0]

    def progress(updates: list[tuple[int, int, engine.MergeInfo]]) -> None:
        for i, total, info in updates[-LOG_LINES:]:  # a batch of merges since the last message, in order
            lines.append(f"{i:5d}  {info.pair[0]:>5} + {info.pair[1]:<5} -> {info.new_id:5d}  "
                         f"{render_token(info.bytes)!r:<24} count {info.count}{'  (tie)' if info.tied else ''}")
        del lines[:-LOG_LINES]
        i, total, _ = updates[-1]
        now = time.perf_counter()
        if now - last[0] > 0.15 or i == total:
            last[0] = now
            bar.progress(i / total, text=f"Merge {i} of {total}")
            log.code("\n".join(lines), language=None)

    key = ("train", vocab_size, pat_str, tuple(specials), memo.text_key(text))
    enc = jobs.cached_run(key, len(text), "train", (text, vocab_size, pat_str, specials),
                          label=f"Training on {len(text):,} characters", timeout=TRAIN_TIMEOUT,
                          on_progress=progress)
    bar.progress(1.0, text=enc.training.message)
    return enc


def _training_text() -> str | None:
    upload = st.file_uploader("…or upload a text file (UTF-8, up to 2 MB)", type=None, key=T_FILE, max_upload_size=2)
    if upload is None:
        return st.session_state[T_TEXT]
    st.checkbox("Decode with replacement (bad bytes become �)", key=T_REPLACE, persist_state="session")
    decoded = decode_upload(upload.getvalue(), upload.name, replace=st.session_state.get(T_REPLACE, False))
    if decoded.error:
        st.error(decoded.error)
    if decoded.warning:
        st.warning(decoded.warning)
    if decoded.text is not None:
        st.caption(f"Training on {md(upload.name)} ({len(decoded.text):,} characters); remove the file to use the box above.")
    return decoded.text


def _settings() -> tuple[int, str | None, list[str]] | None:
    cols = st.columns([1, 1, 1])
    vocab = cols[0].number_input("Vocabulary size", MIN_VOCAB, MAX_VOCAB, key=T_VOCAB, persist_state="session", step=64,
                                 help="256 byte tokens + one token per merge (special tokens come on top).")
    choice = cols[1].selectbox("Split pattern", list(PATTERNS), key=T_PATTERN, persist_state="session",
                               help="Without a pattern BPE runs on the raw bytes and tokens may span words.")
    specials_text = text_field("Special tokens (space-separated)", key=T_SPECIALS, limit=MAX_SPECIALS_CHARS,
                               where=cols[2], persist_state="session", placeholder="<|endoftext|>")
    custom = ""
    if choice == "custom":
        custom = text_field("Custom split pattern (tiktoken syntax)", key=T_CUSTOM, limit=MAX_PATTERN_CHARS,
                            persist_state="session", placeholder=r" ?\p{L}+| ?\p{N}+|\s+")
    if specials_text is None or custom is None:  # over a limit: said under the box
        return None
    try:
        pat_str = pattern_for(choice, st.session_state.get(T_CUSTOM, ""))
        specials = parse_specials(specials_text)
    except ValueError as exc:
        st.error(md(exc, 600))
        return None
    return int(vocab), pat_str, specials


def _results(enc: engine.Encoding) -> None:
    report: engine.TrainingReport = enc.training
    (st.warning if report.stopped_early else st.success)(f"**{md(enc.name)}**: {md(report.message, 600)}")
    counts = report.token_counts()
    cols = st.columns(4)
    cols[0].metric("Vocabulary", f"{report.vocab_size:,}", help="256 bytes + merges")
    cols[1].metric("Bytes/token", f"{report.n_bytes / counts[-1]:.2f}" if counts[-1] else "–",
                   help="on the training text, special tokens cut out")
    cols[2].metric("Ties won by the first-seen pair", f"{sum(m.tied for m in report.merges):,}")
    cols[3].metric("Training time", f"{report.seconds:.2f} s",
                   help=f"{report.n_chunks:,} chunks, {report.n_unique_chunks:,} distinct")

    pane = st.segmented_control("Show", TRAIN_PANES, key=T_PANE, persist_state="session", default="Compression curve",
                              required=True)
    if pane == "Compression curve":
        st.vega_lite_chart(curve_frame(report), charts.sized_spec(CURVE_SPEC), width="stretch")
    elif pane == "Merges":
        st.caption(f"{html.SPACE} is a space. “tie”: another pair had the same count; minbpe takes the pair seen first "
                   "in the (already merged) text.")
        st.dataframe(merges_frame(enc), hide_index=True, width="stretch")

    st.caption(KEPT_TRAINED)
    cols = st.columns(4)
    for col, (filename, (content, mime)) in zip(cols, model_files(enc).items()):
        col.download_button(f"⬇ {filename.rsplit('.', 1)[1]}", content, file_name=filename, mime=mime,
                            key=f"{state.TRAIN_DL_PREFIX}{filename.rsplit('.', 1)[1]}", width="stretch")
    with cols[3]:
        _use_button("Use in Compare", T_USE, T_RESULT, type="primary", width="stretch")


def _train_section() -> None:
    text_field("Training text", key=T_TEXT, limit=MAX_TEXT_BYTES, area=True, persist_state="session", height=160,
               help=f"Up to {MAX_TEXT_BYTES:,} characters; training runs in a worker process and stops "
                    f"after {TRAIN_TIMEOUT:.0f} s.")
    text = _training_text()
    settings = _settings()
    clicked = st.button("Train", key=T_GO, type="primary", disabled=settings is None or not text)
    if not text:
        st.info("Paste some text or upload a file to train on.")
    if clicked and settings is not None and text:
        if len(text) > MAX_TEXT_BYTES:
            st.error(f"The training text has {len(text):,} characters; the limit is {MAX_TEXT_BYTES:,}. "
                     "Train on a part of it.")
        else:
            try:
                st.session_state[T_RESULT] = train_with_progress(text, *settings)
            except jobs.JobTimeLimitError as exc:
                st.error(f"Training failed: {md(exc, 600)}{_slow_pattern_hint()}")
            except ValueError as exc:  # a split pattern that times out, a bad setting
                st.error(f"Training failed: {md(exc, 600)}")
    enc = st.session_state.get(T_RESULT)
    if enc is not None:
        _results(enc)


def _slow_pattern_hint() -> str:
    """Said after a training job's time limit when the split pattern is the user's own: the pattern's own limit is
    `regex`'s, which counts the job's CPU time, not the time waited (a 10 s limit held 5 s in a stopped process
    fired after 8 s), and a busy server gives a job its CPU slowly, so the job's limit can come first."""
    if st.session_state.get(T_PATTERN) != "custom":
        return ""
    return (f" A custom split pattern can be what is slow: its own limit is {SPLIT_TIMEOUT:.0f} s of the job's CPU "
            "time, which a busy server gives out slowly. Try a simpler pattern, or the same one on a shorter text.")


def _unigram_section() -> None:
    """Unigram (SentencePiece) on the same training text box as byte-level BPE."""
    # the box counts against Unigram's own limit (it said "/ 2,000,000" and then refused 400,001)
    limit = unigram_training.MAX_TEXT_CHARS
    text_field("Training text", key=T_TEXT, limit=limit, area=True, persist_state="session", height=160,
               help=f"Up to {limit:,} characters: Unigram training runs in pure Python, about 1 s per 10 kB.")
    text = _training_text()
    if not text:
        st.info("Paste some text or upload a file to train on.")
    unigram_training.render(text, lambda key, result_key: _use_button("Use in Compare", key, result_key))


# ---------------------------------------------------------------- uploads
def _upload_section() -> None:
    st.subheader("Upload a tokenizer")
    kind = st.segmented_control("File kind", UPLOAD_KINDS, key=U_KIND, persist_state="session", default=UPLOAD_KINDS[0], required=True)
    if kind is None:
        return
    main_key = uploader_key(kind, st.session_state.get(U_ROUND, 0))
    main = st.file_uploader(UPLOAD_LABELS[kind], key=main_key, max_upload_size=UPLOAD_LIMIT_MB,
                            on_change=_on_new_file, args=(main_key, kind), accept_multiple_files=kind == DETECT)
    if kind == DETECT:
        main = main or None
        st.caption(f"The kind of each file is read from its content, not its name. A GGUF model holds its "
                   f"tokenizer in its header: for a model file over {UPLOAD_LIMIT_MB} MB, upload just its first part, "
                   f"cut with `{file_kinds.GGUF_CUT_COMMAND}`.")
    side = st.file_uploader("encoder.json", key=U_JSON, type=["json"], max_upload_size=UPLOAD_LIMIT_MB,
                            on_change=_on_new_file, args=(main_key, kind)) if kind == "encoder.json + vocab.bpe" else None
    pat_str, specials, ok = None, [], True
    if kind == DETECT:
        pass
    elif ENGINE_KINDS[kind] in MODEL_KINDS:
        st.caption("This file carries its own split rules and special tokens. It is checked before use: at most "
                   f"{UPLOAD_LIMIT_MB} MB and 300,000 tokens, every character of UTF-8 text encodable, a test text "
                   "encoded; a tokenizer that does not give every text back is marked lossy, with an example.")
    else:
        cols = st.columns(2)
        choice = cols[0].selectbox("Split pattern", list(PATTERNS), index=1, key=U_PATTERN, persist_state="session")
        specials_text = text_field("Extra special tokens (space-separated)", key=U_SPECIALS, limit=MAX_SPECIALS_CHARS,
                                   where=cols[1], persist_state="session")
        custom = ""
        if choice == "custom":
            custom = text_field("Custom split pattern (tiktoken syntax)", key=U_CUSTOM, limit=MAX_PATTERN_CHARS,
                                persist_state="session")
        if specials_text is None or custom is None:  # over a limit: said under the box
            ok = False
        else:
            try:
                pat_str = pattern_for(choice, st.session_state.get(U_CUSTOM, ""))
                specials = parse_specials(specials_text)
            except ValueError as exc:
                st.error(md(exc, 600))
                ok = False
    if main is not None:
        if U_NAME not in st.session_state:
            first = main[0] if isinstance(main, list) else main
            st.session_state[U_NAME] = st.session_state[U_SUGGESTED] = uploads.suggest_name(first.name, _name_kind(kind))
        if text_field("Name", key=U_NAME, limit=uploads.MAX_NAME_CHARS,
                      help="How the sidebar, Compare and every view call it: letters, digits, '.', '_' or '-'.") is None:
            ok = False
    if st.button("Load tokenizer", key=U_GO, disabled=main is None or not ok):
        _load(kind, main, side, pat_str, specials)
    if local_files.enabled():
        _local_section()
    name = st.session_state.get(U_RESULT)
    enc = st.session_state.get(state.CUSTOM, {}).get(name) if name is not None else None
    if enc is not None:
        _loaded(enc)


def _loaded(enc: Any) -> None:
    """What was loaded: its family, its size, and whether it gives every text back (the lossy badge)."""
    family = engine.family_note(enc)
    where = ("It is selected in the sidebar's Encodings, so every view shows it."
             if enc.name in st.session_state.get(state.ENCODINGS, []) else
             "It is in the sidebar's Encodings list for every view.")
    st.success(f"Loaded **{md(enc.name)}**, {md(family.title)}: {enc.n_vocab:,} ids, "
               f"{len(enc.special_tokens)} special. {where}")
    st.caption(KEPT_UPLOADED)
    lossy = uploads.lossy_example(enc)
    if lossy is not None:
        st.warning(f":orange-badge[lossy] This tokenizer does not give every text back: "
                   f"“{md(html.visible(lossy.text))}” comes back as “{md(html.visible(lossy.back))}”"
                   f"{md(_code_points(lossy.text, lossy.back))} "
                   f"({md(lossy.reason)}). Its token counts are the model's own; decoding its ids is not always "
                   "your text.")
    _use_button("Use in Compare", U_USE, U_RESULT)


def _code_points(text: str, back: str) -> str:
    """The suffix " (U+0065 U+0301 → U+00E9)": the code points, since the two can read alike (é and e + ◌́)."""
    if len(text) > 12 or len(back) > 12:
        return ""
    def cps(s: str) -> str:
        return " ".join(f"U+{ord(c):04X}" for c in s) or "nothing"
    return f" ({cps(text)} → {cps(back)})"


def _local_section() -> None:
    """The tokenizers this machine's Hugging Face cache and Ollama hold (BPE_LOCAL_TOKENIZERS=1), loaded on a click."""
    st.subheader("Tokenizers on this machine")
    found = uploads.local_tokenizers()
    if not found:
        st.info("No tokenizer found in the Hugging Face cache (`$HF_HUB_CACHE`, `$HF_HOME/hub`, "
                "`~/.cache/huggingface/hub`) or Ollama's models folder (`$OLLAMA_MODELS`, `~/.ollama/models`).")
        return
    st.caption(f"{len(found):,} found in the Hugging Face cache and Ollama's models folder; nothing else on disk is read.")
    labels = {entry.label: entry for entry in found}
    pick = st.selectbox("Tokenizer", list(labels), key=L_PICK)
    if st.button("Load from this machine", key=L_GO, disabled=pick is None) and pick in labels:
        entry = labels[pick]
        try:
            files = local_files.read_local(entry, MAX_FILE_BYTES)
            with uploads.reserve_upload("detected", files, entry.model) as reservation:
                enc = engine.sources.uploads.load_files(files)
                st.session_state[U_RESULT] = state.add_custom(
                    enc, name=uploads.suggest_name(entry.model.rsplit("/", 1)[-1].replace(":", "-"), "tokenizer"),
                    reservation=reservation, suffix_if_taken=True)
        except (ValueError, OSError) as exc:  # the file, the budget, a file gone or moved since the listing
            st.session_state.pop(U_RESULT, None)
            st.error(f"Could not load {md(entry.model)}: {md(exc, 600)}")
        else:
            state.select(st.session_state[U_RESULT])  # in the sidebar's box from the next run on
            st.rerun()


def _load(kind: str, main: Any, side: Any, pat_str: str | None, specials: list[str]) -> None:
    """Load the uploaded file(s) under the chosen name, within the server's memory budget for tokenizers."""
    try:
        name = uploads.check_name(st.session_state.get(U_NAME) or "")
        files = [(f.name, f.getvalue()) for f in main] if isinstance(main, list) else [(main.name, main.getvalue())]
        extra = side.getvalue() if side is not None else b""
        # Weighed before parsing at the most its parse can take (a file past a limit is refused right there);
        # the reservation holds while it builds.
        weighed = files + ([(side.name, extra)] if side is not None else [])
        with uploads.reserve_upload(ENGINE_KINDS[kind], weighed, files[0][0]) as reservation:
            if kind == DETECT:
                enc = engine.sources.uploads.load_files(files)
            else:
                enc = load_tokenizer(kind, files[0], (side.name, extra) if side is not None else None,
                                     pat_str, specials)
            # Our own suggestion gets a suffix if another tokenizer holds it ("tokenizer-2"); a typed name does not.
            st.session_state[U_RESULT] = state.add_custom(enc, name=name, reservation=reservation,
                                                          suffix_if_taken=name == st.session_state.get(U_SUGGESTED))
    except ValueError as exc:  # the file, the name, the budget: each message says what to do
        st.session_state.pop(U_RESULT, None)
        st.error(f"Could not load it: {md(exc, 600)}")
    else:
        # The sidebar, drawn before this view, lists and selects it from the next run on; the detecting
        # uploader starts empty for the next file (`uploader_key`).
        state.select(st.session_state[U_RESULT])
        if kind == DETECT:
            st.session_state[U_ROUND] = st.session_state.get(U_ROUND, 0) + 1
        st.rerun()


def render() -> None:
    st.session_state.setdefault(T_TEXT, SAMPLE_TEXT)
    st.session_state.setdefault(T_VOCAB, DEFAULT_VOCAB)
    header("Train your own", "Byte-level BPE (minbpe's algorithm, exactly), parity-aware BPE, WordPiece, "
                             "SuperBPE or Unigram, each held to its reference trainer. Your tokenizers stay in this tab only.")
    flash = st.session_state.get(T_FLASH)
    if flash and flash in st.session_state.get(state.ENCODINGS, []):
        # "Use in Compare" goes to Compare (the selection is made in its callback, before the switch);
        # back here, or where no page can be switched to, this says where the tokenizer is.
        st.success(f"**{md(flash)}** is selected in the sidebar's Encodings: open **Compare** (or any view) "
                   "in the navigation to see it beside the others.")
    algorithm = train_lab.choose_algorithm()
    if algorithm == train_lab.UNIGRAM:
        _unigram_section()
    elif not train_lab.render(algorithm):  # parity-aware BPE, WordPiece, SuperBPE: the lab's own form
        _train_section()
    st.divider()
    _upload_section()
