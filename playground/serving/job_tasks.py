"""What a job process runs: engine calls only (no Streamlit), results sent back over a pipe.

`playground.serving.jobs` starts one short-lived child process per heavy job from a
fork server that has already imported this module and loaded the built-in
vocabularies, so a job starts in milliseconds with every built-in encoding
in memory.  The child sends ``("progress", value)`` messages while it works (a few per second)
and one ``("done", result)`` or ``("error", ...)`` at the end (`error_message`: an engine exception
travels as its class and fields, and `error_from_message` raises that class again in the parent); the
parent may kill it at any moment (rerun, session closed, time limit), and the
memory it used goes back to the system with it.

Encodings travel by pickle: a built-in as its name (the child has it loaded
already), a session's own tokenizer as its data (`engine.Encoding` pickling).
"""
from __future__ import annotations

import importlib
import pickle
import warnings
from typing import Any, Callable

import engine
from engine.explain import algorithms, classics, families, pipeline, scaffold, unreachable
from engine.families.sentencepiece import training as unigram_training
from engine.training import lab
from playground.serving import test_seams

PRELOAD = ("gpt2", "cl100k_base", "o200k_base")  # loaded once in the fork server, shared by every job


def policy_kwargs(policy: str) -> dict[str, Any]:
    """encode() keyword arguments for a special-token policy of the sidebar."""
    if policy == "special":
        return {"allowed_special": "all"}
    if policy == "text":
        return {"allowed_special": set(), "disallowed_special": ()}
    return {}  # tiktoken's default: refuse special-token text with a ValueError


# ------------------------------------------------------------------ the tasks
def encode(enc: Any, text: str, policy: str) -> list[int]:
    return enc.encode(text, **policy_kwargs(policy))


def tokenize(enc: Any, text: str, policy: str) -> list:
    return enc.tokenize(text, **policy_kwargs(policy))


def pretokenize(enc: Any, text: str, policy: str) -> list:
    return enc.pretokenize(text, **policy_kwargs(policy))


def search_regex(enc: Any, query: str, ignore_case: bool, budget: float) -> list[int]:
    return engine.explain.vocab.search_regex(enc, query, ignore_case=ignore_case, timeout=budget)


# The engine calls the pages make on a text, each the same function inline and in a job, so a session's own
# tokenizer gets the same answer wherever it runs (`playground.serving.user_work`).
def tokenize_text(enc: Any, text: str, policy: str) -> Any:
    return families.tokenize_text(enc, text, **policy_kwargs(policy))


def tokenize_many(enc: Any, texts: tuple[str, ...], policy: str) -> list:
    return [enc.tokenize(text, **policy_kwargs(policy)) for text in texts]


def language_column(enc: Any, samples: tuple) -> Any:
    return engine.language_matrix((enc,), samples)


def chunk(enc: Any, text: str, max_tokens: int, prefer: str, policy: str) -> Any:
    return engine.chunk_text(text, enc, max_tokens, prefer=prefer, **policy_kwargs(policy))


def chat_tokens(enc: Any, conversation: str, tools: str, thinking: Any, format: str | None = None) -> Any:
    import json

    return engine.chat_tokens(json.loads(conversation), enc, tools=json.loads(tools) or None, thinking=thinking,
                              format=format)


def chat_count(enc: Any, conversation: str, tools: str, thinking: Any, format: str | None = None) -> int:
    import json

    return engine.chat.chat_count(json.loads(conversation), enc, tools=json.loads(tools) or None, thinking=thinking,
                                  format=format)


def pipeline_stages(enc: Any, text: str) -> Any:
    return pipeline.pipeline_stages(enc, text)


def text_story(enc: Any, text: str, max_pieces: int) -> list:
    return algorithms.text_story(enc, text, max_pieces=max_pieces)


def piece_story(enc: Any, piece: str) -> Any:
    return algorithms.piece_story(enc, piece)


def token_story(enc: Any, token_id: int, text: str) -> Any:
    return algorithms.token_story(enc, token_id, text)


def bpe_trace(enc: Any, piece: str) -> Any:
    return enc.bpe_trace(piece)


def model_steps(enc: Any, piece: str) -> list:
    return enc.model_steps(piece)


def piece_ids(enc: Any, piece: str) -> list[int]:
    return enc.piece_ids(piece)


def whole_piece_ids(enc: Any, piece: str) -> list[int] | None:
    return families.piece_ids(enc, piece)


def reversal(enc: Any, text: str) -> Any:
    return classics.reverse_tokens(enc, text)



PROGRESS_EVERY = 0.1  # seconds between progress messages of a job


def train(text: str, vocab_size: int, pat_str: str | None, specials: list[str], *, progress: Callable) -> Any:
    """Train, reporting the merges in batches: ``progress([(i, total, info), ...])`` at most every
    PROGRESS_EVERY seconds and once at the end, with every merge in order.  The trained `Encoding`
    (with its report) travels back by pickle.

    Batched because the server handles each message under its GIL: one message per merge would be an
    unpickling and a status update per merge, even for a short training, times every user training at once."""
    batch: list[tuple[int, int, engine.MergeInfo]] = []
    last = [test_seams.clock()]

    def on_merge(i: int, total: int, info: engine.MergeInfo) -> None:
        batch.append((i, total, info))
        now = test_seams.clock()
        if now - last[0] >= PROGRESS_EVERY:
            last[0] = now
            progress(batch[:])
            batch.clear()

    with warnings.catch_warnings():  # an early stop is reported in enc.training.message instead
        warnings.simplefilter("ignore", engine.TrainingStoppedEarly)
        enc = engine.train_bpe(text, vocab_size, pat_str=pat_str, special_tokens=specials, progress=on_merge)
    if batch:
        progress(batch)
    return enc


