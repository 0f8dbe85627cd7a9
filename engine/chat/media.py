"""What an image or a PDF in a conversation costs, by each maker's published rule.

A vision model never sees the file: it sees a resized copy cut into tiles or patches, and bills a
number of tokens that follows from the pixel size alone (engine.formats.media_headers reads it).
Each rule here is a pure function of that size (and the request's setting, such as OpenAI's
``detail`` or Gemini 3's ``media_resolution``) that returns the count *and the steps* that reached
it, so the page can show the resize and the tiles.  Each `MediaRule` names its source (the page's
title and address) and the date it was read.

- **OpenAI, tiles** (GPT-4o, GPT-4.1, GPT-4.5, GPT-4 Turbo; GPT-5 with 70 + 140): ``low`` is a flat
  base (85); ``high`` fits the image in 2048×2048, shrinks its short side to 768 (never enlarges),
  counts 512-px tiles, 170 each, plus 85.  ``auto`` lets the model choose: counted as ``high``, the
  most it can cost.
- **OpenAI, patches** (GPT-4.1-mini, GPT-4.1-nano, o4-mini, GPT-5-mini, GPT-5-nano): 32-px patches;
  past 1,536 the image is shrunk to fit 1,536 (then shrunk again so its width is a whole number of
  patches), and the patch count, capped at 1,536, is multiplied by the model's factor.
- **Claude**: tokens = width × height / 750, after a resize into the generation's caps: long edge
  1,568 px and about 1,600 tokens up to Claude 4.6; 2,576 px and about 4,784 tokens from Opus 4.7.
- **Gemini 2.x**: 258 tokens when both sides are at most 384 px, else 258 per 768×768 tile; a PDF
  page is 258.  **Gemini 3**: ``media_resolution`` sets a fixed budget per image or page (low 280,
  medium 560, high 1,120, ultra high 2,240 for images); images default to high, PDFs to medium.

Some values could only be read second-hand (quoted from the makers' pages, not the pages
themselves): those rules carry a `MediaRule.caveat` that the page shows beside the count.

A maker without a published rule (or one not implemented here) gets `NoRule`: the page then says
the images are not counted, rather than guessing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from engine.formats.media_headers import MediaInfo

READ_ON = "2026-11-29"  # the date the makers' pages below were read


@dataclass(frozen=True)
class Source:
    title: str
    url: str
    read_on: str = READ_ON


@dataclass(frozen=True)
class MediaCount:
    """A part's tokens under one rule (None: the rule does not count this kind of part, `note` says why)
    and the steps that reached them, in order."""

    tokens: int | None
    steps: tuple[str, ...] = ()
    note: str = ""


OPENAI = Source("Images and vision — OpenAI API (Calculating costs)",
                "https://platform.openai.com/docs/guides/images-vision#calculating-costs")
ANTHROPIC = Source("Vision — Claude Docs (Calculate image costs)",
                   "https://docs.claude.com/en/docs/build-with-claude/vision#calculate-image-costs")
GOOGLE_TOKENS = Source("Understand and count tokens — Gemini API",
                       "https://ai.google.dev/gemini-api/docs/tokens")
GOOGLE_RESOLUTION = Source("Media resolution — Gemini API (Token counts)",
                           "https://ai.google.dev/gemini-api/docs/media-resolution")

DETAILS = ("auto", "low", "high")
RESOLUTIONS = ("low", "medium", "high", "ultra_high")
GEMINI3_IMAGE = {"low": 280, "medium": 560, "high": 1120, "ultra_high": 2240}
GEMINI3_PDF_PAGE = {"low": 280, "medium": 560, "high": 1120}


def _size(w: float, h: float) -> str:
    return f"{w:,.0f}×{h:,.0f}"


# ------------------------------------------------------------------ OpenAI
def openai_tiles(width: int, height: int, detail: str = "auto", *, base: int = 85, tile: int = 170) -> MediaCount:
    """GPT-4o-style tiles.  >>> openai_tiles(1024, 1024, "high").tokens
    765"""
    if detail == "low":
        return MediaCount(base, (f"detail low: a flat {base} tokens, whatever the size",))
    steps = ["detail auto: the model chooses; counted as high, the most it can cost"] if detail == "auto" else []
    w, h = float(width), float(height)
    if max(w, h) > 2048:
        scale = 2048 / max(w, h)
        w, h = w * scale, h * scale
        steps.append(f"fit in 2048×2048: {_size(width, height)} → {_size(w, h)}")
    if min(w, h) > 768:
        scale = 768 / min(w, h)
        before = (w, h)
        w, h = w * scale, h * scale
        steps.append(f"short side to 768: {_size(*before)} → {_size(w, h)}")
    across, down = math.ceil(w / 512), math.ceil(h / 512)
    tiles = across * down
    steps.append(f"512-px tiles: {across} × {down} = {tiles}")
    steps.append(f"{tiles} × {tile} + {base} = {tiles * tile + base:,}")
    return MediaCount(tiles * tile + base, tuple(steps))


def openai_patches(width: int, height: int, multiplier: float = 1.0, *, budget: int = 1536) -> MediaCount:
    """32-px patches, capped at ``budget``, times the model's multiplier.
    >>> openai_patches(1800, 2400).tokens
    1452"""
    w, h = float(width), float(height)
    raw = math.ceil(w / 32) * math.ceil(h / 32)
    steps = [f"32-px patches: {math.ceil(w / 32)} × {math.ceil(h / 32)} = {raw:,}"]
    if raw > budget:
        shrink = math.sqrt(budget * 32 * 32 / (w * h))
        w, h = w * shrink, h * shrink
        steps.append(f"over {budget:,}: shrink by √({budget:,}·32²/({width:,}·{height:,})) = {shrink:.3f} → {_size(w, h)}")
        # then shrink so the width is a whole number of patches
        fit = math.floor(w / 32) / (w / 32)
        w, h = w * fit, h * fit
        steps.append(f"width to whole patches: × {fit:.3f} → {_size(w, h)}")
        raw = math.ceil(w / 32) * math.ceil(h / 32)
        steps.append(f"patches: {math.ceil(w / 32)} × {math.ceil(h / 32)} = {raw:,}")
    patches = min(raw, budget)
    if multiplier == 1:
        return MediaCount(patches, tuple(steps))
    tokens = math.ceil(patches * multiplier)  # the page does not say how a fraction rounds: counted up, the most it can be
    steps.append(f"{patches:,} × {multiplier:g} = {tokens:,}")
    return MediaCount(tokens, tuple(steps))


# ------------------------------------------------------------------ Anthropic
CLAUDE_LONG_EDGE = 1568
CLAUDE_MAX_TOKENS = 1600


CLAUDE_HIRES_LONG_EDGE = 2576  # Opus 4.7 and later
CLAUDE_HIRES_MAX_TOKENS = 4784


def claude_area(width: int, height: int, long_edge: int = CLAUDE_LONG_EDGE,
                max_tokens: int = CLAUDE_MAX_TOKENS) -> MediaCount:
    """Claude: tokens = w·h/750 after the resize to the generation's caps.  >>> claude_area(1000, 1000).tokens
    1334"""
    w, h = float(width), float(height)
    steps = []
    scale = min(1.0, long_edge / max(w, h), math.sqrt(max_tokens * 750 / (w * h)))
    if scale < 1:
        w, h = math.floor(w * scale), math.floor(h * scale)
        steps.append(f"over {long_edge:,} px on the long edge or about {max_tokens:,} tokens: scaled "
                     f"down, aspect kept: {_size(width, height)} → {_size(w, h)}")
    tokens = math.ceil(w * h / 750)  # the page rounds up: 200×200 is "~54", 1000×1000 "~1334"
    steps.append(f"{_size(w, h)} / 750 = {tokens:,}")
    note = ("Claude refuses an image over 8000×8000 px (2000×2000 with more than 20 images)"
            if max(width, height) > 8000 else "")
    return MediaCount(tokens, tuple(steps), note)


# ------------------------------------------------------------------ Google
def gemini2_image(width: int, height: int) -> MediaCount:
    """Gemini 2.x: 258 a 768-px tile, one tile when both sides are at most 384."""
    if width <= 384 and height <= 384:
        return MediaCount(258, (f"both sides ≤ 384 px: 258",))
    across, down = math.ceil(width / 768), math.ceil(height / 768)
    return MediaCount(258 * across * down, (f"768-px tiles: {across} × {down} = {across * down}",
                                            f"{across * down} × 258 = {258 * across * down:,}"))


def gemini3_image(resolution: str = "default") -> MediaCount:
    level = "high" if resolution == "default" else resolution
    why = "media_resolution unset: images default to high" if resolution == "default" else f"media_resolution {level}"
    return MediaCount(GEMINI3_IMAGE[level], (f"{why}: {GEMINI3_IMAGE[level]:,} tokens, whatever the size",))


# ------------------------------------------------------------------ rules
@dataclass(frozen=True)
class MediaRule:
    """One maker's rule for one model line: how an image and a PDF page are counted, and where it is written."""

    key: str
    maker: str
    title: str
    source: Source
    image: Callable[[int, int, str], MediaCount]
    pdf: Callable[[MediaInfo, str], MediaCount]
    setting: str = ""  # the request field the rule reads ("detail", "media_resolution"), if any
    caveat: str = ""  # what is known to differ, or what was read second-hand; shown beside the rule


