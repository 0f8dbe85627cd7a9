"""The engine calls of the playground: encodings by name, cached wrappers, big inputs sent to job processes.

Built-in encodings are shared by all users (loaded once per server, immutable).
Trained or uploaded tokenizers live in this user's session state only
(`state.add_custom`), under a name that contains a hash of their content, so
two users never see each other's tokenizers.  Derived results are cached,
bounded, keyed by that name: the calls of the pages other than the token views
with `st.cache_data` / `st.cache_resource(max_entries=...)`.

The token views' calls (`encode`, `tokenize_text`) are not cached here: their results
have one cache, `playground.cache.render_cache`, which calls them on a miss.  Here they run the
engine inline, or past `INLINE_CHARS` in a child process (`playground.serving.jobs`: the wait can be
cancelled by the next rerun and is limited in time), and remember a failure for the same input.

Every call that runs an encoding on a text goes through `engine_call`: a built-in runs inline, as it
always has; a session's own tokenizer (an upload, a training) runs where `playground.serving.user_work`
sends it -- inline under the engine's time limit with the turn given back, or in a job process -- since
a crafted file can make each character cost hundreds of steps.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import streamlit as st

import engine
from engine.explain import algorithms, scaffold, unreachable  # noqa: F401 -- engine.explain.scaffold/unreachable below
from engine.families import claude as claude_family
from engine.sources import registry
from playground import state
from playground.cache import memo
from playground.render import html
from playground.serving import job_tasks, jobs, user_work
from playground.serving.job_tasks import policy_kwargs

DRAW_LIMIT = 100_000  # characters drawn token by token; counts always cover the whole text
INLINE_CHARS = 50_000  # texts longer than this are encoded (all ids) in a job process
JOB_TIMEOUT = 60.0  # seconds
SEARCH_BUDGET = 10.0  # seconds a regex search may take over a whole vocabulary (in its job process)
# Entries expire after CACHE_TTL so an idle server gives the memory back.
CACHE_TTL = 900  # seconds


_loaded: dict[str, engine.Encoding] = {}  # built-ins this server has loaded (a dozen at most), read without a lock


def builtin(name: str) -> engine.Encoding:
    """A built-in encoding; the first call per server shows "Loading vocabulary…" while it loads.

    The engine keeps what it has loaded (`engine.get_encoding` is shared and thread-safe); this
    dict only says whether a spinner is needed: not `st.cache_resource`, which costs a signature
    lookup and argument hashing on every call of every script run."""
    enc = _loaded.get(name)
    if enc is None:
        with st.spinner("Loading vocabulary…"):  # shown only if loading takes over half a second
            enc = _loaded[name] = engine.get_encoding(name)
    return enc


def loaded(name: str) -> bool:
    """Whether `resolve(name)` answers at once: one of this session's own, or a built-in this server has built."""
    return name in st.session_state.get(state.CUSTOM, {}) or registry.is_loaded(name)


def resolve(name: str) -> engine.Encoding:
    """The encoding called `name`: a built-in (an alias such as r50k_base too), or one of this session's own."""
    custom = st.session_state.get(state.CUSTOM, {})
    if name in custom:
        return custom[name]
    return builtin(name)


# --- every family ---
@memo.shared(max_entries=32)
def family_note(name: str, _enc: engine.Encoding) -> engine.explain.families.FamilyNote:
    """How `name` splits and merges (engine.family_note): its family, one line each, its split stages."""
    return engine.family_note(_enc)


def engine_call(task: str, name: str, enc: engine.Encoding, *args: Any, chars: int, label: str) -> Any:
    """``job_tasks.TASKS[task](enc, *args)``, an engine call on a text of `chars` characters: inline for a
    built-in (linear, microseconds per character: it keeps its turn, as giving it back costs a wait to get
    it again); for a session's own tokenizer where `playground.serving.user_work` sends it (inline under the
    engine's time limit with the turn given back, or a job shown as `label`)."""
    if not user_work.is_own(enc):
        return job_tasks.TASKS[task](enc, *args)
    return user_work.run(task, (enc, *args), name=name, chars=chars, label=label, timeout=JOB_TIMEOUT)


