"""Plain records the engine returns for the playground to draw.

Every record carries both character and byte offsets into the text that was
encoded, because byte-level BPE does not respect characters: one emoji can be
spread over several tokens, and one token can end in the middle of a character.
`MergeNode` is one node of a merge tree; `MergeInfo` and `TrainingReport` are what training
returns (``enc.training``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


@dataclass(frozen=True)
class Piece:
    """One pre-tokenization piece (a regex match, or a special token)."""

    index: int
    text: str
    char_start: int
    char_end: int
    byte_start: int
    byte_end: int
    special: bool = False


@dataclass(frozen=True)
class Token:
    """One token of an encoded text.

    `char_start:char_end` is the smallest run of characters that contains the
    token's bytes.  When a token starts or ends inside a character, `partial`
    is true and neighbouring tokens share that character.
    """

    id: int
    bytes: bytes
    byte_start: int
    byte_end: int
    char_start: int
    char_end: int
    piece_index: int
    special: bool = False
    partial: bool = False

    @property
    def text(self) -> str:
        """The token's bytes as text; bytes that are not whole characters show as U+FFFD."""
        return self.bytes.decode("utf-8", errors="replace")

    @property
    def is_valid_utf8(self) -> bool:
        try:
            self.bytes.decode("utf-8")
        except UnicodeDecodeError:
            return False
        return True


class MergeStep(NamedTuple):
    """One step of the BPE loop on a piece: `left` + `right` became token `rank`.

    `position` is the index of `left` in the list of parts before this step;
    `byte_start` is where `left` starts inside the piece.  (A named tuple: a
    100 kB piece has ~100,000 steps, and tuples are cheap to make.)
    """

    index: int
    position: int
    byte_start: int
    left: bytes
    right: bytes
    rank: int

    @property
    def merged(self) -> bytes:
        return self.left + self.right


@dataclass(frozen=True)
class BpeTrace:
    """Every step of the merge loop on one piece, replayable at any step.

    ``parts_at(0)`` is the piece as single bytes; ``parts_at(len(steps))`` is
    the final parts, whose ids are `final_ids` (equal to what `encode` returns
    for that piece).  Parts are computed on demand so a 100 kB piece with
    100,000 steps costs O(n) memory, not O(n^2).
    """

    piece: bytes
    steps: tuple[MergeStep, ...]
    final_ids: tuple[int, ...]
    _events: tuple[tuple[int, int], ...] = ()

    def parts_at(self, step: int) -> list[bytes]:
        """The parts before step `step` (0 <= step <= len(steps))."""
        if not 0 <= step <= len(self.steps):
            raise IndexError(f"step {step} is outside 0..{len(self.steps)}")
        n = len(self.piece)
        alive = bytearray(b"\x01") * n
        for _, right in self._events[:step]:
            alive[right] = 0
        starts = [i for i in range(n) if alive[i]]
        starts.append(n)
        return [self.piece[starts[k] : starts[k + 1]] for k in range(len(starts) - 1)]


@dataclass(frozen=True)
class MergeInfo:
    """One learned merge: ``pair`` -> ``new_id`` (= 256 + rank), seen ``count`` times."""

    rank: int
    pair: tuple[int, int]
    new_id: int
    bytes: bytes
    count: int  # occurrences counted, overlapping ones included (minbpe's stats)
    tied: bool  # another pair had the same count at that step (the first-seen one won)
    replaced: int  # occurrences actually replaced (fewer than `count` in runs like ``aaa``)


@dataclass(frozen=True)
class TrainingReport:
    """What `train_bpe` did; the result's declared field ``enc.training``."""

    requested_vocab_size: int
    pat_str: str | None
    merges: tuple[MergeInfo, ...]
    stopped_early: bool
    message: str
    n_chunks: int
    n_unique_chunks: int
    n_bytes: int  # bytes of training text (special tokens cut out)
    seconds: float

    @property
    def vocab_size(self) -> int:
        """Ordinary tokens learned: 256 bytes + the merges (special tokens not counted)."""
        return 256 + len(self.merges)

    def token_counts(self) -> list[int]:
        """Tokens in the training text after 0, 1, ..., all merges (exactly what encoding it gives)."""
        counts = [self.n_bytes]
        for m in self.merges:
            counts.append(counts[-1] - m.replaced)
        return counts


@dataclass(frozen=True, eq=False)
class MergeNode:
    """One node of a merge tree: a leaf is a single byte; an inner node merged `left` and `right`.

    `id` is the token id, which for BPE is also the rank (merge order).

    A tree is as deep as its token has bytes, at worst: a file may make each token of ``ab``,
    ``abb``, ``abbb`` ... from the one before, 4,096 levels.  So every walk here uses an explicit
    stack, and equality, hashing and pickling (`st.cache_data` pickles what it keeps) go through
    the flat `rows`, never one Python frame per level.
    """

    id: int
    bytes: bytes
    left: "MergeNode | None" = None
    right: "MergeNode | None" = None

    @property
    def is_leaf(self) -> bool:
        return self.left is None

    @property
    def depth(self) -> int:
        """Merges on the longest path down to a byte (0 for a leaf)."""
        deepest, stack = 0, [(self, 0)]
        while stack:
            node, depth = stack.pop()
            if node.left is None or node.right is None:
                deepest = max(deepest, depth)
            else:
                stack += ((node.left, depth + 1), (node.right, depth + 1))
        return deepest

    @property
    def n_merges(self) -> int:
        """Inner nodes in the tree: how many merges built this token."""
        return sum(not node.is_leaf for node in self.walk())

    def leaves(self) -> list["MergeNode"]:
        """The leaves, left to right: they spell the token."""
        return [node for node in self.walk() if node.left is None or node.right is None]

    def walk(self):
        """Nodes in pre-order (node, then left subtree, then right subtree)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            if node.right is not None:
                stack.append(node.right)
            if node.left is not None:
                stack.append(node.left)

    def rows(self) -> tuple[tuple[int, bytes, int, int], ...]:
        """The tree flat, in pre-order: (id, bytes, row of the left child, row of the right child), -1 for none."""
        rows: list[list] = []
        stack: list[tuple[MergeNode, int, int]] = [(self, -1, 0)]  # node, its parent's row, 0: left child / 1: right
        while stack:
            node, parent, side = stack.pop()
            if parent >= 0:
                rows[parent][2 + side] = len(rows)
            rows.append([node.id, node.bytes, -1, -1])
            if node.left is not None and node.right is not None:
                stack += ((node.right, len(rows) - 1, 1), (node.left, len(rows) - 1, 0))
        return tuple(map(tuple, rows))

    @classmethod
    def from_rows(cls, rows) -> "MergeNode":
        """The tree `rows` describes (children come after their parent)."""
        nodes: list[MergeNode | None] = [None] * len(rows)
        for i in range(len(rows) - 1, -1, -1):
            token_id, data, left, right = rows[i]
            nodes[i] = (cls(token_id, data) if left < 0 else cls(token_id, data, nodes[left], nodes[right]))
        return nodes[0]  # type: ignore[return-value]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MergeNode):
            return NotImplemented
        return self is other or self.rows() == other.rows()

    def __hash__(self) -> int:
        return hash(self.rows())

    def __reduce__(self):
        return (MergeNode.from_rows, (self.rows(),))