@dataclass(frozen=True)
class NoRule:
    """A model whose maker publishes no image rule (or none implemented here), or that takes no images."""

    maker: str
    reason: str = ""

    @property
    def note(self) -> str:
        return self.reason or f"images not counted: {self.maker} publishes no rule"


def _pdf_not_counted(maker: str, why: str) -> Callable[[MediaInfo, str], MediaCount]:
    return lambda info, setting: MediaCount(None, (), f"PDF not counted: {maker} {why}")


def _pages(per_page: Callable[[str], int], what: str) -> Callable[[MediaInfo, str], MediaCount]:
    def count(info: MediaInfo, setting: str) -> MediaCount:
        each = per_page(setting)
        return MediaCount(each * info.page_count, (f"{info.page_count:,} page(s) × {each:,} ({what})",))
    return count


_OPENAI_PDF = _pdf_not_counted("OpenAI", "publishes no per-page rule (it reads each page's text and an image of it)")
_CLAUDE_PDF = _pdf_not_counted("Anthropic", "publishes a range per page (text plus a page image), not a rule")


def _patches(multiplier: float) -> Callable[[int, int, str], MediaCount]:
    return lambda w, h, detail: openai_patches(w, h, multiplier)


def _gemini3_page(setting: str) -> int:
    level = "medium" if setting in ("default", "ultra_high") else setting
    return GEMINI3_PDF_PAGE[level]