# --- the engine calls of the token views: not cached here, `playground.cache.render_cache` keeps their results
def _remembered(key: tuple, call: Callable[[], Any]) -> Any:
    """`call()`, unless it failed before for `key` (then its error is raised again): a refusal or a split
    pattern's time limit is remembered, so the next rerun does not pay the time limit again.  A busy
    server is not a failure of the input."""
    jobs.raise_if_failed(key)
    try:
        return call()
    except jobs.ServerBusyError:
        raise
    except ValueError as error:
        jobs.remember_failure(key, error)
        raise


def encode(name: str, enc: engine.Encoding, text: str, policy: str) -> Sequence[int]:
    """All ids of `text`, however long: past INLINE_CHARS in a job process (`playground.serving.jobs`).
    Raises ValueError under the 'refuse' policy."""
    label = f"Encoding {len(text):,} characters with {name}"

    def call() -> Sequence[int]:
        if len(text) <= INLINE_CHARS:
            return engine_call("encode", name, enc, text, policy, chars=len(text), label=label)
        if user_work.is_own(enc):
            return user_work.job("encode", (enc, text, policy), name=name, label=label, timeout=JOB_TIMEOUT)
        return jobs.run("encode", (enc, text, policy), label=label, timeout=JOB_TIMEOUT)

    return _remembered((name, memo.text_key(text), policy, "encode"), call)


def tokenize_text(name: str, enc: engine.Encoding, text: str, policy: str) -> engine.explain.families.TokenizedText:
    """Tokens, pieces and family notes of the first DRAW_LIMIT characters of `text`, from one engine call
    (`engine.explain.families.tokenize_text`: one split for tokens and pieces).

    Here for a built-in, never in a job: a job would spend longer pickling 100,000 token records than the
    tokenizing takes, and drawing never covers more than DRAW_LIMIT characters.  A session's own tokenizer
    goes where `engine_call` sends it: a job, if its text is too costly for the server's own process.
    """
    text = text[:DRAW_LIMIT]

    def call() -> engine.explain.families.TokenizedText:
        return engine_call("tokenize_text", name, enc, text, policy, chars=len(text),
                           label=f"Tokenizing {len(text):,} characters with {name}")

    return _remembered((name, memo.text_key(text), policy, "tokenize"), call)


# --- Gallery ---
@st.cache_data(max_entries=48, show_spinner=False)
def tokenize_many(name: str, _enc: engine.Encoding, texts: tuple[str, ...], policy: str) -> list[list[engine.Token]]:
    """Token records of several short texts (one gallery demo) as one cache entry."""
    chars = sum(map(len, texts))
    return engine_call("tokenize_many", name, _enc, texts, policy, chars=chars,
                       label=f"Tokenizing {chars:,} characters with {name}")


@st.cache_data(max_entries=16, show_spinner=False)
def _token_tax(name: str, _enc: engine.Encoding, text: str, policy: str) -> list[engine.explain.unicode_scripts.ScriptShare]:
    return engine.explain.unicode_scripts.attribute_tokens(text, tokenize_text(name, _enc, text, policy).tokens)


def token_tax(name: str, enc: engine.Encoding, text: str, policy: str) -> list[engine.explain.unicode_scripts.ScriptShare]:
    """Tokens per script of the first DRAW_LIMIT characters of `text` (engine.token_tax)."""
    return _token_tax(name, enc, text[:DRAW_LIMIT], policy)


# --- Merge tree / steps / vocabulary ---
@st.cache_resource(max_entries=8, ttl=CACHE_TTL, show_spinner=False)
def bpe_trace(name: str, _enc: engine.Encoding, piece: str) -> engine.BpeTrace:
    """Every merge step on `piece`.  A resource (the trace is frozen, never mutated) so moving
    the step slider does not unpickle 100,000 steps on every rerun."""
    return engine_call("bpe_trace", name, _enc, piece, chars=len(piece),
                       label=f"Tracing the merges of {len(piece):,} characters with {name}")