def train_lab(algorithm: str, args: tuple, *, progress: Callable) -> Any:
    """A trainer of `engine.training.lab` (parity-aware BPE, WordPiece, SuperBPE), reporting ``(done, total)`` at most
    every PROGRESS_EVERY seconds; the `LabResult` (a tokenizer.json text and plain data) travels back by pickle."""
    last = [test_seams.clock()]

    def on_step(done: int, total: int) -> None:
        now = test_seams.clock()
        if now - last[0] >= PROGRESS_EVERY or done == total:
            last[0] = now
            progress((done, total))

    trainer = {lab.PARITY: lab.train_parity, lab.WORDPIECE: lab.train_wordpiece_lab,
               lab.SUPERBPE: lab.train_superbpe_lab}[algorithm]
    return trainer(*args, progress=on_step)


def train_unigram(text: str, vocab_size: int, byte_fallback: bool, *, progress: Callable) -> Any:
    """Unigram training (`engine.training.unigram`), one progress message per step (seeding, each EM
    round, each pruning: tens per training, so no batching is needed).  The trained
    `SentencePieceEncoding` (with its report) travels back by pickle."""
    return unigram_training.train_unigram(text, vocab_size, byte_fallback=byte_fallback, progress=progress)


def scaffold_counts(enc: Any, texts: tuple[str, ...], corpus: str) -> Any:
    return scaffold.scaffold_counts(enc, texts, corpus=corpus)


def reachability(enc: Any) -> Any:
    return unreachable.reachability(enc)


TASKS: dict[str, Callable] = {
    "train_lab": train_lab, "train_unigram": train_unigram,
    "encode": encode, "tokenize": tokenize, "pretokenize": pretokenize, "search_regex": search_regex, "train": train,
    "tokenize_text": tokenize_text, "tokenize_many": tokenize_many, "language_column": language_column,
    "chunk": chunk, "chat_tokens": chat_tokens, "chat_count": chat_count, "pipeline_stages": pipeline_stages, "text_story": text_story,
    "piece_story": piece_story, "token_story": token_story, "bpe_trace": bpe_trace, "model_steps": model_steps,
    "piece_ids": piece_ids, "whole_piece_ids": whole_piece_ids, "reversal": reversal,
    "scaffold_counts": scaffold_counts, "reachability": reachability,
}
PROGRESS_TASKS = {"train", "train_lab", "train_unigram"}


class Pickled:
    """An argument sent as a pickle made before (`playground.serving.user_work.job`: a session's own tokenizer,
    pickled once, not on every job); the job process unpickles it first."""

    def __init__(self, data: bytes) -> None:
        self.data = data


def main(conn: Any, task: str, args: tuple) -> None:
    """Entry point of a job process: run `task`, send the outcome, exit."""
    try:
        args = tuple(pickle.loads(a.data) if isinstance(a, Pickled) else a for a in args)
        fn = TASKS[task] if task in TASKS else test_seams.TASKS[task]
        if task in PROGRESS_TASKS:
            result = fn(*args, progress=lambda value: conn.send(("progress", value)))
        else:
            result = fn(*args)
        conn.send(("done", result))
    except Exception as exc:  # noqa: BLE001 -- every failure goes back to the parent as a message
        conn.send(error_message(exc))
    finally:
        conn.close()


# ------------------------------------------------------------------ errors across the pipe
def error_message(exc: Exception) -> tuple:
    """``("error", module, class name, message, expected, fields)`` for the parent.

    `expected`: a ValueError or TimeoutError, whose message says the fix (the engine's errors are);
    `fields`: the exception's attributes (``DisallowedSpecialTokenError.token``), kept only if they pickle.
    Not the exception itself: pickle rebuilds an exception by calling its class with its message, and
    the engine's classes take other arguments (``DisallowedSpecialTokenError(token)``)."""
    fields = dict(vars(exc))
    try:
        pickle.dumps(fields)
    except Exception:  # noqa: BLE001 -- a field that cannot travel: the class and message still do
        fields = {}
    cls = type(exc)
    return ("error", cls.__module__, cls.__qualname__, str(exc), isinstance(exc, (ValueError, TimeoutError)), fields)


def error_from_message(module: str, name: str, text: str, fields: dict[str, Any]) -> Exception | None:
    """The engine's exception that a job raised, rebuilt as its own class with the same message and fields;
    None for an exception that is not the engine's (the caller wraps its message)."""
    if module != "engine" and not module.startswith("engine."):
        return None
    cls: Any = importlib.import_module(module)
    for part in name.split("."):
        cls = getattr(cls, part, None)
    if not (isinstance(cls, type) and issubclass(cls, Exception)):
        return None
    error = cls.__new__(cls)
    error.args = (text,)
    error.__dict__.update(fields)
    return error if str(error) == text else None


def warm() -> None:
    """Load the built-in vocabularies (called in the fork server, once)."""
    for name in PRELOAD:
        engine.get_encoding(name)
