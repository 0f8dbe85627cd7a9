"""One word's lattice in Unigram training: its nodes, forward-backward and Viterbi, in float32 as sentencepiece.

A lattice holds every way to cut a word into pieces of the model being trained: a node per piece that
starts at each position (``Model::PopulateNodes``), in sentencepiece's order -- node 0 is BOS (it ends
at 0), node 1 is EOS (it starts at the end), then, position by position, the pieces starting there
shortest first, and an unknown node (id 0, scored ``min score - 10``) where no one-character piece
starts.  `marginals` is ``Lattice::PopulateMarginal`` (each node's expected count, the E-step), and
`viterbi` is ``Lattice::Viterbi`` (the best cut: the first of equal totals wins).

The trap is float32: alpha, beta, totals and expected counts are C ``float``; `f32` rounds each value
where the C++ stores one, and ``log``/``exp`` run in double as there.  Rounding the other way moves
scores in the sixth digit and, on big corpora, flips near-ties in pruning.
"""
from __future__ import annotations

import math
from array import array

__all__ = ["f32", "lattice", "marginals", "viterbi"]

_rnd = array("f", [0.0])


def f32(x: float) -> float:
    """`x` as a C ``float`` stores it."""
    _rnd[0] = x
    return _rnd[0]


def lattice(word: str, index: dict[str, int], scores: list[float], unk_score: float, max_len: int,
             prefixes: frozenset[str]):
    """Nodes of `word`'s lattice in sentencepiece's order: (begins, ends, node scores, node ids).

    Node 0 is BOS (ends at 0), node 1 is EOS (begins at len(word)); then, start by start, every piece
    that starts there, shortest first, and the unknown node (id 0) where no one-character piece does."""
    n = len(word)
    begins: list[list[int]] = [[] for _ in range(n + 1)]
    ends: list[list[int]] = [[] for _ in range(n + 1)]
    nscore = [0.0, 0.0]
    nid = [-1, -1]
    ends[0].append(0)
    begins[n].append(1)
    get = index.get
    for b in range(n):
        single = False
        for k in range(1, min(max_len, n - b) + 1):
            sub = word[b:b + k]
            if sub not in prefixes:  # no piece starts with it: no longer one either (the trie's early stop)
                break
            i = get(sub)
            if i is None:
                continue
            begins[b].append(len(nid))
            ends[b + k].append(len(nid))
            nscore.append(scores[i])
            nid.append(i)
            if k == 1:
                single = True
        if not single:
            begins[b].append(len(nid))
            ends[b + 1].append(len(nid))
            nscore.append(unk_score)
            nid.append(0)  # the trainer model's unk_id_
    return begins, ends, nscore, nid


def logsumexp(x: float, y: float) -> float:
    vmin, vmax = (x, y) if x < y else (y, x)
    if vmax > f32(vmin + 50.0):
        return vmax
    return f32(vmax + math.log(math.exp(f32(vmin - vmax)) + 1.0))


def marginals(word: str, freq: float, nodes, expected: list[float]) -> float:
    """Forward-backward on one word's lattice (``Lattice::PopulateMarginal``); adds ``freq`` × each
    node's posterior to `expected` and returns ``freq * log Z``."""
    begins, ends, nscore, nid = nodes
    n = len(word)
    size = len(nid)
    alpha = [0.0] * size
    for pos in range(n + 1):
        left = ends[pos]
        for r in begins[pos]:
            a = f32(nscore[left[0]] + alpha[left[0]])
            for l in left[1:]:
                a = logsumexp(a, f32(nscore[l] + alpha[l]))
            alpha[r] = a
    beta = [0.0] * size
    for pos in range(n, -1, -1):
        right = begins[pos]
        for l in ends[pos]:
            b = f32(nscore[right[0]] + beta[right[0]])
            for r in right[1:]:
                b = logsumexp(b, f32(nscore[r] + beta[r]))
            beta[l] = b
    z = alpha[1]
    for pos in range(n):
        for node in begins[pos]:
            i = nid[node]
            expected[i] = f32(expected[i] + freq * math.exp(f32(f32(f32(alpha[node] + nscore[node]) + beta[node]) - z)))
    return f32(freq * z)


def viterbi(n: int, nodes, skip: int = -1) -> list[int]:
    """The best path's nodes (``Lattice::Viterbi``: float32 totals, the first of equal offers),
    without node `skip` (for the second-best segmentation of a piece)."""
    begins, ends, nscore, _ = nodes
    total = [0.0] * len(nscore)
    back = [-1] * len(nscore)
    for pos in range(n + 1):
        for r in begins[pos]:
            if r == skip:
                continue
            best, best_total = -1, 0.0
            sr = nscore[r]
            for l in ends[pos]:
                if l == skip or (l > 1 and back[l] == -1):
                    continue  # skipped, or not reachable without the skipped node
                t = f32(total[l] + sr)
                if best < 0 or t > best_total:
                    best, best_total = l, t
            back[r], total[r] = best, best_total
    path = []
    node = back[1]
    while node > 1:
        path.append(node)
        node = back[node]
    path.reverse()
    return path
