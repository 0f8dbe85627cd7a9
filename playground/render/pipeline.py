"""The pipeline and the three algorithms, drawn: pure HTML builders over `engine.explain.pipeline.Stages`
and `engine.explain.algorithms.PieceStory`.  Every value is escaped; chips use the gallery's `.gchips`
(one token never breaks across lines), the stage grid is styles/pipeline.css."""
from __future__ import annotations

from typing import Callable, Sequence

from engine.explain.algorithms import PieceStory, TokenStory, rule_of
from engine.explain.pipeline import Change, Stages
from playground.render.html import SPACE, attrs, esc, token_color, visible

STAGE_NAMES = ("text", "normalizer", "pre-tokenizer", "model", "post-processor", "decoder")


def _chip(label: str, sub: str | None, *, colour: int | None = None, cls: str = "tok", title: str = "") -> str:
    a = {"class": cls, "title": title or None}
    if colour is not None:
        a["style"] = f"background:{token_color(colour)}"
    tail = f"<sub>{esc(sub)}</sub>" if sub is not None else ""
    return f"<span {attrs(a)}><bdi>{esc(visible(label))}</bdi>{tail}</span> "


def _running(text: str) -> str:
    """Escaped text with visible whitespace and a line-break chance after each space marker (the marker
    is not a space, so without it a long text could only wrap inside a word)."""
    return esc(visible(text)).replace(SPACE, SPACE + "<wbr>")


def marked_text(text: str, changes: Sequence[Change], *, after: bool) -> str:
    """`text` with each normalizer change marked: the original (``after=False``) or what it became."""
    out, pos = [], 0
    for c in changes:
        out.append(_running(text[pos:c.start]))
        shown = c.after if after else c.before
        tip = f"“{visible(c.before)}” → “{visible(c.after)}”" if c.before and c.after else (
            f"“{visible(c.before)}” dropped" if c.before else f"“{visible(c.after)}” added")
        kind = "chg" if c.before and c.after else ("del" if c.before else "ins")
        if after and kind == "del" or not after and kind == "ins":
            out.append(f'<mark {attrs({"class": f"pl-{kind} pl-gap", "title": tip})}>‸</mark>')
        else:
            out.append(f'<mark {attrs({"class": f"pl-{kind}", "title": tip})}>{esc(visible(shown))}</mark>')
        pos = max(pos, c.end)
    out.append(_running(text[pos:]))
    return f'<div class="pl-text">{"".join(out)}</div>'


def _row(n: int, name: str, what: str, body: str, stage: str) -> str:
    return (f'<div {attrs({"class": "pl-stage", "data-stage": stage})}><div class="pl-label">'
            f'<b>{n} · {esc(name)}</b><small>{esc(what)}</small></div><div class="pl-body">{body}</div></div>')


