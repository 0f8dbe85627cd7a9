"""`ClaudeTokenizer`: Claude 3 through Opus 4.x counted offline, reconstructed by ctok 1.3.0 -- labelled as such.

Anthropic publishes no tokenizer after Claude 2 (`claude-legacy`).  ctok (Sander Land, MIT) rebuilt the
*count* from measurements of Anthropic's ``count_tokens``: its authors report equal counts on 962,053 of
962,054 Goldfish rows in 350 languages and on every held-out text they kept, with no under-count in 2.3 M
texts.  Its token *boundaries* are one valid minimum-cost tiling, not Claude's.  So this family answers
"how many tokens" and shows a tiling that explains the number; it never claims to show Claude's ids.

How a count is made (each step in its own module):

1. normalise: NFC, C0/C1 controls and BMP private use removed, odd spaces read as spaces, curly quotes
   folded to ASCII (v3 only) -- `stream.nfc`;
2. rewrite into the marked stream: ⟨bow⟩/⟨eow⟩ around each word (a single space between two words is the
   seam ⟨eow⟩⟨bow⟩ and costs nothing of its own), ⟨shift⟩/⟨caps⟩ before a Title-case / ALL-CAPS word that
   is then lowered (v3 writes ⟨caps⟩ from 4 letters on; v4.7 has no ⟨caps⟩) -- `stream.stream_norm`;
3. tile it with the fewest pieces of the measured vocabulary; a character no piece covers falls back to
   its UTF-8 bytes (a few byte prefixes are pieces) -- `tiling.tile`;
4. add the message frame: the fixed tokens of a one-message request (7 on v3, 11 on v4.7, 6 on v4.8), and
   the frame's two closing newlines, which a content-final newline run can share.

Three families, as ctok routes a requested version ("3.0" <= v < "4.7" -> v3, "4.7" -> v4.7, >= "4.8" -> v4.8):

* ``claude-3``: Claude 3, 3.5, 3.7, 4, 4.1, 4.5 and Opus 4.6; 48,792 pieces;
* ``claude-4.7``: Opus 4.7; 15,283 pieces, curly quotes kept, no ⟨caps⟩;
* ``claude-4.8``: Opus 4.8 and later (Sonnet 5, Fable 5): v4.7's vocabulary under a six-token frame that
  ends in no ⟨bow⟩ (a leading space is a character, not the frame's).

    >>> get_claude("claude-3").count_tokens("hello, world")
    10
    >>> claude_name_for_model("claude-opus-4-7")
    'claude-4.7'
"""
from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ...errors import UnknownEncodingError, UnknownModelError
from ...formats.tiktoken_files import read_data_file
from .markers import MARKER_GLYPHS, PAD
from .notation import parse_marked, render_bytes, render_marked
from .stream import nfc
from .tiling import ByteFloor, ReverseTrie, glued_contraction, tile

LABEL = ("reconstructed (ctok 1.3.0): counts matched Anthropic's API in its authors' tests; "
         "the drawn boundaries are one valid tiling, not Claude's")
CTOK_VERSION = "1.3.0"


@dataclass(frozen=True)
class ClaudeSpec:
    """One reconstructed generation: its vocabulary file and the measured scalars ctok overrides on it."""

    name: str
    family: str  # ctok's name for it: "v3", "v4.7", "v4.8"
    models: str  # for people
    file: str
    sha256: str  # of the uncompressed file, ctok 1.3.0's ``ctok/data/pieces_*.json`` byte for byte
    min_version: tuple[int, ...]
    meta: tuple[tuple[str, object], ...] = ()


_V3 = ("claude_pieces_v3.json.gz", "4c6db216062ef01e70ba033ff52ad3b97f886e79877235f2c7bbbd40d09ffb9b")
_V47 = ("claude_pieces_v4_7.json.gz", "a785fc240010c855f3d9a498fbd422ee389752dd151f1d5eef57ca8c85c19993")

