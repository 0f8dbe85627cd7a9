"""engine.chat.media: each maker's image rule against the worked examples its documentation gives.

Each example names its source and the date it was read (2026-11-29).  Where the page itself could not be
read here, the example's text came from a copy of it (the page's mirror or a quote), and the test says so.
"""
from __future__ import annotations

import math

import pytest

from engine.chat.media import (CLAUDE_HIRES_LONG_EDGE, CLAUDE_HIRES_MAX_TOKENS, RULES, NoRule, claude_area,
                               count_parts, gemini2_image, gemini3_image, openai_patches, openai_tiles,
                               rule_for_encoding)
from engine.formats.media_headers import MediaInfo

# OpenAI, "Images and vision" (platform.openai.com/docs/guides/images-vision#calculating-costs), read 2026-11-29
# from a mirror of the page (openai-hd4n6.mintlify.app/docs/guides/images) and the OpenAI forum's quotes of it:
#   "A 1024 x 1024 square image in detail: high mode costs 765 tokens"
#   "A 2048 x 4096 image in detail: high mode costs 1105 tokens"
#   "A 4096 x 8192 image in detail: low most costs 85 tokens"


@pytest.mark.parametrize("w,h,detail,tokens", [(1024, 1024, "high", 765), (2048, 4096, "high", 1105),
                                               (4096, 8192, "low", 85)])
def test_openai_tiles_worked_examples(w, h, detail, tokens):
    assert openai_tiles(w, h, detail).tokens == tokens


def test_openai_tiles_steps_show_the_resizes():
    steps = openai_tiles(2048, 4096, "high").steps
    assert steps == ("fit in 2048×2048: 2,048×4,096 → 1,024×2,048", "short side to 768: 1,024×2,048 → 768×1,536",
                     "512-px tiles: 2 × 3 = 6", "6 × 170 + 85 = 1,105")


def test_openai_auto_is_counted_as_high_and_says_so():
    auto = openai_tiles(1024, 1024, "auto")
    assert auto.tokens == 765 and "counted as high" in auto.steps[0]


def test_openai_small_images_are_not_enlarged():
    # "scaled such that the shortest side is 768px" applies to larger images only: a 500×500 image is one tile
    # (the forum's example: 500x500 -> 85 + 170 = 255)
    assert openai_tiles(500, 500, "high").tokens == 255


# The same page, patch models ("Calculating costs: GPT-4.1-mini, GPT-4.1-nano, o4-mini"):
#   1024 x 1024: (1024 + 32 - 1) // 32 = 32 patches each way, 32 * 32 = 1024, below the cap of 1536
#   1800 x 2400: 57 * 75 = 4275 patches; shrink factor sqrt(1536 * 32^2 / (1800 * 2400)) = 0.603 -> 1086 x 1448;
#   1086 / 32 = 33.94 patches, 33 / 33.94 = 0.97 to fit the width -> 1056 x 1408 -> 33 * 44 = 1452 patches
#   "for gpt-4.1-mini, we multiply image tokens by 1.62 ... for gpt-4.1-nano ... by 2.46"
def test_openai_patch_worked_examples():
    assert openai_patches(1024, 1024).tokens == 1024
    big = openai_patches(1800, 2400)
    assert big.tokens == 1452
    assert "= 0.603 → 1,086×1,448" in big.steps[1] and "1,056×1,408" in big.steps[2]


@pytest.mark.parametrize("key,w,h,tokens", [
    ("openai-4.1-mini", 1024, 1024, math.ceil(1024 * 1.62)),
    ("openai-4.1-nano", 1024, 1024, math.ceil(1024 * 2.46)),
    ("openai-4.1-mini", 1800, 2400, math.ceil(1452 * 1.62)),  # 2,352.24: the forum's "2,352.24 calculated"
    ("openai-o4-mini", 1800, 2400, math.ceil(1452 * 1.72)),
    # 1452 × 1.62 = 2,352.24: the page does not say how a fraction rounds; counted up (the most it can be)
    ("openai-gpt-5-mini", 1800, 2400, 2353),
])
def test_patch_multipliers(key, w, h, tokens):
    assert RULES[key].image(w, h, "").tokens == tokens


def test_patch_count_never_passes_the_budget():
    for w, h in [(1, 100_000), (100_000, 1), (7000, 7000), (1537 * 32, 32)]:
        c = openai_patches(w, h)
        assert c.tokens <= 1536


# Anthropic, "Vision" (docs.claude.com/en/docs/build-with-claude/vision#calculate-image-costs), read 2026-11-29 from
# the page's mirror (anthropic.mintlify.app/en/docs/build-with-claude/vision):
#   "tokens = (width px * height px)/750" ... 200x200 px (0.04 megapixels) ~54; 1000x1000 px (1 megapixel) ~1334;
#   1092x1092 px (1.19 megapixels) ~1590.  "If your image's long edge is more than 1568 pixels, or your image is
#   more than ~1,600 tokens, it will first be scaled down, preserving aspect ratio, until it's within the size limits."
@pytest.mark.parametrize("w,h,tokens", [(200, 200, 54), (1000, 1000, 1334), (1092, 1092, 1590)])
def test_claude_worked_examples(w, h, tokens):
    assert claude_area(w, h).tokens == tokens