@st.cache_data(max_entries=16, ttl=CACHE_TTL, show_spinner=False)
def piece_story(name: str, _enc: engine.Encoding, piece: str) -> algorithms.PieceStory:
    """The family's own work on one piece (BPE merges, WordPiece lookups, the Unigram lattice)."""
    return engine_call("piece_story", name, _enc, piece, chars=len(piece),
                       label=f"Explaining {len(piece):,} characters with {name}")


def token_story(name: str, enc: engine.Encoding, token_id: int, text: str) -> algorithms.TokenStory | None:
    """How the family's algorithm came to `token_id`: the piece of `text` that made it, or its own text."""
    return _token_story(name, enc, token_id, memo.text_key(text), text)


@st.cache_data(max_entries=16, ttl=CACHE_TTL, show_spinner=False)
def _token_story(name: str, _enc: engine.Encoding, token_id: int, key: str, _text: str):
    chars = min(len(_text), algorithms.MAX_SEARCH_CHARS)
    return engine_call("token_story", name, _enc, token_id, _text, chars=chars,
                       label=f"Finding token {token_id} in {chars:,} characters with {name}")


@memo.shared(max_entries=16, ttl=CACHE_TTL)
def _model_steps(name: str, _enc: engine.Encoding, piece: str) -> list:
    return engine_call("model_steps", name, _enc, piece, chars=len(piece),
                       label=f"Explaining {len(piece):,} characters with {name}")


def model_steps(name: str, enc: engine.Encoding, piece: str) -> list:
    """How the model decided on one piece (``enc.model_steps``: WordPiece's lookups, ...)."""
    return _model_steps(name, enc, piece)


@memo.shared(max_entries=16, ttl=CACHE_TTL)
def _piece_ids(name: str, _enc: engine.Encoding, piece: str) -> tuple[int, ...]:
    return tuple(engine_call("piece_ids", name, _enc, piece, chars=len(piece),
                             label=f"Encoding {len(piece):,} characters with {name}"))


def piece_ids(name: str, enc: engine.Encoding, piece: str) -> tuple[int, ...]:
    """The ids `encode` gives one piece of `pretokenize` (``enc.piece_ids``)."""
    return _piece_ids(name, enc, piece)


@memo.shared(max_entries=16, ttl=CACHE_TTL)
def _whole_piece_ids(name: str, _enc: engine.Encoding, piece: str) -> list[int] | None:
    return engine_call("whole_piece_ids", name, _enc, piece, chars=len(piece),
                       label=f"Encoding {len(piece):,} characters with {name}")


def whole_piece_ids(name: str, enc: engine.Encoding, piece: str) -> list[int] | None:
    """`engine.explain.families.piece_ids`: the ids `encode` gives `piece` as one piece, None if it would cut it."""
    return _whole_piece_ids(name, enc, piece)


@memo.shared(max_entries=16, ttl=CACHE_TTL)
def _pipeline_stages(name: str, _enc: engine.Encoding, key: str, _text: str) -> Any:
    return engine_call("pipeline_stages", name, _enc, _text, chars=len(_text),
                       label=f"Running the stages on {len(_text):,} characters with {name}")


def pipeline_stages(name: str, enc: engine.Encoding, text: str) -> Any:
    """Every stage of `enc` on `text` (`engine.explain.pipeline.pipeline_stages`); ValueError as the engine's."""
    key = memo.text_key(text)
    return _remembered((name, key, "pipeline"), lambda: _pipeline_stages(name, enc, key, text))


@memo.shared(max_entries=16, ttl=CACHE_TTL)
def _text_story(name: str, _enc: engine.Encoding, text: str, max_pieces: int) -> list:
    return engine_call("text_story", name, _enc, text, max_pieces, chars=len(text),
                       label=f"Explaining {len(text):,} characters with {name}")


def text_story(name: str, enc: engine.Encoding, text: str, max_pieces: int) -> list:
    """`engine.explain.algorithms.text_story`: the first `max_pieces` pieces of a few words, each explained."""
    return _remembered((name, memo.text_key(text), max_pieces, "story"),
                       lambda: _text_story(name, enc, text, max_pieces))


