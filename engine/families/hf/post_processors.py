"""The ``post_processor`` of a ``tokenizer.json``: the special tokens a model wants around a text, as `tokenizers` 0.23
adds them on ``encode(text, add_special_tokens=True)``.

For one text (this engine encodes one sequence at a time) every post-processor comes down to ids *before*
and ids *after* the text's own: BERT's ``[CLS] … [SEP]``, RoBERTa's ``<s> … </s>``, Llama's ``<s> …``.

* ``TemplateProcessing``: the ``single`` template, e.g. ``[{"SpecialToken": {"id": "<s>"}}, {"Sequence":
  {"id": "A"}}]``; each special token's ids come from the file's ``special_tokens`` table (one name may
  stand for several ids);
* ``BertProcessing`` (``cls``, ``sep`` as ``[text, id]``): ``cls A sep``;
* ``RobertaProcessing``: the same shape (``<s> A </s>``); its ``trim_offsets`` and ``add_prefix_space``
  move offsets only;
* ``ByteLevel``: adds nothing (it trims offsets);
* ``Sequence``: each processor runs on what the previous one made -- and, as in tokenizers, that is a
  *list of parts*: a template returns each of its special tokens and the text as separate parts, so a
  ``BertProcessing`` after a ``<s> $A`` template sees two sequences (``[CLS] <s> [SEP] A [SEP]``).

Whether special tokens are added is the caller's choice (the tiktoken-style ``encode`` never adds them;
``encode_for_model`` does).  The ``pair`` template is read and shown, not applied.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["PostProcessor", "post_processor_from_json"]


Parts = list[tuple[int, ...]]


@dataclass(frozen=True)
class PostProcessor:
    """One post-processor: what it does to tokenizers' list of parts (one part per sequence at first), and
    what the file says, for people."""

    kind: str
    description: str  # "TemplateProcessing: <s> $A" -- what the playground shows
    pair: str | None = None  # the pair template, shown only
    single_template: tuple[tuple[int, ...] | None, ...] = ()  # Template: special ids per piece, None = $A
    pair_template: tuple[tuple[int, ...] | int, ...] = ()  # Template: special ids, or 0 / 1 for $A / $B
    cls: tuple[int, ...] = ()  # Bert / Roberta
    sep: tuple[int, ...] = ()
    steps: tuple["PostProcessor", ...] = ()  # Sequence

    def parts(self, parts: Parts) -> Parts:
        """tokenizers' ``process_encodings(parts, add_special_tokens=True)``."""
        if self.kind == "Sequence":
            for step in self.steps:
                parts = step.parts(parts)
            return parts
        if self.kind == "TemplateProcessing":
            if len(parts) == 1:
                return [parts[0] if piece is None else piece for piece in self.single_template]
            if len(parts) == 2:
                return [parts[piece] if isinstance(piece, int) else piece for piece in self.pair_template]
            raise ValueError(f"{self.description}: a template takes one or two sequences, not {len(parts)} "
                             "(tokenizers cannot run this Sequence of post-processors either)")
        if self.kind == "BertProcessing":
            return [self.cls + p + self.sep if i == 0 else p + self.sep for i, p in enumerate(parts)]
        if self.kind == "RobertaProcessing":
            return [self.cls + p + self.sep if i == 0 else self.sep + p + self.sep for i, p in enumerate(parts)]
        return parts  # ByteLevel: offsets only

    def apply(self, ids: list[int]) -> list[int]:
        """`ids` of one text with the special tokens added (tokenizers' ``add_special_tokens=True``)."""
        return [i for part in self.parts([tuple(ids)]) for i in part]

    @property
    def before(self) -> tuple[int, ...]:
        """The special ids put before a text's own."""
        marked = self.apply([-1])
        return tuple(marked[:marked.index(-1)])

    @property
    def after(self) -> tuple[int, ...]:
        marked = self.apply([-1])
        return tuple(marked[marked.index(-1) + 1:])

    @property
    def adds_tokens(self) -> bool:
        return self.apply([]) != []