@pytest.mark.parametrize("w,h", [(3000, 2000), (1600, 100), (8000, 8000), (1300, 1300)])
def test_claude_resize_keeps_the_caps_and_the_aspect(w, h):
    c = claude_area(w, h)
    size = c.steps[0].split("→ ")[1].replace(",", "").split("×")
    nw, nh = int(size[0]), int(size[1])
    assert max(nw, nh) <= 1568 and nw * nh / 750 <= 1600
    assert abs(nw / nh - w / h) < 0.02 * (w / h)
    assert c.tokens == math.ceil(nw * nh / 750)


def test_claude_high_resolution_generation_has_larger_caps():
    # Opus 4.7 raised the long edge to 2,576 px (caps read second-hand: the rule's caveat says so)
    c = RULES["claude-hires"].image(4000, 3000, "")
    assert RULES["claude-hires"].caveat
    assert c.tokens <= CLAUDE_HIRES_MAX_TOKENS
    assert RULES["claude-hires"].image(2000, 1000, "").tokens == math.ceil(2000 * 1000 / 750)  # within the caps
    assert RULES["claude"].image(2000, 1000, "").tokens < RULES["claude-hires"].image(2000, 1000, "").tokens
    assert CLAUDE_HIRES_LONG_EDGE == 2576


# Google, "Understand and count tokens" (ai.google.dev/gemini-api/docs/tokens), read 2026-11-29 (its quote on
# geminibyexample.com/027-calculate-input-tokens): "With Gemini 2.0, image inputs with both dimensions <=384 pixels
# are counted as 258 tokens. Images larger in one or both dimensions are cropped and scaled as needed into tiles of
# 768x768 pixels, each counted as 258 tokens."  Its example: 600 x 400 -> 258 tokens.
@pytest.mark.parametrize("w,h,tokens", [(384, 384, 258), (600, 400, 258), (1000, 1000, 4 * 258), (385, 100, 258),
                                        (1536, 769, 2 * 2 * 258)])
def test_gemini2_worked_examples(w, h, tokens):
    assert gemini2_image(w, h).tokens == tokens


# Google, "Media resolution" (ai.google.dev/gemini-api/docs/media-resolution#token-counts), read 2026-11-29 from
# quotes of its table: images LOW 280, MEDIUM 560, HIGH 1120, ULTRA_HIGH 2240; unspecified: images high, PDFs medium.
@pytest.mark.parametrize("level,tokens", [("low", 280), ("medium", 560), ("high", 1120), ("ultra_high", 2240),
                                          ("default", 1120)])
def test_gemini3_media_resolution_levels(level, tokens):
    assert gemini3_image(level).tokens == tokens
    assert RULES["gemini-3"].image(4000, 4000, level).tokens == tokens  # the size does not matter


def test_pdf_pages():
    pdf = MediaInfo("pdf", "pdf", pages=((612, 792),) * 3)
    assert count_parts(RULES["gemini-2"], [pdf])[0] == 3 * 258
    assert count_parts(RULES["gemini-3"], [pdf], "default")[0] == 3 * 560
    assert count_parts(RULES["gemini-3"], [pdf], "low")[0] == 3 * 280
    total, each = count_parts(RULES["claude"], [pdf])
    assert total is None and "Anthropic" in each[0].note
    total, each = count_parts(RULES["openai-tiles"], [pdf], "high")
    assert total is None and "OpenAI" in each[0].note


def test_rows_without_a_published_rule_say_so():
    image = MediaInfo("image", "png", 100, 100)
    for name, maker in [("llama3", "Meta"), ("qwen2.5", "Qwen"), ("mistral-v3", "Mistral"), ("deepseek-v4", "DeepSeek")]:
        rule = rule_for_encoding(name)
        assert isinstance(rule, NoRule) and maker in rule.note and "publishes no rule" in rule.note
        total, each = count_parts(rule, [image])
        assert total is None and each[0].note == rule.note
    assert "text only" in rule_for_encoding("o200k_harmony").note


def test_rows_take_their_makers_rule():
    assert rule_for_encoding("cl100k_base").key == "openai-tiles"
    assert rule_for_encoding("o200k_base", "openai-4.1-nano").key == "openai-4.1-nano"
    # the row names the Claude (ctok's families) and Gemini rows go by
    assert rule_for_encoding("claude-3").key == "claude"  # Claude 3 to Opus 4.6
    assert rule_for_encoding("claude-4.7").key == "claude-hires"
    assert rule_for_encoding("claude-4.8").key == "claude-hires"
    assert rule_for_encoding("gemini-2.5").key == "gemini-2"
    assert rule_for_encoding("gemini-3.1").key == "gemini-3"
    assert rule_for_encoding("gemini-3-pro-preview").key == "gemini-3"
    assert isinstance(rule_for_encoding("claude-legacy"), NoRule)


def test_every_rule_names_its_source_and_date():
    for rule in RULES.values():
        assert rule.source.url.startswith("https://") and rule.source.title and rule.source.read_on == "2026-11-29"