@st.cache_resource(max_entries=4, ttl=CACHE_TTL, show_spinner="Reading every token of the vocabulary…")
def vocab_table(name: str, _enc: engine.Encoding):
    """One row per ordinary token (a pandas DataFrame indexed by id) for the vocabulary explorer.

    A shared resource, never modified (the view only reads it, `.loc`/`.assign` make new frames):
    as `st.cache_data`, every rerun of the page would unpickle a copy of its 100,000-200,000 rows."""
    import pandas as pd

    infos = engine.explain.vocab.token_infos(_enc)
    glitch = engine.explain.vocab.glitch_tokens(_enc)
    return pd.DataFrame(
        {
            "id": [i.id for i in infos],
            "token": [engine.explain.vocab.readable(i.bytes, space=html.SPACE) for i in infos],
            "bytes": [i.bytes.hex(" ") for i in infos],
            "length": [i.length for i in infos],
            "leading space": [i.leading_space for i in infos],
            "valid UTF-8": [i.valid_utf8 for i in infos],
            "glitch": [i.id in glitch for i in infos],
        },
        index=[i.id for i in infos],
    )


@st.cache_data(max_entries=32, show_spinner="Searching the vocabulary…")
def _search_substring(name: str, _enc: engine.Encoding, query: str, ignore_case: bool) -> list[int]:
    return engine.explain.vocab.search_substring(_enc, query, ignore_case=ignore_case)


def vocab_search(name: str, enc: engine.Encoding, query: str, mode: str, ignore_case: bool) -> list[int]:
    """Ids matching a substring, or a regex (run in a job process: a user's regex can be catastrophic)."""
    if mode == "regex":
        key = ("search_regex", name, ignore_case, query)
        return jobs.cached_run(key, 1000, "search_regex", (enc, query, ignore_case, SEARCH_BUDGET),
                               label=f"Searching {name}'s vocabulary", timeout=JOB_TIMEOUT)
    return _search_substring(name, enc, query, ignore_case)


@st.cache_data(max_entries=32, show_spinner=False)
def vocab_filter(name: str, _enc: engine.Encoding, which: str) -> list[int]:
    """Ids for a quick filter: 'longest' (top 200, longest first) or an engine.explain.vocab.filter_tokens name."""
    if which == "longest":
        return engine.explain.vocab.longest(_enc, 200)
    if which == "glitch":
        return sorted(engine.explain.vocab.glitch_tokens(_enc))
    return engine.explain.vocab.filter_tokens(_enc, which)


@st.cache_data(max_entries=8, show_spinner=False)
def length_histogram(name: str, _enc: engine.Encoding) -> list[tuple[int, int]]:
    return engine.explain.vocab.length_histogram(_enc)


# --- scaffold and unreachable tokens (Vocabulary's pane, the line under a Merge tree) ---
SCAFFOLD_INLINE_CHARS = 20_000  # a longer text's scaffold counts (a tree per distinct token) run in a job
YOUR_TEXT = "your text"  # the corpus label of the sidebar's text


@memo.shared(max_entries=16, ttl=CACHE_TTL)
def _scaffold(name: str, digest: str, corpus: str, _enc: engine.Encoding, _texts: tuple[str, ...]
              ) -> engine.explain.scaffold.ScaffoldCounts:
    chars = sum(map(len, _texts))
    label = f"Counting scaffold tokens of {name} over {chars:,} characters"
    if user_work.is_own(_enc):
        return user_work.run("scaffold_counts", (_enc, _texts, corpus), name=name, chars=chars, label=label,
                             timeout=JOB_TIMEOUT)
    if chars <= SCAFFOLD_INLINE_CHARS:  # the built-in corpus: under half a second for any built-in
        return job_tasks.TASKS["scaffold_counts"](_enc, _texts, corpus)
    return jobs.run("scaffold_counts", (_enc, _texts, corpus), label=label, timeout=JOB_TIMEOUT)


def scaffold_counts(name: str, enc: engine.Encoding, text: str | None) -> engine.explain.scaffold.ScaffoldCounts:
    """Per token, times emitted and times inside an emitted token's merge tree, over `text` (None: the built-in
    multilingual corpus).  Raises `engine.explain.scaffold.NoMergeTreesError` for a model that merges nothing,
    `jobs.JobError` / `jobs.ServerBusyError` for a text too costly for its time limit or a busy server."""
    if text is None:
        return _scaffold(name, "builtin", engine.explain.scaffold.BUILTIN_CORPUS, enc,
                         engine.explain.scaffold.builtin_corpus())
    return _scaffold(name, memo.text_key(text), YOUR_TEXT, enc, (text,))