def post_processor_from_json(node: Any, where: Any, path: str = "$.post_processor") -> PostProcessor | None:
    """The post-processor at `path` (None for null); `where` is tokenizer_json's `_Where` (errors name the path)."""
    if node is None:
        return None
    kind = where.get(node, "type", path, str)
    if kind == "ByteLevel":
        return PostProcessor("ByteLevel", "ByteLevel (offsets only: adds no token)")
    if kind in ("BertProcessing", "RobertaProcessing"):
        cls, sep = (_text_id(where.get(node, key, path, list), f"{path}.{key}", where) for key in ("cls", "sep"))
        return PostProcessor(kind, f"{kind}: {cls[0]} $A {sep[0]}",
                             f"{cls[0]} $A {sep[0]} {sep[0]} $B {sep[0]}" if kind == "RobertaProcessing"
                             else f"{cls[0]} $A {sep[0]} $B {sep[0]}", cls=(cls[1],), sep=(sep[1],))
    if kind == "TemplateProcessing":
        return _template(node, path, where)
    if kind == "Sequence":
        steps = [p for i, item in enumerate(where.get(node, "processors", path, list))
                 if (p := post_processor_from_json(item, where, f"{path}.processors[{i}]")) is not None]
        return PostProcessor("Sequence", "Sequence: " + "; then ".join(p.description for p in steps), steps=tuple(steps))
    raise where.fail(path, f"post-processor {kind!r} is not supported",
                     "use null, TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel or a Sequence of them")


def _text_id(value: list, path: str, where: Any) -> tuple[str, int]:
    if not (len(value) == 2 and type(value[0]) is str and type(value[1]) is int and value[1] >= 0):
        raise where.fail(path, f"expected [\"token\", id], got {json.dumps(value)[:60]}", "fix the entry")
    return value[0], value[1]


def _template(node: dict, path: str, where: Any) -> PostProcessor:
    table = where.get(node, "special_tokens", path, dict, {})
    ids_of: dict[str, tuple[int, ...]] = {}
    for name, entry in table.items():
        ids = where.get(entry, "ids", f"{path}.special_tokens[{name[:40]!r}]", list)
        if not all(type(i) is int and i >= 0 for i in ids):
            raise where.fail(f"{path}.special_tokens[{name[:40]!r}].ids", "ids must be non-negative integers", "fix the ids")
        ids_of[name] = tuple(ids)
    single = _pieces(where.get(node, "single", path, list), f"{path}.single", where)
    pair = where.get(node, "pair", path, (list, type(None)), None)
    pair_text = None if pair is None else " ".join(_show(p) for p in _pieces(pair, f"{path}.pair", where))
    sequences = [name for kind, name in single if kind == "Sequence"]
    if sequences != ["A"]:
        raise where.fail(f"{path}.single", "the single template must hold the sequence $A exactly once",
                         'write it as e.g. [{"SpecialToken": {"id": "<s>"}}, {"Sequence": {"id": "A"}}]')

    def ids(pieces: list[tuple[str, str]], at: str) -> list[tuple[int, ...] | str]:
        out: list[tuple[int, ...] | str] = []
        for i, (kind, name) in enumerate(pieces):
            if kind == "Sequence":
                out.append(name)
            elif name not in ids_of:
                raise where.fail(f"{at}[{i}]", f"special token {name[:40]!r} is not in special_tokens",
                                 "add it to the template's special_tokens table")
            else:
                out.append(ids_of[name])
        return out

    single_ids = tuple(None if p == "A" else p for p in ids(single, f"{path}.single"))
    pair_ids: tuple = ()
    if pair is not None:
        pair_ids = tuple({"A": 0, "B": 1}.get(p, p) if isinstance(p, str) else p
                         for p in ids(_pieces(pair, f"{path}.pair", where), f"{path}.pair"))
    return PostProcessor("TemplateProcessing", "TemplateProcessing: " + " ".join(_show(p) for p in single), pair_text,
                         single_template=single_ids, pair_template=pair_ids)  # type: ignore[arg-type]


def _pieces(items: list, path: str, where: Any) -> list[tuple[str, str]]:
    out = []
    for i, item in enumerate(items):
        if not (isinstance(item, dict) and len(item) == 1):
            raise where.fail(f"{path}[{i}]", "expected {\"SpecialToken\": …} or {\"Sequence\": …}", "fix the template")
        (kind, body), = item.items()
        if kind not in ("SpecialToken", "Sequence"):
            raise where.fail(f"{path}[{i}]", f"unknown template piece {kind!r}", "use SpecialToken or Sequence")
        out.append((kind, where.get(body, "id", f"{path}[{i}].{kind}", str)))
    return out


def _show(piece: tuple[str, str]) -> str:
    kind, name = piece
    return f"${name}" if kind == "Sequence" else name