_SECOND_HAND = ("the multiplier is the one the page's table gave (quoted in 2025-10); OpenAI's community forum "
                "reports {billed} billed in 2026 -- the page could not be read here to check")
RULES: dict[str, MediaRule] = {r.key: r for r in (
    MediaRule("openai-tiles", "OpenAI", "GPT-4o / GPT-4.1 / GPT-4.5 / GPT-4 Turbo: 512-px tiles, 85 + 170 each", OPENAI,
              lambda w, h, detail: openai_tiles(w, h, detail), _OPENAI_PDF, "detail"),
    MediaRule("openai-gpt-5", "OpenAI", "GPT-5: 512-px tiles, 70 + 140 each", OPENAI,
              lambda w, h, detail: openai_tiles(w, h, detail, base=70, tile=140), _OPENAI_PDF, "detail",
              caveat="base 70 and 140 a tile as the page's table gave them for gpt-5 and gpt-5-chat-latest (read "
                     "second-hand; later GPT-5.x models bill patches)"),
    MediaRule("openai-4.1-mini", "OpenAI", "GPT-4.1-mini: 32-px patches × 1.62", OPENAI, _patches(1.62), _OPENAI_PDF),
    MediaRule("openai-4.1-nano", "OpenAI", "GPT-4.1-nano: 32-px patches × 2.46", OPENAI, _patches(2.46), _OPENAI_PDF),
    MediaRule("openai-o4-mini", "OpenAI", "o4-mini: 32-px patches × 1.72", OPENAI, _patches(1.72), _OPENAI_PDF),
    MediaRule("openai-gpt-5-mini", "OpenAI", "GPT-5-mini: 32-px patches × 1.62", OPENAI, _patches(1.62), _OPENAI_PDF,
              caveat=_SECOND_HAND.format(billed="1.2")),
    MediaRule("openai-gpt-5-nano", "OpenAI", "GPT-5-nano: 32-px patches × 2.46", OPENAI, _patches(2.46), _OPENAI_PDF,
              caveat=_SECOND_HAND.format(billed="1.5")),
    MediaRule("claude", "Anthropic", "Claude 3 to 4.6: width × height / 750, long edge ≤ 1,568 px, ≤ ~1,600 tokens",
              ANTHROPIC, lambda w, h, s: claude_area(w, h), _CLAUDE_PDF),
    MediaRule("claude-hires", "Anthropic", "Claude Opus 4.7 and later: width × height / 750, long edge ≤ 2,576 px, "
              "≤ ~4,784 tokens", ANTHROPIC,
              lambda w, h, s: claude_area(w, h, CLAUDE_HIRES_LONG_EDGE, CLAUDE_HIRES_MAX_TOKENS), _CLAUDE_PDF,
              caveat="the 2,576-px / 4,784-token caps were read second-hand (the page now describes 28-px patches, "
                     "which could not be read here): an estimate within a few percent"),
    MediaRule("gemini-2", "Google", "Gemini 2.x: 258 per 768-px tile", GOOGLE_TOKENS,
              lambda w, h, s: gemini2_image(w, h), _pages(lambda s: 258, "258 a page")),
    MediaRule("gemini-3", "Google", "Gemini 3: media_resolution budget", GOOGLE_RESOLUTION,
              lambda w, h, s: gemini3_image(s or "default"),
              _pages(_gemini3_page, "media_resolution; PDFs default to medium; the page's own text is extra and not "
                                    "counted here"), "media_resolution"),
)}
OPENAI_RULES = ("openai-tiles", "openai-gpt-5", "openai-4.1-mini", "openai-4.1-nano", "openai-o4-mini",
                "openai-gpt-5-mini", "openai-gpt-5-nano")