def stages(s: Stages, token_text: Callable[[int], str], *, max_chips: int = 400) -> str:
    """The six stages of one tokenizer on one text, one row each, in the same layout for every family."""

    def more(n: int) -> str:
        return f'<span class="pl-more">… {n - max_chips:,} more</span>' if n > max_chips else ""

    n_changes = len(s.changes)
    rows = [_row(0, "Your text", f"{len(s.text):,} characters", marked_text(s.text, s.changes, after=False), "text")]
    norm_note = (f"{n_changes:,} change{'s' if n_changes != 1 else ''} (marked)" if n_changes else "no change")
    rows.append(_row(1, "Normalizer", f"{s.normalizer} · {norm_note}",
                     marked_text(s.text, s.changes, after=True), "normalizer"))
    pieces = "".join(_chip(p.text, f"{p.char_start}–{p.char_end}", cls="tok pl-piece" + (" special" if p.special else ""),
                           title=f"characters {p.char_start}–{p.char_end} of your text")
                     for p in s.pieces[:max_chips])
    rows.append(_row(2, "Pre-tokenizer", f"{len(s.pieces):,} pieces · under each: its characters in your text",
                     f'<div class="gchips">{pieces}{more(len(s.pieces))}</div>', "pre-tokenizer"))
    toks = "".join(_chip(token_text(t.id), str(t.id), colour=t.id,
                         cls="tok" + (" bytes" if t.partial else "") + (" special" if t.special else ""))
                   for t in s.tokens[:max_chips])
    rows.append(_row(3, "Model", f"{len(s.tokens):,} tokens · under each: its id",
                     f'<div class="gchips">{toks}{more(len(s.tokens))}</div>', "model"))
    if s.for_model is None:
        post = f'<div class="pl-none">{esc(s.post_processor)}</div>'
        what = "adds nothing here"
    else:
        added_at = {0: [a for a in s.added if a.where == "start"], 1: [a for a in s.added if a.where == "end"]}
        start = "".join(_chip(a.text, str(a.id), cls="tok special pl-added", title="added by the post-processor")
                        for a in added_at[0])
        end = "".join(_chip(a.text, str(a.id), cls="tok special pl-added", title="added by the post-processor")
                      for a in added_at[1])
        middle = f'<span class="pl-ellipsis">{len(s.tokens):,} tokens of your text</span> '
        post = f'<div class="gchips">{start}{middle}{end}</div>'
        what = f"{s.post_processor} · adds {len(s.added)} · the model is fed {len(s.for_model):,} ids"
    rows.append(_row(4, "Post-processor", what, post, "post-processor"))
    if s.lossless is None:
        badge = '<span class="pl-badge pl-ok">lossless: decode(encode(text)) is your text</span>'
        decoded = f'<div class="pl-text">{_running(s.decoded)}</div>'
    else:
        at = s.lossless.at
        back = s.lossless.back
        badge = (f'<span class="pl-badge pl-lossy">lossy: first difference at character {at:,} — '
                 f'“{esc(visible(s.text[at:at + 1]) or "end")}” came back as “{esc(visible(back[at:at + 1]) or "nothing")}”'
                 f' ({esc(s.lossless.reason)})</span>')
        decoded = (f'<div class="pl-text">{_running(back[:at])}<mark class="pl-chg">{esc(visible(back[at:at + 1]))}'
                   f'</mark>{_running(back[at + 1:])}</div>')
    rows.append(_row(5, "Decoder", "the tokens back to text", decoded + badge, "decoder"))
    return f'<div class="pipeline">{"".join(rows)}</div>'


def algorithm_card(title: str, story_list: Sequence[PieceStory], *, max_steps: int = 40, open_steps: bool = False) -> str:
    """One tokenizer's algorithm on the text's pieces: its rule, then each piece's steps and tokens (folded,
    unless `open_steps`)."""
    if not story_list:
        return f'<div class="algo"><h4>{esc(title)}</h4><div class="pl-none">no pieces</div></div>'
    algorithm = story_list[0].algorithm
    name, rule = rule_of(story_list[0])
    parts = [f'<div {attrs({"class": "algo", "data-algorithm": algorithm})}><h4>{esc(title)}</h4>'
             f'<div class="algo-rule"><b>{esc(name)}:</b> {esc(rule)}</div>']
    for story in story_list:
        tokens = "".join(_chip(t, str(i), colour=i) for t, i in zip(story.tokens, story.ids))
        parts.append(f'<div class="algo-piece"><div class="algo-head">piece <code>{esc(visible(story.piece))}</code> → '
                     f'<span class="gchips">{tokens}</span></div>')
        parts.append(_steps(story, max_steps, open_=open_steps))
        parts.append("</div>")
    parts.append("</div>")
    return "".join(parts)


