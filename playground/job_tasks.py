"""What a job process runs: engine calls only (no Streamlit), results sent back over a pipe.

`playground.jobs` starts one short-lived child process per heavy job from a
fork server that has already imported this module and loaded the built-in
vocabularies, so a job starts in milliseconds with every built-in encoding
in memory.  The child sends ``("progress", value)`` messages while it works
and one ``("done", result)`` or ``("error", kind, message)`` at the end; the
parent may kill it at any moment (rerun, session closed, time limit), and the
memory it used goes back to the system with it.

Encodings travel as `EncodingRef`: the name of a built-in, or the data of a
session's own tokenizer (pattern, ranks, special tokens, merges).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Callable

import engine
from engine.train import build_encoding

PRELOAD = ("gpt2", "cl100k_base", "o200k_base")  # loaded once in the fork server, shared by every job


@dataclass(frozen=True)
class EncodingRef:
    """How to rebuild an encoding in another process: a built-in's name, or a custom one's data."""

    name: str
    builtin: bool
    pat_str: str = ""
    ranks: dict | None = None
    specials: dict | None = None
    merges: dict | None = None

    @classmethod
    def of(cls, enc: Any, builtin: bool) -> "EncodingRef":
        if builtin:
            return cls(enc.name, True)
        merges = enc.merges if enc.uses_pair_merges else None
        return cls(enc.name, False, enc.pat_str, dict(enc.mergeable_ranks), dict(enc.special_tokens), merges)

    def load(self) -> Any:
        if self.builtin:
            return engine.get_encoding(self.name)
        return engine.Encoding(self.name, pat_str=self.pat_str, mergeable_ranks=self.ranks,
                               special_tokens=self.specials, merges=self.merges)


def policy_kwargs(policy: str) -> dict[str, Any]:
    """encode() keyword arguments for a special-token policy of the sidebar."""
    if policy == "special":
        return {"allowed_special": "all"}
    if policy == "text":
        return {"allowed_special": set(), "disallowed_special": ()}
    return {}  # tiktoken's default: refuse special-token text with a ValueError


# ------------------------------------------------------------------ the tasks
def encode(ref: EncodingRef, text: str, policy: str) -> list[int]:
    return ref.load().encode(text, **policy_kwargs(policy))


def tokenize(ref: EncodingRef, text: str, policy: str) -> list:
    return ref.load().tokenize(text, **policy_kwargs(policy))


def pretokenize(ref: EncodingRef, text: str, policy: str) -> list:
    return ref.load().pretokenize(text, **policy_kwargs(policy))


def search_regex(ref: EncodingRef, query: str, ignore_case: bool, budget: float) -> list[int]:
    return engine.search_regex(ref.load(), query, ignore_case=ignore_case, timeout=budget)


def train(text: str, vocab_size: int, pat_str: str | None, specials: list[str], *, progress: Callable) -> dict:
    """Train, reporting each merge; returns what `build_encoding` needs to rebuild the result."""
    def on_merge(i: int, total: int, info: engine.MergeInfo) -> None:
        progress((i, total, info))

    with warnings.catch_warnings():  # an early stop is reported in enc.training.message instead
        warnings.simplefilter("ignore", engine.TrainingStoppedEarly)
        enc = engine.train_bpe(text, vocab_size, pat_str=pat_str, special_tokens=specials, progress=on_merge)
    merges = [pair for pair, _ in sorted(enc.merges.items(), key=lambda kv: kv[1])]
    pattern = None if pat_str is None else enc.pat_str
    return {"merges": merges, "pat_str": pattern, "specials": dict(enc.special_tokens), "name": enc.name,
            "report": enc.training}


def rebuild_trained(result: dict) -> Any:
    """The trained `Encoding` from `train`'s result, with its training report."""
    enc = build_encoding(result["merges"], pat_str=result["pat_str"], special_tokens=result["specials"],
                         name=result["name"])
    enc.training = result["report"]
    return enc


TASKS: dict[str, Callable] = {"encode": encode, "tokenize": tokenize, "pretokenize": pretokenize,
                              "search_regex": search_regex, "train": train}
PROGRESS_TASKS = {"train"}


def main(conn: Any, task: str, args: tuple) -> None:
    """Entry point of a job process: run `task`, send the outcome, exit."""
    try:
        fn = TASKS[task]
        if task in PROGRESS_TASKS:
            result = fn(*args, progress=lambda value: conn.send(("progress", value)))
        else:
            result = fn(*args)
        conn.send(("done", result))
    except Exception as exc:  # noqa: BLE001 -- every failure goes back to the parent as a message
        # The engine's own errors (ValueError, its TimeoutError subclasses) carry messages that say the fix.
        conn.send(("error", type(exc).__name__, str(exc), isinstance(exc, (ValueError, TimeoutError))))
    finally:
        conn.close()


def warm() -> None:
    """Load the built-in vocabularies (called in the fork server, once)."""
    for name in PRELOAD:
        engine.get_encoding(name)