@memo.shared(max_entries=8, ttl=CACHE_TTL)
def reachability(name: str, _enc: engine.Encoding) -> engine.explain.unreachable.Reachability:
    """A built-in's stored sweep (`StaleReachabilityError` if its vocabulary changed since); any other
    encoding swept in a job with a time limit (seconds for 200,000 tokens)."""
    if not user_work.is_own(_enc):
        stored = engine.explain.unreachable.stored_reachability(_enc)
        if stored is not None:
            return stored
    label = f"Encoding each of the {_enc.n_vocab:,} tokens of {name} again"
    if user_work.is_own(_enc):
        return user_work.job("reachability", (_enc,), name=name, label=label, timeout=JOB_TIMEOUT)
    return jobs.run("reachability", (_enc,), label=label, timeout=JOB_TIMEOUT)


@memo.shared(max_entries=1)
def builtin_health() -> list[dict]:
    """One row per built-in with a stored sweep: its counts of each kind and its scaffold numbers over the
    built-in corpus (read from engine/data, no vocabulary loaded), and GPT-2's glitch list's size."""
    summaries = engine.explain.scaffold.stored_summaries()
    glitch = engine.explain.vocab.glitch_tokens(builtin("gpt2"))
    gpt2 = engine.explain.unreachable.stored_entry("gpt2")
    flagged = sum(1 for i in glitch if gpt2 is not None and gpt2.kind(i) != "ok")
    rows = []
    available = set(engine.list_tokenizer_names())  # Gemma's entry stays in the file on a machine without it
    for name in engine.explain.unreachable.stored_names():
        if name not in available:
            continue
        found = engine.explain.unreachable.stored_entry(name)
        summary = summaries.get(name)
        rows.append({
            "encoding": name, "tokens": found.vocab_size, "partial UTF-8": len(found.partial_utf8),
            "unreachable": len(found.unreachable), "only in context": len(found.in_context),
            "special never made": len(found.special_never), "specials": found.specials,
            "scaffold": None if summary is None else summary.scaffold,
            "reached": None if summary is None else summary.reached,
            "scaffold % of reached": None if summary is None else round(100 * summary.share_of_reached, 1),
            "scaffold % of vocab": None if summary is None else round(100 * summary.share, 2),
            "GPT-2 glitch list": len(glitch) if name in ("gpt2", "r50k_base") else None,
            "glitch flagged": flagged if name in ("gpt2", "r50k_base") else None,
        })
    return rows


# --- Arena, Token-budget chunks, Chat formats ---
@st.cache_resource(max_entries=8, show_spinner=False)
def distinct(names: tuple[str, ...], _encs: tuple) -> tuple[list[str], dict[str, str]]:
    """`names` without aliases (engine.explain.arena.distinct_encodings): (kept names, {alias: kept name})."""
    kept, aliases = engine.explain.arena.distinct_encodings(_encs)
    return [e.name for e in kept], aliases


def count(name: str, enc: engine.Encoding, key: str, text: str, policy: str) -> int:
    """Tokens of `text` (digest `key`) as a plain int; a failure (a split pattern's time limit) is
    remembered, not paid again."""
    return count_and_unknown(name, enc, key, text, policy)[0]


def count_and_unknown(name: str, enc: engine.Encoding, key: str, text: str, policy: str) -> tuple[int, int]:
    """(tokens, how many of them are the unknown token) of `text` (digest `key`), as `count`."""
    failure_key = ("arena_count", name, policy, key)
    jobs.raise_if_failed(failure_key)
    try:
        return _count(name, enc, key, text, policy)
    except ValueError as error:
        jobs.remember_failure(failure_key, error)
        raise


