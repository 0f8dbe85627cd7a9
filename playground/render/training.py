"""Training step by step, drawn: the pair-count table, the merges so far, the text in tokens, the
tokens-per-byte curve (an inline SVG: redrawn on every step of auto-play, where a Vega chart would
re-render its whole runtime).  Pure builders over `engine.training.steps` records; every value escaped.
"""
from __future__ import annotations

from typing import Callable, Sequence

from playground.render.gallery import gallery_chip_text
from playground.render.html import attrs, esc, token_color

Lookup = Callable[[int], bytes]  # token id -> its bytes


def chip(token_id: int, data: bytes, *, extra: str = "", show_id: bool = True, note: str = "") -> str:
    """One token as a chip coloured by its id, the id under it; `extra` adds classes (new, piece), `note` a
    line to its tooltip."""
    classes = "tok" + (f" {extra}" if extra else "")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        classes += " bytes"
    title = f"id {token_id}" + (f" · {note}" if note else "")
    span = {"class": classes, "style": f"background:{token_color(token_id)}", "title": title}
    sub = f"<sub>{esc(token_id)}</sub>" if show_id else ""
    return f"<span {attrs(span)}><bdi>{gallery_chip_text(data)}</bdi>{sub}</span>"


def text_in_tokens(chunks: Sequence[Sequence[int]], lookup: Lookup, *, new_id: int | None,
                   pieces: bool) -> str:
    """The training text as chips, one per token; the tokens made by the latest merge are marked ``new``.
    With a split pattern (`pieces`) a gap separates the pieces, which no merge crosses."""
    out = []
    for i, chunk in enumerate(chunks):
        for j, token_id in enumerate(chunk):
            extra = []
            if pieces and i and not j:
                extra.append("piece")
            if token_id == new_id:
                extra.append("new")
            out.append(chip(token_id, lookup(token_id), extra=" ".join(extra), show_id=False))
    return f'<div class="gchips tsteps-text" data-new="{esc(new_id if new_id is not None else "")}">{"".join(out)}</div>'


def pair_table(rows: Sequence[tuple[tuple[int, int], int]], lookup: Lookup, *, winner: tuple[int, int] | None,
               ties: Sequence[tuple[int, int]], n_pairs: int) -> str:
    """The pair counts of one step, most frequent first: the winner highlighted, each tie marked as lost
    because minbpe saw it later."""
    tied = set(ties)
    body = []
    for place, (pair, count) in enumerate(rows, 1):
        a, b = pair
        if pair == winner:
            cls, note = "win", "merged"
        elif pair in tied:
            cls, note = "tie", "tie: seen later"
        else:
            cls, note = "", ""
        cells = (f"<td>{place}</td><td class='pair'>{chip(a, lookup(a))}{chip(b, lookup(b))}</td>"
                 f"<td class='num'>{esc(count)}</td><td class='note'>{esc(note)}</td>")
        body.append(f"<tr {attrs({'class': cls or None})}>{cells}</tr>")
    more = n_pairs - len(rows)
    foot = f"<caption>{esc(f'{more:,} more pairs counted, each fewer times')}</caption>" if more > 0 else ""
    head = "<thead><tr><th>#</th><th>pair</th><th>count</th><th></th></tr></thead>"
    return f'<div class="gchips tsteps-pairs"><table>{head}<tbody>{"".join(body)}</tbody>{foot}</table></div>'


def merge_list(winners: Sequence[tuple[int, int]], lookup: Lookup, *, current: int) -> str:
    """Merges learned so far, newest first: ``id: left + right → merged``; the latest one marked."""
    items = []
    for rank in range(len(winners) - 1, -1, -1):
        a, b = winners[rank]
        new_id = 256 + rank
        item = (f"{chip(a, lookup(a), show_id=False)}<span class='op'>+</span>{chip(b, lookup(b), show_id=False)}"
                f"<span class='op'>→</span>{chip(new_id, lookup(new_id))}")
        items.append(f"<li {attrs({'class': 'latest' if rank == current - 1 else None})}>{item}</li>")
    if not items:
        return '<div class="tsteps-merges empty">No merge yet: every token is one byte.</div>'
    return f'<ol class="gchips tsteps-merges" reversed>{"".join(items)}</ol>'


def ratio_chart(values: Sequence[float], current: int, *, width: int = 320, height: int = 120) -> str:
    """Tokens per byte after 0 … n merges as a line, the current step a dot; y from 0 to 1."""
    if not values:
        return ""
    pad_l, pad_r, pad_t, pad_b = 34, 8, 8, 20
    w, h = width - pad_l - pad_r, height - pad_t - pad_b
    n = max(len(values) - 1, 1)

    def xy(i: int, v: float) -> tuple[float, float]:
        return pad_l + w * i / n, pad_t + h * (1 - v)

    points = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(i, v) for i, v in enumerate(values)))
    cx, cy = xy(current, values[current])
    grid = "".join(
        f'<line x1="{pad_l}" x2="{pad_l + w}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>'
        f'<text x="{pad_l - 4}" y="{y + 4:.1f}" text-anchor="end">{v:.1f}</text>'
        for v, y in ((v, xy(0, v)[1]) for v in (0.0, 0.5, 1.0)))
    label = f"{values[current]:.3f} tokens per byte after {current} merges"
    return (f'<svg class="tsteps-chart" viewBox="0 0 {width} {height}" width="100%" role="img" '
            f'aria-label="{esc(label)}">{grid}'
            f'<polyline points="{points}" class="line"/>'
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" class="dot"/>'
            f'<text x="2" y="{pad_t + 2}" class="axis" transform="rotate(90 2 {pad_t + 2})">tokens/byte</text>'
            f'<text x="{pad_l}" y="{height - 4}">0</text>'
            f'<text x="{pad_l + w}" y="{height - 4}" text-anchor="end">{esc(len(values) - 1)} merges</text></svg>')


def superword_sample(tokens: Sequence[tuple[int, bytes, bool]]) -> str:
    """Held-out text as SuperBPE's tokens, one chip each; a superword (a token spanning words) is outlined and
    labelled in its tooltip, so the eye finds the merges across spaces."""
    out = []
    for token_id, data, superword in tokens:
        out.append(chip(token_id, data, extra="superword" if superword else "", show_id=False,
                        note="superword" if superword else ""))
    return f'<div class="gchips tsteps-text superbpe-sample">{"".join(out)}</div>'
