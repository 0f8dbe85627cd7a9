"""How much of a model's context window a request fills, part by part, like Claude Code's ``/context``.

    >>> use = window_use([("tools", 120), ("message 1 · system", 10), ("message 2 · user", 30),
    ...                   ("frame", 1), ("priming", 3)], window=1_000, reserved_output=200)
    >>> [(p.label, p.tokens) for p in use.parts]
    [('system', 10), ('tools', 120), ('messages', 34), ('images', 0), ('reserved output', 200)]
    >>> use.prompt, use.used, use.free, use.over
    (164, 364, 636, 0)

The parts come from a chat row's breakdown (engine.chat's ``ChatTokens.breakdown()``, as (label, tokens)
pairs, so this module needs nothing of engine.chat): *system* is every system message, *tools* the tool
definitions, *messages* everything else the prompt holds -- the other messages, the frame (begin-of-text
and the like) and the tokens that prime the reply, so system + tools + messages is the row's count exactly.
*Images* are the tokens of image and PDF parts, counted beside the row by the maker's published rule
(engine.chat.media: a chat row encodes text only), so they come on top of it.  *Reserved output* is the request's ``max_tokens``: a window holds the prompt and the
reply together, so the reply's room is spent before it is written.  *Free* is what is left; a request past
the window says by how much (`over`).

`tool_costs` says what each tool costs: its marginal tokens (the count with every tool minus the count
without it), and what the tools share (the wrapper a format writes once around them) as one more line, so
the lines add up to the tools part.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

PARTS = ("system", "tools", "messages", "images", "reserved output")
SHARED = "shared by the tools"  # the tool_costs line for what no single tool accounts for


@dataclass(frozen=True)
class WindowPart:
    label: str  # one of PARTS
    tokens: int


@dataclass(frozen=True)
class WindowUse:
    """A request against a context window: the parts in `PARTS` order, and the window (None: unknown)."""

    parts: tuple[WindowPart, ...]
    window: int | None
    tool_costs: tuple[tuple[str, int], ...] = ()  # (tool name or SHARED, tokens): they add up to the tools part

    def tokens(self, label: str) -> int:
        return next(p.tokens for p in self.parts if p.label == label)

    @property
    def prompt(self) -> int:
        """Tokens of the request itself: everything but the reserved output (the row's count, and its images)."""
        return sum(p.tokens for p in self.parts if p.label != "reserved output")

    @property
    def used(self) -> int:
        return sum(p.tokens for p in self.parts)

    @property
    def free(self) -> int | None:
        return None if self.window is None else max(0, self.window - self.used)

    @property
    def over(self) -> int:
        """Tokens past the window (0 when it fits or the window is unknown)."""
        return 0 if self.window is None else max(0, self.used - self.window)


def window_use(breakdown: Iterable[tuple[str, int]], *, window: int | None, reserved_output: int = 0,
               image_tokens: int = 0, tool_costs: Iterable[tuple[str, int]] = ()) -> WindowUse:
    """The parts of a chat row's `breakdown` ((label, tokens) pairs as ``ChatTokens.breakdown()`` labels
    them) with `image_tokens` (the row's image and PDF parts, counted beside its text) and `reserved_output`
    (``max_tokens``)."""
    if reserved_output < 0 or image_tokens < 0:
        raise ValueError("reserved output and image tokens are counts: 0 or more")
    groups = {label: 0 for label in PARTS}
    for label, tokens in breakdown:
        if label == "tools":
            groups["tools"] += tokens
        elif label.endswith("· system"):
            groups["system"] += tokens
        else:
            groups["messages"] += tokens
    groups["images"] = image_tokens
    groups["reserved output"] = reserved_output
    return WindowUse(tuple(WindowPart(label, groups[label]) for label in PARTS), window, tuple(tool_costs))


def tool_costs(tools_tokens: int, with_all: int, without_each: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    """Each tool's marginal cost -- `with_all` (the count with every tool) minus its entry of `without_each`
    (the count with that tool left out) -- and the rest of the tools part, shared by them, as a last line.

    >>> tool_costs(100, 500, {"get_weather": 440, "read_file": 470})
    (('get_weather', 60), ('read_file', 30), ('shared by the tools', 10))
    """
    out = [(name, with_all - count) for name, count in without_each.items()]
    shared = tools_tokens - sum(tokens for _name, tokens in out)
    return tuple(out + ([(SHARED, shared)] if shared else []))