@st.cache_data(max_entries=512, ttl=CACHE_TTL, show_spinner=False)
def _count(name: str, _enc: engine.Encoding, key: str, _text: str, policy: str) -> tuple[int, int]:
    ids = encode(name, _enc, _text, policy)  # past INLINE_CHARS (or a costly own tokenizer's text) a job
    return len(ids), engine.explain.lossless.count_unknown(_enc, ids)


@st.cache_resource(max_entries=8, ttl=CACHE_TTL, show_spinner="Encoding the language samples…")
def language_matrix(names: tuple[str, ...], _encs: tuple,
                    own: tuple[tuple[str, str, str, str], ...] = ()) -> engine.explain.arena.LanguageMatrix:
    """The built-in language samples, then `own` ((code, language, script, text) of the user's own
    sentences, part of the key), encoded by every encoding: one column per encoding, so a session's own
    tokenizer counts apart (`engine_call`)."""
    samples = engine.explain.arena.language_samples() + tuple(engine.explain.arena.LanguageSample(*s) for s in own)
    chars = sum(len(s.text) for s in samples)
    return engine.explain.arena.join_columns([
        engine_call("language_column", name, enc, samples, chars=chars,
                    label=f"Counting the tokens of {len(samples)} language samples with {name}")
        for name, enc in zip(names, _encs)])


@st.cache_resource(max_entries=8, ttl=CACHE_TTL, show_spinner="Cutting the text into chunks…")
def chunk(name: str, _enc: engine.Encoding, key: str, _text: str, max_tokens: int, prefer: str,
          policy: str) -> engine.explain.chunking.Chunking:
    """engine.chunk_text of `_text` (digest `key`)."""
    return engine_call("chunk", name, _enc, _text, max_tokens, prefer, policy, chars=len(_text),
                       label=f"Cutting {len(_text):,} characters into chunks with {name}")


@st.cache_data(max_entries=64, ttl=CACHE_TTL, show_spinner=False)
def chat_tokens(name: str, _enc: Any, conversation: str, tools: str = "[]",
                thinking: Any = None, format: str | None = None) -> engine.chat.ChatTokens | str:
    """The model's chat-format sequence of a JSON conversation with JSON tool definitions and the
    format's thinking setting, or the format's refusal as text (cached either way).  ``format``: the chat
    format, when not the encoding's own (Gemini's rows count with a Gemma vocabulary)."""
    chars = len(conversation) + len(tools)
    try:
        return engine_call("chat_tokens", name, _enc, conversation, tools, thinking, format, chars=chars,
                           label=f"Encoding the conversation ({chars:,} characters) with {name}")
    except engine.ChatFormatError as error:
        return str(error)


@st.cache_data(max_entries=512, ttl=CACHE_TTL, show_spinner=False)
def chat_count(name: str, _enc: Any, conversation: str, tools: str = "[]",
               thinking: Any = None, format: str | None = None) -> int | str:
    """Only the number of `chat_tokens` (engine.chat.chat_count: no template/content walk, a tenth of the time on a
    long message), or the format's refusal as text.  For the recounts the page makes of each conversation -- one
    per tool and model for the per-tool costs -- which kept beside the drawn sequences (64 entries) pushed them out:
    5 models and 12 tools made 65 counts a rerun, and every rerun counted them all again.  An int is small: 512."""
    chars = len(conversation) + len(tools)
    try:
        return engine_call("chat_count", name, _enc, conversation, tools, thinking, format, chars=chars,
                           label=f"Counting the conversation ({chars:,} characters) with {name}")
    except engine.ChatFormatError as error:
        return str(error)


def claude_tiling(name: str, text: str) -> claude_family.ClaudeTiling:
    """The Claude 3+ reconstruction's count and tiling of `text` as one user message (`name`: claude-3,
    claude-4.7 or claude-4.8)."""
    return _claude_tiling(name, memo.text_key(text), text)


# A shared memo, not st.cache_data: that unpickled a copy of each of the three tilings (a token per few
# characters, the stream and the text) on every rerun of the Chat page, which cost more than drawing it.
@memo.shared(max_entries=32, ttl=CACHE_TTL)
def _claude_tiling(name: str, key: str, _text: str) -> claude_family.ClaudeTiling:
    return claude_family.get_claude(name).tiling(_text)