SPECS: dict[str, ClaudeSpec] = {spec.name: spec for spec in (
    ClaudeSpec("claude-3", "v3", "Claude 3, 3.5, 3.7, 4, 4.1, 4.5, Opus 4.6", *_V3, (3, 0)),
    ClaudeSpec("claude-4.7", "v4.7", "Claude Opus 4.7", *_V47, (4, 7)),
    # Opus 4.8 and later reuse v4.7's vocabulary under a six-token frame that ends in no ⟨bow⟩
    ClaudeSpec("claude-4.8", "v4.8", "Claude Opus 4.8, Sonnet 5, Fable 5", *_V47, (4, 8),
               (("message_overhead", 6), ("frame_bow", False))),
)}


@dataclass(frozen=True)
class ClaudeTiling:
    """One text counted: the frame, the content's tokens in public notation and the stream they tile."""

    name: str
    frame: int  # the message frame's fixed tokens
    tokens: tuple[str, ...]  # ``⟨shift⟩⟨bow⟩hello⟨eow⟩``, ``⟨0xE0⟩``, ``\n\n``: one per token, frame excluded
    stream: str  # the marked stream, in public notation
    normalized: str  # the text after normalisation (what the stream spells)

    @property
    def count(self) -> int:
        """What ``count_tokens`` answers for a request holding this text as its one user message."""
        return self.frame + len(self.tokens)


class ClaudeTokenizer:
    """A loaded family: the vocabulary plus the scalars the stream and the tiling read."""

    label = LABEL

    def __init__(self, spec: ClaudeSpec, doc: dict[str, Any]) -> None:
        meta = {**doc["meta"], **dict(spec.meta)}
        self.name = spec.name
        self.spec = spec
        self.message_overhead: int = meta["message_overhead"]
        self.fold_quotes: bool = meta["fold_quotes"]
        self.allcaps_min: int | None = meta["allcaps_min"]
        self.frame_bow: bool = meta.get("frame_bow", True)  # does the frame end in a ⟨bow⟩ that absorbs a space
        tokens = doc["tokens"]
        # every group holds one-token pieces except the byte fallback, which holds byte prefixes (hex)
        parsed = [parse_marked(p) for group, ps in tokens.items() if group != "bytes_fallback" for p in ps]
        self.unit_pieces = frozenset(c for c in parsed if len(c) == 1 and c not in MARKER_GLYPHS)
        self.bytes = ByteFloor(tokens["bytes_fallback"], self.unit_pieces)
        self.vocab = frozenset(parsed) | {glued_contraction(s) for s in tokens["contractions"]}
        self.trie = ReverseTrie(self.vocab)
        self.char_cost_cache: dict[str, int] = {}
        self.n_pieces = sum(len(ps) for ps in tokens.values())
        self._lock = threading.Lock()  # the byte-floor memo and char cache are shared between sessions

    def tiling(self, text: str) -> ClaudeTiling:
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        with self._lock:
            _cost, toks, stream = tile(text, self)
        rendered = tuple(render_marked(t) if isinstance(t, str) else render_bytes(t) for t in toks)
        return ClaudeTiling(self.name, self.message_overhead, rendered, render_marked(stream),
                            nfc(text, fold_quotes=self.fold_quotes))

    def count_tokens(self, text: str) -> int:
        """ctok's ``token_count(text, version)``: the text as one user message, frame included.  (No tokens
        are spelt out: a live count does not pay for rendering them.)"""
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        with self._lock:
            cost, _toks, _stream = tile(text, self)
        return self.message_overhead + cost

    def frame_tokens(self) -> list[str]:
        return [PAD] * self.message_overhead


_LOADED: dict[str, ClaudeTokenizer] = {}
_LOAD_LOCK = threading.Lock()


def list_claude_names() -> list[str]:
    return list(SPECS)


def get_claude(name: str) -> ClaudeTokenizer:
    """The reconstructed family `name` (``claude-3``, ``claude-4.7``, ``claude-4.8``), loaded once."""
    hit = _LOADED.get(name) if isinstance(name, str) else None
    if hit is not None:
        return hit
    if not isinstance(name, str) or name not in SPECS:
        raise UnknownEncodingError(name, list(SPECS))
    spec = SPECS[name]
    with _LOAD_LOCK:
        if name not in _LOADED:
            doc = json.loads(read_data_file(spec.file, spec.sha256))
            _LOADED[name] = ClaudeTokenizer(spec, doc)
    return _LOADED[name]