def token_card(title: str, found: TokenStory, *, max_steps: int = 400) -> str:
    """Merge tree / BPE steps for a family that does not merge: the algorithm's work on the piece that made
    the chosen token (`engine.explain.algorithms.token_story`), its chip and the step that found it marked
    (``pl-new`` / ``this``), the steps open."""
    story = found.story
    name, rule = rule_of(story)
    where = ("from your text" if found.in_text else
             "not in your text: the token's own text, cut the same way")
    tokens = "".join(_chip(t, str(i), colour=i, cls="tok pl-new" if i == found.token_id else "tok")
                     for t, i in zip(story.tokens, story.ids))
    return (f'<div {attrs({"class": "algo", "data-algorithm": story.algorithm})}><h4>{esc(title)}</h4>'
            f'<div class="algo-rule"><b>{esc(name)}:</b> {esc(rule)}</div>'
            f'<div class="algo-piece"><div class="algo-head">piece <code>{esc(visible(story.piece))}</code> '
            f'<small>({esc(where)})</small> → <span class="gchips">{tokens}</span></div>'
            f'{_steps(story, max_steps, this=found.token_id, open_=True)}</div></div>')


def _steps(story: PieceStory, max_steps: int, *, this: int | None = None, open_: bool = False) -> str:
    """The steps of one piece; with `this`, the step that produced token `this` is marked (class ``this``)."""
    this_text = next((t for t, i in zip(story.tokens, story.ids) if i == this), None)
    if story.too_long:
        return '<div class="pl-none">a long piece: its tokens only</div>'
    rows: list[str] = []
    if story.algorithm == "bpe":
        for m in story.merges[:max_steps]:
            parts = "".join(f'<span {attrs({"class": "part new" if k == m.position else "part"})}>{esc(visible(p))}</span><wbr>'
                            for k, p in enumerate(m.parts))
            rows.append(f'<li><span class="algo-what">{esc(visible(m.left))} + {esc(visible(m.right))} → '
                        f'<b>{esc(visible(m.merged))}</b> <small>rank {m.rank:,}</small></span>'
                        f'<span class="algo-parts">{parts}</span></li>')
        if not story.merges:
            rows.append("<li>no merge: the piece is one token already, or no pair of its parts is a token</li>")
        order = "highest score first" if story.family == "sentencepiece" else "in rank order"
        head = f"{len(story.merges)} merges, {order}"
    elif story.algorithm == "wordpiece":
        for a in story.lookups[:max_steps]:
            mark = " this" if a.found and a.candidate == this_text else ""
            rows.append(f'<li {attrs({"class": ("found" + mark) if a.found else "miss"})}><code>{esc(visible(a.candidate))}</code> '
                        f'{"✔ in the vocabulary: take it" if a.found else "✘ not in the vocabulary: one character shorter"}'
                        "</li>")
        head = f"{len(story.lookups)} lookup{'' if len(story.lookups) == 1 else 's'}, longest first"
    elif story.algorithm == "unigram":
        best = [c for c in story.candidates if c.best]
        path = " + ".join(f"{c.score:.2f}" for c in best)
        rows.append(f'<li class="found">best path: {" | ".join(esc(visible(c.text)) for c in best)} · scores {esc(path)}'
                    f' = <b>{best[-1].total:.2f}</b></li>' if best else "<li>no path</li>")
        for c in story.candidates[:max_steps]:
            mark = " this" if c.best and this is not None and c.id == this else ""
            rows.append(f'<li {attrs({"class": ("found" + mark) if c.best else "cand"})}><code>{esc(visible(c.text))}</code> '
                        f'at {c.start}–{c.end} · score {c.score:.2f} · best total to here {c.total:.2f}'
                        f'{" · on the best path" if c.best else ""}</li>')
        head = f"{len(story.candidates)} candidate pieces on the lattice (by start)"
    else:
        head = "one lookup"
    hidden = max(len(story.merges), len(story.lookups), len(story.candidates)) - max_steps
    tail = f"<li>… {hidden:,} more</li>" if hidden > 0 else ""
    opened = " open" if open_ else ""
    return f'<details class="algo-steps"{opened}><summary>{esc(head)}</summary><ol>{"".join(rows)}{tail}</ol></details>'
