"""What every chat format shares: the message, the returned data, and the two ways formats tokenize.

A chat model never sees "messages"; it sees one token sequence in which the
maker's *template* (role headers, turn ends, the bits that prime the reply)
surrounds the *content* the user typed.  Each format module turns a list of
`Message` into that sequence and returns it as `Segment` runs, so a reader can
see which tokens are template and which are content, and `ChatTokens.count` is
the number a context window or a bill sees -- including the tokens that prime
the reply (``add_generation_prompt`` in Hugging Face's words).

Formats tokenize in one of two ways, and the difference matters for exactness:

- **piece by piece** (Llama 3/4 via llama-models, Mistral via mistral-common,
  Harmony, OpenAI's counting rule): each piece of text is encoded on its own and
  the ids are concatenated, so a token never spans template and content.
  `Builder.special`, `.text` and `.content` do this.
- **one string** (Hugging Face chat templates: Qwen, DeepSeek): the template is
  rendered to one string, which is then encoded as a whole with special-token
  text recognised -- so special-token text typed *inside* content becomes a
  special token, and an ordinary-text token can span a template/content edge
  (Qwen 2.5's ``<tool_response>`` is plain text).  `render_whole` does this and
  calls a token "content" when any of its characters is content.

Traps: ``\\n\\n`` after a Llama header is its own encode call (two tokens
``\\n\\n`` → one id, not merged with the content); SentencePiece puts a ``▁``
before every separately encoded piece, which is why Mistral v1 and v3 counts
differ from "the same text in one go".
"""
from __future__ import annotations

import threading
import unicodedata
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Literal, Sequence

Role = Literal["system", "user", "assistant", "tool"]
ROLES: tuple[str, ...] = ("system", "user", "assistant", "tool")
Kind = Literal["template", "content"]
FIELDS: tuple[str, ...] = ("role", "content", "name", "tool_call_id", "call")
REASONING = "reasoning_content"  # an assistant message's optional field, beside FIELDS (see Message)
# Segment.message for tokens that belong to no message: the tool definitions (wherever a format puts
# them, even inside the system turn) and the frame (a begin-of-text token, the reply priming).
TOOLS, FRAME = -2, -1


class ChatFormatError(ValueError):
    """A conversation this chat format cannot express; the message says what to change."""


class UnknownChatFormatError(ChatFormatError, KeyError):
    """No chat format of that name, or none for that encoding."""

    def __str__(self) -> str:  # KeyError would print the message in quotes
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class ToolCall:
    """One function call an assistant message makes: the tool's name, its arguments as the API sends
    them (a JSON string; formats that write them as JSON parse it), and the call's id."""

    name: str
    arguments: str
    id: str | None = None