_MAKERS = {"llama": "Meta", "qwen": "Alibaba (Qwen)", "mistral": "Mistral AI", "deepseek": "DeepSeek",
           "glm": "Zhipu AI (GLM)", "minimax": "MiniMax", "gemma": "Google (for Gemma)"}


def rule_for_encoding(name: str, openai_rule: str = "openai-tiles") -> MediaRule | NoRule:
    """The image rule of the models a Chat row stands for.  o200k_base rows take the OpenAI rule the user
    picked (its models differ); cl100k_base's vision models (GPT-4 Turbo) use tiles; Claude and Gemini rows
    are matched by name prefix; everything else has no rule."""
    if name == "o200k_base":
        return RULES[openai_rule]
    if name == "cl100k_base":
        return RULES["openai-tiles"]
    if name == "o200k_harmony":
        return NoRule("OpenAI", "images not counted: gpt-oss takes text only")
    if name.startswith("claude"):
        if "legacy" in name:
            return NoRule("Anthropic", "images not counted: Claude 1 and 2 take text only")
        # ctok's families: v3 (Claude 3 to 4.6) and v4.7 / v4.8 (Opus 4.7 and later: the high-resolution caps)
        return RULES["claude-hires" if any(v in name for v in ("4.7", "4.8", "4_7", "4_8")) else "claude"]
    if name.startswith("gemini"):
        return RULES["gemini-2" if name.startswith(("gemini-2", "gemini2")) else "gemini-3"]
    maker = next((m for prefix, m in _MAKERS.items() if name.startswith(prefix)), name)
    return NoRule(maker)


def count_part(rule: MediaRule, info: MediaInfo, setting: str = "") -> MediaCount:
    """One part's tokens under ``rule``: an image by its size, a PDF by its pages."""
    if info.kind == "pdf":
        return rule.pdf(info, setting)
    return rule.image(info.width, info.height, setting)


def count_parts(rule: MediaRule | NoRule, parts: list[MediaInfo], setting: str = "") -> tuple[int | None, list[MediaCount]]:
    """All parts of a conversation under one row's rule: (the total, or None when any part is not counted;
    each part's count).  A `NoRule` counts nothing and says so once per part."""
    if isinstance(rule, NoRule):
        counts = [MediaCount(None, (), rule.note) for _ in parts]
    else:
        counts = [count_part(rule, p, setting) for p in parts]
    if any(c.tokens is None for c in counts):
        return None, counts
    return sum(c.tokens for c in counts), counts