def claude_name_for_version(version: str) -> str:
    """ctok's routing of a requested version string: "3.5" -> claude-3, "4.7" -> claude-4.7, "5" -> claude-4.8."""
    if not isinstance(version, str):
        raise TypeError(f'version must be a string like "4.7" (the float 4.10 would read as 4.1), not {version!r}')
    try:
        v = tuple(int(part) for part in version.split("."))
    except ValueError:
        raise ValueError(f"unknown Claude version {version!r}: write it as digits and dots, like \"3.5\" or \"4.7\"") from None
    for spec in sorted(SPECS.values(), key=lambda s: s.min_version, reverse=True):
        n = max(len(v), len(spec.min_version))
        if v + (0,) * (n - len(v)) >= spec.min_version + (0,) * (n - len(spec.min_version)):
            return spec.name
    raise ValueError(f"Claude {version} is before Claude 3: use `claude-legacy` (the Claude 1–2 tokenizer)")


# claude-3-5-sonnet-20241022, claude-sonnet-4-5, claude-opus-4-7, anthropic.claude-3-haiku-20240307-v1:0,
# claude-3-5-sonnet-v2@20241022, claude-opus-4.1: the generation is the first number and, when one or two
# digits follow (not a date), the second
_MODEL = re.compile(r"(?:^|[./:])claude[-_ ]?(?:(?:opus|sonnet|haiku|fable)[-_ ]?)?(\d{1,2})(?:[-_.](\d{1,2})(?!\d))?"
                    r"(?:$|[-_:.@ ])")


def claude_name_for_model(model_name: str) -> str:
    """The reconstructed family a Claude 3+ model name uses, as ctok routes its version; `UnknownModelError`
    (a KeyError) for anything else."""
    m = _MODEL.search(model_name.lower()) if isinstance(model_name, str) else None
    if m is None or int(m.group(1)) < 3:
        raise UnknownModelError(str(model_name), [], note="Claude 3 and later model names look like claude-3-5-sonnet, "
                                "claude-sonnet-4-5 or claude-opus-4-7; Claude 1–2 use `claude-legacy`.")
    version = m.group(1) + ("." + m.group(2) if m.group(2) else "")
    return claude_name_for_version(version)


class ClaudeConversationError(ValueError):
    """A conversation the reconstruction cannot count, and why."""


def one_user_message(messages: Sequence[Mapping[str, Any]], tools: Sequence[Any] = ()) -> str:
    """The text of a conversation that is exactly one user message: the only request ctok measured (its
    frame is that of a one-message ``count_tokens`` call).  `ClaudeConversationError` says why otherwise:
    the frame of a system prompt, of several turns and of tool definitions was not reconstructed, and a
    number for them would be a guess."""
    if tools:
        raise ClaudeConversationError("the reconstruction counts one user message without tools (the tool "
                                      "definitions' frame was not measured): clear the tools to see Claude's counts")
    if len(messages) != 1:
        raise ClaudeConversationError(f"the reconstruction counts one user message; this conversation has "
                                      f"{len(messages)} messages: keep one user message to see Claude's counts")
    (message,) = messages
    if message.get("role") != "user":
        raise ClaudeConversationError(f"the reconstruction counts one user message; this one is from "
                                      f"{message.get('role')!r}: make it a user message to see Claude's counts")
    extras = [k for k, v in message.items() if k not in ("role", "content") and v]
    if extras:
        raise ClaudeConversationError(f"the reconstruction counts a plain user message; this one also has "
                                      f"{', '.join(extras)}: remove it to see Claude's counts")
    content = message.get("content") or ""
    if not isinstance(content, str):
        raise ClaudeConversationError("the reconstruction counts a message of text: this one's content is not text")
    return content