@dataclass(frozen=True)
class Message:
    """One turn.  ``name`` is the speaker's name (OpenAI, Harmony) or, for a tool
    message, the tool's name; ``tool_call_id`` ties a tool result to its call (Mistral v3).

    An assistant message calls tools in one of two spellings: ``tool_calls`` (OpenAI's: any number
    of calls, beside text in ``content`` or not), or the one-call shorthand the Chat page edits,
    ``call`` = the tool's name with ``content`` = its JSON arguments and ``tool_call_id`` = the
    call's id.  Formats read both through `calls` and `text`."""

    role: str
    content: str
    name: str | None = None
    tool_call_id: str | None = None
    call: str | None = None  # an assistant message that calls tool `call`; its content is the JSON arguments
    tool_calls: tuple[ToolCall, ...] = ()
    # A reasoning model's thoughts kept beside the reply (the field OpenAI-style agent code carries);
    # None is "not given", which templates tell apart from "" (they then look for </think> in the text).
    reasoning_content: str | None = None

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ChatFormatError(f"unknown role {self.role!r}: use one of {', '.join(ROLES)}")
        if self.reasoning_content is not None:
            if not isinstance(self.reasoning_content, str):
                raise ChatFormatError(f"reasoning_content must be text, not {type(self.reasoning_content).__name__}")
            if self.role != "assistant":
                raise ChatFormatError(f"only an assistant message has reasoning_content; clear it on the {self.role} "
                                      "message")
        if (self.call is not None or self.tool_calls) and self.role != "assistant":
            raise ChatFormatError(f"only an assistant message can call a tool; clear 'call' on the {self.role} message")
        if self.call is not None and self.tool_calls:
            raise ChatFormatError("a message has both 'call' and 'tool_calls': keep one")
        if not isinstance(self.content, str):
            raise ChatFormatError(f"{a(self.role)} message's content must be text, not {type(self.content).__name__}")

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        """The tool calls this message makes, whichever way they were spelled."""
        if self.call:
            return (ToolCall(self.call, self.content, self.tool_call_id),)
        return self.tool_calls

    @property
    def text(self) -> str:
        """What the message says besides its calls (the shorthand's content is the arguments, not text)."""
        return "" if self.call else self.content

    @classmethod
    def from_dict(cls, data: dict) -> "Message":
        """From a dict: role, content, and optional name / tool_call_id / call."""
        if not isinstance(data, dict):
            raise ChatFormatError(f"a message must be an object with role and content, not {type(data).__name__}")
        unknown = set(data) - set(FIELDS) - {REASONING}
        if unknown:
            raise ChatFormatError(f"unknown message field(s) {sorted(unknown)}: allowed are {', '.join(FIELDS)}, "
                                  f"{REASONING}")
        if "role" not in data or "content" not in data:
            raise ChatFormatError("a message needs both 'role' and 'content'")
        extra = {k: data.get(k) or None for k in FIELDS[2:]}
        for label, value in extra.items():
            if value is not None and not isinstance(value, str):
                raise ChatFormatError(f"a message's {label} must be text")
        return cls(data["role"], data["content"], **extra, reasoning_content=data.get(REASONING))

    def to_dict(self) -> dict:
        out = {"role": self.role, "content": self.content}
        if self.name:
            out["name"] = self.name
        for k in FIELDS[2:]:
            if getattr(self, k):
                out[k] = getattr(self, k)
        if self.reasoning_content is not None:
            out[REASONING] = self.reasoning_content
        if self.tool_calls:
            out["tool_calls"] = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                                 if c.id else {"type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                                 for c in self.tool_calls]
        return out


@dataclass(frozen=True)
class Segment:
    """A run of tokens of one kind.  ``ids`` may hold ``None`` where the maker counts a
    token but publishes no id (OpenAI's ChatML overhead).  ``char_start``/``char_end``
    index `ChatTokens.text`; ``message`` is the message index, -1 for the reply priming
    and for text before the first message."""

    kind: Kind
    text: str
    ids: tuple[int | None, ...]
    char_start: int
    char_end: int
    message: int


@dataclass(frozen=True)
class Part:
    """One line of the breakdown: ``label`` ("system", "tools", "message 2 · user", "frame",
    "priming"), the message index (`TOOLS`, `FRAME`, or -3 for the priming) and its tokens."""

    label: str
    message: int
    tokens: int


@dataclass(frozen=True)
class ChatTokens:
    """The whole sequence a model's chat format makes of a conversation."""

    format: str
    encoding: str
    segments: tuple[Segment, ...]
    priming: int  # tokens that prime the reply, already in `count`
    note: str = ""
    roles: tuple[str, ...] = ()  # the messages' roles, for the breakdown's labels
    thinking: object = None  # the thinking setting the count was made with (the format's default filled in)

    def breakdown(self) -> list[Part]:
        """Where the tokens go: the tool definitions, each message (system messages labelled so), the
        frame (begin-of-text and other tokens of no message) and the reply priming.  The parts add
        up to `count`; tools a format writes inside the system turn count as tools, not system."""
        per: dict[int, int] = {}
        for s in self.segments:
            per[s.message] = per.get(s.message, 0) + len(s.ids)
        frame = per.pop(FRAME, 0) - self.priming
        out = [Part("tools", TOOLS, per.pop(TOOLS, 0))] if TOOLS in per else []
        for i in sorted(k for k in per if k >= 0):
            role = self.roles[i] if i < len(self.roles) else "message"
            out.append(Part(f"message {i + 1} · {role}", i, per[i]))
        if frame:
            out.append(Part("frame", FRAME, frame))
        out.append(Part("priming", -3, self.priming))
        return out

    @property
    def ids(self) -> list[int | None]:
        return [i for s in self.segments for i in s.ids]

    @property
    def count(self) -> int:
        return sum(len(s.ids) for s in self.segments)

    @property
    def text(self) -> str:
        return "".join(s.text for s in self.segments)

    @property
    def template_count(self) -> int:
        return sum(len(s.ids) for s in self.segments if s.kind == "template")

    @property
    def content_count(self) -> int:
        return self.count - self.template_count


@dataclass
class Builder:
    """Collects pieces encoded one by one (the piece-by-piece formats)."""

    enc: object
    segments: list[Segment] = field(default_factory=list)
    message: int = -1
    _pos: int = 0

    def _add(self, kind: Kind, text: str, ids: Sequence[int | None]) -> None:
        if not ids and not text:
            return
        last = self.segments[-1] if self.segments else None
        counted = None in ids or (last is not None and None in last.ids)  # a counted token stays its own run
        if last is not None and last.kind == kind and last.message == self.message and not counted:
            self.segments[-1] = Segment(kind, last.text + text, last.ids + tuple(ids), last.char_start,
                                        self._pos + len(text), self.message)
        else:
            self.segments.append(Segment(kind, text, tuple(ids), self._pos, self._pos + len(text), self.message))
        self._pos += len(text)

    def special(self, token: str) -> None:
        """A special token of the template, by its text (must be in the vocabulary)."""
        self._add("template", token, [self.enc.encode_single_token(token)])

    def text(self, text: str) -> None:
        """Template text, encoded on its own as ordinary text."""
        if text:
            self._add("template", text, self.enc.encode_ordinary(text))

    def content(self, text: str) -> None:
        """The user's text, encoded on its own; special-token text stays plain text."""
        if text:
            self._add("content", text, self.enc.encode_ordinary(text))

    def encoded(self, kind: Kind, text: str, ids: Sequence[int]) -> None:
        """A piece the format encoded with a call of its own (Gemini's Gemma 4 path: special-token text read)."""
        self._add(kind, text, ids)

    def ordinary_whole(self, parts: Sequence[tuple[Kind, str, int]]) -> None:
        """Several pieces (kind, text, message index) written by the maker's code as ONE ordinary
        encode call, so a token may span two pieces; each token goes to the piece its first
        character is in ("content" if it touches content)."""
        text = "".join(p[1] for p in parts)
        if not text:
            return
        kind_of_char: list[tuple[Kind, int]] = []
        for kind, piece, msg in parts:
            kind_of_char.extend([(kind, msg)] * len(piece))
        runs: list[_Run] = []
        _encode_run(self.enc, text, 0, kind_of_char, runs)
        for r in runs:
            self.message = r.message
            self._add(r.kind, "".join(r.texts), r.ids)

    def counted(self, kind: Kind, text: str, n: int) -> None:
        """Tokens the maker counts but whose ids are not public (``None`` ids)."""
        self._add(kind, text, [None] * n)


def render_whole(enc: object, parts: Sequence[tuple[Kind, str, int]],
                 extra: dict[str, int] | None = None) -> list[Segment]:
    """Encode the concatenated text of ``parts`` (kind, text, message index) in one go,
    special-token and added-token text recognised everywhere (`template_tokens`, plus `extra`: text -> id
    that the template's own tokenizer adds), as a Hugging Face chat template does; then
    cut the ids back into runs by kind.  A token is "content" when any of its bytes is."""
    text = "".join(p[1] for p in parts)
    kind_of_char: list[tuple[Kind, int]] = []
    for kind, piece, msg in parts:
        kind_of_char.extend([(kind, msg)] * len(piece))
    whole = template_tokens(enc) | (extra or {})
    specials = sorted(whole, key=len, reverse=True)
    runs: list[_Run] = []
    pos = 0
    for run, is_special in _split_specials(text, specials):
        if is_special:
            _append(runs, kind_of_char[pos][0], run, [whole[run]], pos, kind_of_char[pos][1])
        elif run:
            _encode_run(enc, run, pos, kind_of_char, runs)
        pos += len(run)
    return [Segment(r.kind, "".join(r.texts), tuple(r.ids), r.start, r.end, r.message) for r in runs]


def template_tokens(enc: object) -> dict[str, int]:
    """Every text a chat template's tokenizer reads as one token: the special tokens and the non-special added
    tokens (Qwen's ``<tool_call>``, ``<think>``), which transformers finds in any text.  A rank-file built-in
    keeps the latter in ``added_tokens`` (text -> id), a tokenizer.json one as `AddedToken` records."""
    out = {t: enc.encode_single_token(t) for t in enc.special_tokens_set}
    added = getattr(enc, "added_tokens", None) or ()
    if isinstance(added, dict):
        out.update(added)
    else:
        out.update((t.content, t.id) for t in added)
    return out


def _split_specials(text: str, specials: Sequence[str]) -> list[tuple[str, bool]]:
    out: list[tuple[str, bool]] = []
    start = i = 0
    first = {s[0] for s in specials}
    while i < len(text):
        if text[i] in first:
            hit = next((s for s in specials if text.startswith(s, i)), None)
            if hit is not None:
                out.append((text[start:i], False))
                out.append((hit, True))
                i += len(hit)
                start = i
                continue
        i += 1
    out.append((text[start:], False))
    return [(t, s) for t, s in out if t]


# Counting only (`counting_only`, for `chat_count`): a run's ids are what they always are, but the per-token
# walk that tells template from content -- nine tenths of a long message's time -- is skipped, and the run goes
# whole to the kind of its first character.  Per thread, like engine.deadline: one session's count never changes
# how another's sequence is drawn.
_counting = threading.local()


@contextmanager
def counting_only():
    """Within it, `render_whole` and `Builder.ordinary_whole` give the right ids and count, but each run is one
    segment of its first character's kind and message (for a caller that wants only the number)."""
    before = getattr(_counting, "on", False)
    _counting.on = True
    try:
        yield
    finally:
        _counting.on = before


def _encode_run(enc: object, run: str, pos: int, kind_of_char: list, segments: list[_Run]) -> None:
    """Encode one special-free run and give each token the kind of the characters its bytes cover.

    A token's text is the run's characters from where the previous token's text ended up to the
    last character it touches, so the segments' texts still add up to the rendered string (a
    token that only finishes a character another token began gets no text of its own)."""
    ids = enc.encode_ordinary(run)
    if getattr(_counting, "on", False):
        kind, message = kind_of_char[pos]
        _append(segments, kind, run, ids, pos, message)
        return
    norm = unicodedata.normalize("NFC", run)  # Qwen normalizes first; then offsets are scaled
    byte_to_char: list[int] = []
    for ci, ch in enumerate(norm):
        byte_to_char.extend([ci] * len(ch.encode("utf-8")))
    total = len(byte_to_char)
    scale = len(run) / len(norm) if norm else 1.0
    done = b = 0
    for tid in ids:
        n = len(enc.decode_single_token_bytes(tid))
        lo = byte_to_char[b] if b < total else len(norm)
        hi = byte_to_char[min(b + n, total) - 1] + 1 if n and b < total else lo
        if norm != run:
            lo, hi = int(lo * scale), min(len(run), round(hi * scale))
        covered = kind_of_char[pos + lo: pos + max(hi, lo + 1)] or [kind_of_char[pos + len(run) - 1]]
        kind = "content" if any(k == "content" for k, _ in covered) else "template"
        text = run[done:hi] if hi > done else ""
        _append(segments, kind, text, [tid], pos + done, covered[0][1])
        done = max(done, hi)
        b += n
    if done < len(run) and segments:  # characters no token covered (never expected): keep the text whole
        segments[-1].texts.append(run[done:])
        segments[-1].end = pos + len(run)


@dataclass
class _Run:
    """A segment being built: its texts and ids grow in place (a new tuple per token would make
    building a long message's segments quadratic in its length)."""

    kind: Kind
    texts: list[str]
    ids: list[int]
    start: int
    end: int
    message: int


def _append(runs: list[_Run], kind: Kind, text: str, ids: list[int], start: int, message: int) -> None:
    last = runs[-1] if runs else None
    if last is not None and last.kind == kind and last.message == message:
        last.texts.append(text)
        last.ids.extend(ids)
        last.end = start + len(text)
    else:
        runs.append(_Run(kind, [text], list(ids), start, start + len(text), message))


def a(word: str) -> str:
    """``word`` with its indefinite article: "an assistant", "a user" (refusals are read by people)."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def unsupported_tools(tools: Sequence[dict], fmt: str, why: str) -> None:
    """Refuse tool definitions in a format whose tools block is not modelled; ``why`` says what is missing."""
    if tools:
        raise ChatFormatError(f"{fmt} does not count tool definitions here: {why} (remove the tools to count "
                              "the conversation)")


def ignored_names(fmt: str, messages: Sequence[Message]) -> str:
    """The note for names a format has no place for (they are left out, as the maker's code does)."""
    if any(m.name for m in messages):
        return f"{fmt} has no name field: names are left out, as its reference does."
    return ""


def ignored_reasoning(fmt: str, messages: Sequence[Message]) -> str:
    """The note for ``reasoning_content`` in a format whose reference never reads it (left out, as there)."""
    if any(m.reasoning_content for m in messages):
        return f"{fmt} does not read reasoning_content: it is left out, as its reference leaves it out."
    return ""
