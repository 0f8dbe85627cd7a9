"""Session state: every key the app keeps, its default, how it survives navigation, and the share link.

Streamlit deletes a widget's value when a page does not draw that widget: the
text typed on Tokenize was gone after a visit to Merge tree.  Two rules stop that:

* **Values that matter live in state of their own.**  The text, the chosen
  encodings, the special-token policy and the chosen token are app-wide keys
  (below) that every page reads, drawn or not.
* **Every view's value widgets keep their values for the session**
  (``persist_state="session"``, Streamlit 1.67's own mechanism, which also
  handles widgets inside fragments).  `PAGE_KEYS` lists them per page, for the
  share link and for the test that checks each one survives a page switch.

The session's own tokenizers (trained or uploaded) are kept in `CUSTOM`, at
most `MAX_CUSTOM` of them; adding one more drops the oldest with a notice.
They are released with the session.  `notices` are one-shot messages a later
run shows (e.g. "your oldest tokenizer was dropped").

The share link holds the app-wide values and the open page's own choices
(`save_query_params`); `load_query_params` validates everything it reads.
"""
from __future__ import annotations

import importlib
import json
import math
import sys
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

import streamlit as st

from engine.explain import prices as engine_prices
from engine.formats.json_limits import load_json_bounded
from engine.sources.catalog import DEFAULT_SELECTION, canonical_name, catalog
from engine.text import first_surrogate, lone_surrogates, repair_surrogates

# ---------------------------------------------------------------- app-wide keys
TEXT = "text"
ENCODINGS = "encodings"
SPECIAL = "special_policy"
SHOW_WS = "show_ws"
CUSTOM = "custom_encodings"  # OrderedDict {name: encoding}, oldest first
TOKEN_ID = "token_id"  # the token Merge tree / BPE steps / Vocabulary look at
TOKEN_ENC = "token_encoding"
NOTICES = "notices"  # one-shot messages for the next run: [(kind, text)]
NOTICES_SHOWN = "_notices_shown"  # the notices the last run showed (`notices_again`)
UNSELECT = "unselect"  # names to take out of ENCODINGS at the start of the next run
SELECT = "select"  # [(name, make_room)] to add to ENCODINGS at the start of the next run (`select`)
_LOADED = "_query_params_loaded"
LINK_CUT = "_link_cut"  # what the link that opened this session could not carry (its ``cut`` list)

# Every built-in vocabulary once, grouped by maker (engine.sources.catalog.catalog); an alias such as r50k_base (= gpt2)
# is accepted everywhere a name is read (links, session state) and turned into its entry's name.
BUILTIN_ENCODINGS = [entry.name for entry in catalog()]
DEFAULT_ENCODINGS = list(DEFAULT_SELECTION)
MAX_SELECTED = 6
MAX_CUSTOM = 3  # trained/uploaded tokenizers kept per session
SPECIAL_POLICIES = {
    "text": "as plain text",
    "special": "as special tokens",
    "refuse": "refuse (tiktoken's default)",
}
DEFAULT_TEXT = (
    "Hello world! Tokenizers cut text into pieces: \"unbelievable\" isn't one word to GPT-2.\n"
    "Numbers: 1234567 + 2026 = 1236593.   Code:\n"
    "def greet(name):\n"
    "    return f\"Hi, {name}!\"\n"
    "Languages: こんにちは世界 · Привет мир · مرحبا بالعالم · 👋🏽 🇯🇵"
)
MAX_TEXT_CHARS = 2_000_000  # the text box (counts stay exact; drawing stops at encodings.DRAW_LIMIT)
MAX_URL_TEXT = 4000  # characters of text kept in the share link
MAX_URL_VALUE = 400  # characters of one view setting kept in the share link
MAX_TOKEN_ID_DIGITS = 18  # a link's token id (tok=): any vocabulary's id, and far below int()'s 4,300-digit limit

DEFAULTS = {
    TEXT: DEFAULT_TEXT,
    ENCODINGS: DEFAULT_ENCODINGS,
    SPECIAL: "text",
    SHOW_WS: True,
    TOKEN_ID: None,
    TOKEN_ENC: "cl100k_base",
}

# ------------------------------------------------ each view's and widget's keys, declared once
# Views and widgets name their widget and session keys by these constants, never by a string of their own
# (tests/playground/test_state_keys.py checks it); a name ending in _PREFIX starts a key built per item.
# views/arena.py
ARENA_PICK = "arena_pick"
ARENA_METRIC = "arena_metric"
ARENA_OFFERED = "_arena_offered"
ARENA_OWN_SENTENCES = "arena_own_sentences"
ARENA_OWN_LANGUAGE = "arena_own_language"
ARENA_OWN_TEXT = "arena_own_text"
ARENA_OWN_KEEP = "arena_own_keep"
ARENA_OWN_ERROR = "_arena_own_error"
ARENA_TABLE = "arena_table"
ARENA_LANG_CSV = "arena_lang_csv"
ARENA_LANG_JSON = "arena_lang_json"
# widgets/claude_counts.py (on the Chat formats page)
CLAUDE_TABLE = "claude_counts_table"
CLAUDE_DRAW = "claude_counts_draw"
CLAUDE_TOKENS = "claude_counts_tokens"
CLAUDE_WINDOW_BARS = "claude_counts_window_bars"
CLAUDE_COSTS_TABLE = "claude_counts_costs"

# views/chat.py
CHAT_MESSAGES = "chat_messages"
CHAT_NEXT_UID = "chat_next_uid"
CHAT_MODELS = "chat_models"
CHAT_CONV = "chat_conv"
CHAT_CODE_ERROR = "chat_code_error"
CHAT_IMPORT = "chat_import"
CHAT_IMPORTED_FILE = "chat_imported_file"
CHAT_CUT = "chat_cut_{uid}"
CHAT_TABLE = "chat_table"
CHAT_TOOLS = "chat_tools"
CHAT_TOOLS_BOX = "chat_tools_box"
CHAT_THINKING = "chat_thinking"
CHAT_THINK_BOX = "chat_think_{fmt}"
CHAT_TOOLS_NOTE = "chat_tools_note"
CHAT_TOOLS_CLEAR = "chat_tools_clear"
CHAT_PRESET_PREFIX = "chat_preset_"
CHAT_BREAKDOWN_TABLE = "chat_breakdown_table"
CHAT_FIELD_PREFIX = "chat_"
CHAT_EXPORT = "chat_export"
CHAT_TOKENS_PREFIX = "chat_tokens_"
CHAT_MSG_PREFIX = "chat_msg_"
CHAT_CONTENT_PREFIX = "chat_content_"
CHAT_ADD_PREFIX = "chat_add_"
CHAT_ROLE_PREFIX = "chat_role_"
CHAT_NAME_PREFIX = "chat_name_"
CHAT_CALL_PREFIX = "chat_call_"
CHAT_TOOL_CALL_ID_PREFIX = "chat_tool_call_id_"
CHAT_UP_PREFIX = "chat_up_"
CHAT_DOWN_PREFIX = "chat_down_"
CHAT_DEL_PREFIX = "chat_del_"
CHAT_REASONING_PREFIX = "chat_reasoning_"  # + message uid: an assistant message's reasoning_content
CHAT_ADD_CALL_PREFIX = "chat_add_call_"  # + message uid
CHAT_CALL_NAME_PREFIX = "chat_call_name_"  # + message uid _ call uid (one call of several)
CHAT_CALL_ID_PREFIX = "chat_call_id_"
CHAT_CALL_ARGS_PREFIX = "chat_call_args_"
CHAT_CALL_DEL_PREFIX = "chat_call_del_"
CHAT_KEEP = "chat_keep"  # the "Keep in this browser" toggle (its copy: playground/components/browser_store.py)
CHAT_BASE = "_chat_base"  # the share code the session's conversation started as (the example or a link's)
CHAT_ORIGIN = "_chat_origin"  # where it came from: "example", "link", or "cut" (a link too short to carry it)
CHAT_BROWSER_READ = "_chat_browser_read"  # this browser's copy was looked at (restored or not), once a session
CHAT_RESTORED = "_chat_restored"  # the conversation came from this browser's copy
CHAT_START_NOTES = "_chat_start_notes"  # what the link's conversation needed said, shown while it is unchanged
CHAT_MAX_CALLS = 16  # tool calls per assistant message in the editor (parallel calls are a handful)
# widgets/media_parts.py: images and PDFs in Chat messages (sizes only; not in the share code)
CHAT_MEDIA = "_chat_media"  # {message uid: {"sig": upload signature, "parts": [part dicts]}} (state of its own)
CHAT_MEDIA_UPLOAD_PREFIX = "chat_media_upload_"  # + message uid: the "add image / PDF" uploader
CHAT_MEDIA_DEL_PREFIX = "chat_media_del_"  # + message uid _ part index
CHAT_MEDIA_OPENAI = "chat_media_openai"  # which OpenAI image rule the o200k_base row uses
CHAT_MEDIA_DETAIL = "chat_media_detail"  # OpenAI's detail setting
CHAT_MEDIA_RESOLUTION = "chat_media_resolution"  # Gemini 3's media_resolution
CHAT_MEDIA_TABLE = "chat_media_table"
CHAT_MEDIA_RULES_TABLE = "chat_media_rules_table"
# views/chunks.py
CHUNK_ENCODING = "chunk_encoding"
CHUNK_MAX = "chunk_max"
CHUNK_PREFER = "chunk_prefer"
CHUNK_PAGE = "chunk_page"
CHUNK_JSONL = "chunk_jsonl"
CHUNK_JSON = "chunk_json"
CHUNK_TXT = "chunk_txt"
CHUNK_CARDS = "chunk_cards"
CHUNK_ENCODING_FOLLOWED = "_chunk_encoding_followed"
# views/compare.py
CMP_BARS = "cmp_bars"
CMP_ROW_PREFIX = "cmp_row_"
CMP_TABLE = "cmp_table"
CMP_LAYOUT = "cmp_layout"
CMP_DISAGREE = "cmp_disagree"
# views/gallery/__init__.py
GALLERY_SECTION = "gallery_section"
GALLERY_DEMO = "gallery_demo"
GALLERY_PICK_PREFIX = "gallery_pick_"
GALLERY_CONTEXT_PRESET = "gallery_context_preset"
GALLERY_CONTEXT = "gallery_context"
GALLERY_PRICE = "gallery_price"
GALLERY_OPEN_TOK_PREFIX = "gallery_open_tok_"
GALLERY_OPEN_CMP_PREFIX = "gallery_open_cmp_"
# views/steps.py
STEPS_PIECE = "steps_piece"
STEPS_WORDPIECE = "steps_wordpiece"  # WordPiece's lookups table
STEPS_FIRST = "steps_first"
STEPS_PREV = "steps_prev"
STEPS_NEXT = "steps_next"
STEPS_LAST = "steps_last"
STEPS_TABLE = "steps_table"
STEPS_FINAL_PICK = "steps_final_pick"
STEPS_ENC = "steps_enc"
# views/tokenize.py
TOK_PICK = "tok_pick"
TOK_DECODE = "tok_decode"
TOK_TOKENS_BLOCK = "tok_tokens_block"
TOK_BYTES_BLOCK = "tok_bytes_block"
TOK_TABLE = "tok_table"
TOK_CSV = "tok_csv"
TOK_JSON = "tok_json"
TOK_IDS_BLOCK = "tok_ids_block"
TOK_COPY_IDS = "tok_copy_ids"
TOK_OPEN_TREE = "tok_open_tree"
TOK_OPEN_STEPS = "tok_open_steps"
TOK_OPEN_VOCAB = "tok_open_vocab"
TOK_PIECES_PREFIX = "tok_pieces_"
TOK_ENCODING = "tok_encoding"
TOK_PANE = "tok_pane"
# widgets/other_cuts.py (Tokenize's "Other ways to cut this text")
TOK_NC_OPEN = "tok_nc_open"
TOK_NC_P = "tok_nc_p"
TOK_NC_SEED = "tok_nc_seed"
TOK_NC_WORD = "tok_nc_word"
TOK_NC_LANE_PREFIX = "tok_nc_lane_"
# views/train.py
TRAIN_TEXT = "train_text"
TRAIN_FILE = "train_file"
TRAIN_REPLACE = "train_replace"
TRAIN_VOCAB = "train_vocab"
TRAIN_PATTERN = "train_pattern"
TRAIN_CUSTOM_PATTERN = "train_custom_pattern"
TRAIN_SPECIALS = "train_specials"
TRAIN_GO = "train_go"
TRAIN_RESULT = "train_result"
TRAIN_PANE = "train_pane"
TRAIN_FLASH = "train_flash"
TRAIN_PENDING_NOTICES = "train_pending_notices"
UPLOAD_KIND = "upload_kind"
UPLOAD_ENCODER_JSON = "upload_encoder_json"
UPLOAD_PATTERN = "upload_pattern"
UPLOAD_CUSTOM_PATTERN = "upload_custom_pattern"
UPLOAD_SPECIALS = "upload_specials"
UPLOAD_GO = "upload_go"
UPLOAD_RESULT = "upload_result"
UPLOAD_NAME = "upload_name"
UPLOAD_SUGGESTED_NAME = "upload_suggested_name"
LOCAL_PICK = "local_pick"
LOCAL_GO = "local_go"
TRAIN_DL_PREFIX = "train_dl_"
TRAIN_USE = "train_use"
# Unigram training (playground/widgets/unigram_training.py)
TRAIN_UNIGRAM_VOCAB = "train_unigram_vocab"
TRAIN_UNIGRAM_BYTES = "train_unigram_bytes"
TRAIN_UNIGRAM_GO = "train_unigram_go"
TRAIN_UNIGRAM_RESULT = "train_unigram_result"  # the trained SentencePieceEncoding
TRAIN_UNIGRAM_USE = "train_unigram_use"
UPLOAD_FILE = "upload_file"
UPLOAD_ROUND = "upload_round"  # loads from the detecting uploader: part of its key (views.train.uploader_key)
UPLOAD_USE = "upload_use"
# widgets/train_lab.py (the Train page's other algorithms)
TRAIN_ALGORITHM = "train_algorithm"
LAB_SOURCE = "lab_source"  # parity-aware BPE: the Arena's translations or the user's own texts
LAB_LANGUAGES = "lab_languages"  # the Arena languages picked
LAB_OWN_COUNT = "lab_own_count"
LAB_OWN_NAME = "lab_own_name_{i}"
LAB_OWN_TEXT = "lab_own_text_{i}"
LAB_VOCAB = "lab_vocab"
LAB_TRANSITION = "lab_transition"  # SuperBPE: the transition point, in % of the vocabulary
LAB_GO = "lab_go"
LAB_RESULT = "lab_result"  # the last engine.training.lab.LabResult
LAB_USE = "lab_use"
LAB_DL = "lab_dl"
# views/tree.py
TREE_PICK_MODE = "tree_pick_mode"
TREE_TEXT_TOKEN = "tree_text_token"
TREE_ID = "tree_id"
TREE_FIND = "tree_find"
TREE_FOUND = "tree_found"
TREE_DEPTH = "tree_depth"
TREE_LEFT_RIGHT = "tree_left_right"
TREE_OTHER_ENC = "tree_other_enc"
TREE_LAYOUT_FOR = "_tree_layout_for"
TREE_TO_TOKENIZE = "tree_to_tokenize"
TREE_TO_STEPS = "tree_to_steps"
TREE_TO_VOCAB = "tree_to_vocab"
TREE_BACK_PROBLEM = "tree_back_problem"
TREE_SVG = "tree_svg"  # + "_main" / "_other": the drawn tree's download button
TREE_ENC = "tree_enc"
# views/vocab.py
VOCAB_QUERY = "vocab_query"
VOCAB_MODE = "vocab_mode"
VOCAB_ICASE = "vocab_icase"
VOCAB_FILTER = "vocab_filter"
VOCAB_GLITCH_TABLE = "vocab_glitch_table"
VOCAB_ID = "vocab_id"
VOCAB_SHOWN_IDS = "_vocab_shown_ids"
VOCAB_TO_TREE = "vocab_to_tree"
VOCAB_LOG = "vocab_log"
VOCAB_ENC = "vocab_enc"
VOCAB_TABLE = "vocab_table"
VOCAB_CONTAINING = "vocab_containing"
VOCAB_CONTAINED = "vocab_contained"
VOCAB_HEALTH_LIST = "vocab_health_list"
VOCAB_HEALTH_TABLE = "vocab_health_table"
# widgets/vocab_health.py (read by the Merge tree's scaffold line too)
SCAFFOLD_CORPUS = "scaffold_corpus"
# widgets/pickers.py
STEPS_SOURCE = "steps_source"
STEPS_TYPED = "steps_typed"
STEPS_K = "steps_k"
VOCAB_PANE = "vocab_pane"
TOKEN_LINKS_OPEN = "_token_links_open"
# widgets/share_link.py
SHARE_LINK_COPY = "share_link_copy"
# widgets/sidebar.py
PICKER_SEARCH = "picker_search"
PICKER_OPEN = "picker_open"
PICK_PREFIX = "pick_"

# ----------------------------------------------------- the views' value widgets
# Keyed by the page's URL path: the share link carries the open page's own values.
# Each is drawn with persist_state="session", so it survives pages that do not draw it.
PAGE_KEYS: dict[str, tuple[str, ...]] = {
    "tokenize": (TOK_ENCODING, TOK_PANE, TOK_DECODE, TOK_NC_OPEN, TOK_NC_P, TOK_NC_SEED),
    "compare": (CMP_LAYOUT,),
    "gallery": (GALLERY_SECTION, GALLERY_DEMO, GALLERY_CONTEXT_PRESET, GALLERY_CONTEXT, GALLERY_PRICE),
    "arena": (ARENA_PICK, ARENA_METRIC),
    "chunks": (CHUNK_ENCODING, CHUNK_MAX, CHUNK_PREFER, CHUNK_PAGE),
    "tree": (TREE_PICK_MODE, TREE_FIND, TREE_LEFT_RIGHT, TREE_OTHER_ENC),
    "steps": (STEPS_SOURCE, STEPS_PIECE, STEPS_TYPED, STEPS_K),
    "vocab": (VOCAB_PANE, VOCAB_QUERY, VOCAB_MODE, VOCAB_ICASE, VOCAB_FILTER, VOCAB_LOG, SCAFFOLD_CORPUS,
              VOCAB_HEALTH_LIST),
    "train": (TRAIN_VOCAB, TRAIN_PATTERN, TRAIN_CUSTOM_PATTERN, TRAIN_SPECIALS, TRAIN_PANE,
              TRAIN_REPLACE, UPLOAD_KIND, UPLOAD_PATTERN, UPLOAD_CUSTOM_PATTERN, UPLOAD_SPECIALS,
              TRAIN_ALGORITHM, LAB_SOURCE, LAB_VOCAB, LAB_TRANSITION),
    "chat": (CHAT_CONV,),
}
PAGE_KEYS[""] = PAGE_KEYS["tokenize"]  # the root URL shows Tokenize
URL_VALUE_LIMITS = {CHAT_CONV: MAX_URL_TEXT}  # settings that may be longer: Chat's packed conversation


@dataclass(frozen=True)
class LinkValue:
    """What a share link may set for one view widget: the type, range and options of that widget.

    A link may hold anything (a value of the wrong type crashed five pages, and, written back into the
    address, every reload), so each value is checked here before it reaches a widget (`link_value`).
    `options` names the view's own list (``"module:NAME"``, read when needed, never copied here), or is
    ``"encodings"`` (a built-in encoding's name); a list value (`kind` list) is several such names.
    """
    label: str  # the widget's label, for the notice
    kind: type  # str, int, float, bool, or list
    low: float | None = None
    high: float | None = None
    options: str = ""
    check: Callable[[str], str] | None = None  # text values: checks and normalises (its ValueError is the reason)
    skip_empty: bool = False  # an empty text is not written into the link (the setting's "nothing set")


LINK_VALUES: dict[str, LinkValue] = {
    TOK_ENCODING: LinkValue("Encoding", str, options="encodings"),
    TOK_PANE: LinkValue("Show", str, options="views.tokenize:PANES"),
    TOK_DECODE: LinkValue("Decode ids", str),
    TOK_NC_OPEN: LinkValue("Other ways to cut this text", bool),
    TOK_NC_P: LinkValue("Dropout p", float, 0.0, 1.0),
    TOK_NC_SEED: LinkValue("Seed", int, 0, 2**31 - 1),  # widgets/other_cuts.py: MAX_SEED
    CMP_LAYOUT: LinkValue("Layout", str, options="views.compare:LAYOUTS"),
    GALLERY_SECTION: LinkValue("Show", str, options="views.gallery:SECTIONS"),
    GALLERY_DEMO: LinkValue("Demo", str, options="views.gallery.demos:DEMOS"),
    GALLERY_CONTEXT_PRESET: LinkValue("Context presets", str, options="views.gallery:CONTEXT_PRESETS"),
    GALLERY_CONTEXT: LinkValue("Context window (tokens)", int, 1, 100_000_000),
    GALLERY_PRICE: LinkValue("Price per 1 million tokens", float, 0.0, 1_000_000.0),
    ARENA_PICK: LinkValue("Tokenizers", list, options="encodings"),
    ARENA_METRIC: LinkValue("Colour by", str, options="views.arena:METRICS"),
    CHUNK_ENCODING: LinkValue("Tokenizer", str, options="encodings"),
    CHUNK_MAX: LinkValue("At most N tokens per chunk", int, 1, 1_000_000),
    CHUNK_PREFER: LinkValue("Cut preferably at", str, options="views.chunks:PREFER"),
    CHUNK_PAGE: LinkValue("Page", int, 1),
    TREE_PICK_MODE: LinkValue("Pick a token", str, options="views.tree:PICK_MODES"),
    TREE_FIND: LinkValue("Find a token", str),
    TREE_LEFT_RIGHT: LinkValue("Draw left to right", bool),
    TREE_OTHER_ENC: LinkValue("Draw its tree in", str, options="encodings"),
    STEPS_SOURCE: LinkValue("Piece", str, options="views.steps:SOURCES"),
    STEPS_PIECE: LinkValue("Pieces of the current text", str),
    STEPS_TYPED: LinkValue("Piece", str),
    STEPS_K: LinkValue("Step", int, 0),  # its maximum depends on the piece: the view resets a step past it
    VOCAB_PANE: LinkValue("View", str, options="views.vocab:PANES"),
    VOCAB_QUERY: LinkValue("Search tokens", str),
    VOCAB_MODE: LinkValue("Match", str, options="views.vocab:MODES"),
    VOCAB_ICASE: LinkValue("Ignore case", bool),
    VOCAB_FILTER: LinkValue("Quick filter", str, options="views.vocab:FILTERS"),
    VOCAB_LOG: LinkValue("Log scale", bool),
    SCAFFOLD_CORPUS: LinkValue("Corpus", str, options="widgets.vocab_health:CORPORA"),
    VOCAB_HEALTH_LIST: LinkValue("List", str, options="views.vocab:HEALTH_LISTS"),
    TRAIN_VOCAB: LinkValue("Vocabulary size", int, 257, 4096),
    TRAIN_PATTERN: LinkValue("Split pattern", str, options="views.train:PATTERNS"),
    TRAIN_CUSTOM_PATTERN: LinkValue("Custom split pattern", str),
    TRAIN_SPECIALS: LinkValue("Special tokens", str),
    TRAIN_PANE: LinkValue("Show", str, options="views.train:TRAIN_PANES"),
    TRAIN_REPLACE: LinkValue("Decode with replacement", bool),
    TRAIN_ALGORITHM: LinkValue("Algorithm", str, options="widgets.train_lab:ALGORITHMS"),
    LAB_SOURCE: LinkValue("Texts", str, options="widgets.train_lab:SOURCES"),
    LAB_VOCAB: LinkValue("Vocabulary size", int, 257, 4096),
    LAB_TRANSITION: LinkValue("Transition point (% of the vocabulary)", int, 0, 100),
    UPLOAD_KIND: LinkValue("File kind", str, options="views.train:UPLOAD_KINDS"),
    UPLOAD_PATTERN: LinkValue("Split pattern", str, options="views.train:PATTERNS"),
    UPLOAD_CUSTOM_PATTERN: LinkValue("Custom split pattern", str),
    UPLOAD_SPECIALS: LinkValue("Extra special tokens", str),
    CHAT_CONV: LinkValue("Share code", str),
}


# ---------------------------------------------- teaching pages: training step by step, tokenizer diff, presentation
# Kept in one block (their own keys, pages and link values) so the rest of this module reads as before.
TS_SOURCE = "tsteps_source"  # Training, step by step: a preset's name or "yours"
TS_TEXT = "tsteps_text"
TS_PATTERN = "tsteps_pattern"
TS_MERGES = "tsteps_merges"
TS_STEP = "tsteps_step"
TS_SPEED = "tsteps_speed"
TS_PLAYING = "tsteps_playing"  # auto-play on (not in a link: a link opens paused)
TS_WALK = "tsteps_walk"  # (settings, TrainingWalk): the walk of the current text, computed once
TS_USED = "tsteps_used"  # the name "Use in Tokenize/Compare" registered last
TS_TICK = "_tsteps_tick"  # auto-play: the next timer run of the fragment advances one step
TS_TIMER = "_tsteps_timer"  # auto-play: the speed the page drew the fragment's timer with
TS_BACK = "tsteps_back"  # the step buttons
TS_NEXT = "tsteps_next"
TS_PLAY = "tsteps_play"
TS_END = "tsteps_end"
TS_USE = "tsteps_use"  # "Use in Tokenize" / "Use in Compare": this key + "_tok" / "_cmp"
PAGE_KEYS["train-steps"] = (TS_SOURCE, TS_TEXT, TS_PATTERN, TS_MERGES, TS_STEP, TS_SPEED)
URL_VALUE_LIMITS[TS_TEXT] = MAX_URL_TEXT
LINK_VALUES.update({
    TS_SOURCE: LinkValue("Text", str, options="views.train_steps:SOURCES"),
    TS_TEXT: LinkValue("Your text", str),
    TS_PATTERN: LinkValue("Split pattern", str, options="views.train_steps:PATTERNS"),
    TS_MERGES: LinkValue("Merges", int, 1, 200),
    TS_STEP: LinkValue("Step", int, 0, 200),
    TS_SPEED: LinkValue("Speed", str, options="views.train_steps:SPEEDS"),
})

DIFF_PRESET = "diff_preset"  # Tokenizer diff: a pair of PRESETS (None once A or B is picked by hand)
DIFF_A = "diff_a"
DIFF_B = "diff_b"
PAGE_KEYS["diff"] = (DIFF_PRESET, DIFF_A, DIFF_B)
LINK_VALUES.update({
    DIFF_PRESET: LinkValue("Presets", str, options="views.diff:PRESETS"),
    DIFF_A: LinkValue("A (before)", str, options="encodings"),
    DIFF_B: LinkValue("B (after)", str, options="encodings"),
})
PRESENT = "present"  # presentation mode: large type, high contrast, wider token boxes (every page; in every link)
DEFAULTS[PRESENT] = False
APP_LINK_KEYS = (PRESENT,)  # view settings every page's link carries (written only when on)
LINK_VALUES[PRESENT] = LinkValue("Presentation mode", bool)
LAB_DEMO_PREFIX = "lab_demo_"  # + the result's number: views/lab.py's "Open the demo" buttons
GLOSSARY_TERM = "glossary_term"  # the Glossary entry a help's link asked for
PAGE_KEYS["glossary"] = (GLOSSARY_TERM,)
LINK_VALUES[GLOSSARY_TERM] = LinkValue("Term", str, options="render.glossary:NAMES")

PIPE_ENCODING = "pipe_encoding"  # Pipeline: the tokenizer whose stages are drawn
PIPE_TEXT = "pipe_text"  # Pipeline and Three algorithms: the page's own short text
PAGE_KEYS["pipeline"] = (PIPE_ENCODING, PIPE_TEXT)
URL_VALUE_LIMITS[PIPE_TEXT] = MAX_URL_VALUE
LINK_VALUES.update({
    PIPE_ENCODING: LinkValue("Tokenizer", str, options="encodings"),
    PIPE_TEXT: LinkValue("Text", str),
})
ALGO_TEXT = "algo_text"  # Three algorithms: the text the three tokenizers cut
ALGO_BPE = "algo_bpe"  # the byte-level BPE of the three
ALGO_THIRD = "algo_third"  # the Unigram (one of the session's own) or, without one, SentencePiece BPE
PAGE_KEYS["algorithms"] = (ALGO_TEXT, ALGO_BPE, ALGO_THIRD)
URL_VALUE_LIMITS[ALGO_TEXT] = MAX_URL_VALUE
LINK_VALUES.update({
    ALGO_TEXT: LinkValue("Text", str),
    ALGO_BPE: LinkValue("Byte-level BPE", str, options="views.algorithms:BPE_CHOICES"),
    ALGO_THIRD: LinkValue("Unigram", str),
})

# ---------------------------------------------- prices and the context window (Chat formats, Budget, Arena)
# The user's own prices are state of their own (one text, engine.explain.prices.parse_overrides reads it), so
# every page that shows a cost uses them, drawn or not; the pages that show a cost carry them in their link.
PRICES = "prices"  # the "Your prices" box: "gpt-4o=2/1/8; ..." (engine.explain.prices.parse_overrides)
PRICES_TABLE = "prices_table"  # the price list under the box
PRICES_COSTS = "prices_costs"  # Budget's and the Arena's cost table
CHAT_COSTS_TABLE = "chat_costs_table"
CHAT_WINDOW_BARS = "chat_window_bars"
CHAT_MAX_TOKENS = "chat_max_tokens"  # reserved output (max_tokens) for the context-window bars
for _page in ("chat", "chunks", "arena"):
    PAGE_KEYS[_page] += (PRICES,)
PAGE_KEYS["chat"] += (CHAT_MAX_TOKENS,)


def _canonical_prices(text: str) -> str:
    try:
        return engine_prices.format_overrides(engine_prices.parse_overrides(text))
    except engine_prices.PriceOverrideError as error:
        raise LinkValueError(str(error)) from None


LINK_VALUES.update({
    PRICES: LinkValue("Your prices", str, check=_canonical_prices, skip_empty=True),
    CHAT_MAX_TOKENS: LinkValue("Reserved output (max_tokens)", int, 0, 100_000_000),
})


class LinkValueError(ValueError):
    """A share-link value its widget cannot take; the message says what the widget expects."""


def init_state() -> None:
    """Each run: set defaults (never overwriting), restore the share link once per session."""
    st.session_state.setdefault(CUSTOM, OrderedDict())
    st.session_state.setdefault(NOTICES, [])
    if getattr(st.session_state[CUSTOM], "released", False):
        # The server released this session's tokenizers (playground.cache.uploads) while the session was still
        # held: a dropped connection that came back within Streamlit's grace period keeps them, so this is rare.
        if st.session_state[CUSTOM].forgotten:
            notify("warning", "Your own tokenizers (" + ", ".join(st.session_state[CUSTOM].forgotten) + ") were "
                              "released by the server when your session ended. Train or upload them again to use them.")
        st.session_state[CUSTOM] = OrderedDict()
    for key, value in DEFAULTS.items():
        st.session_state.setdefault(key, list(value) if isinstance(value, list) else value)
    if not st.session_state.get(_LOADED):
        st.session_state[_LOADED] = True
        load_query_params()
    if isinstance(st.session_state[TEXT], str):
        # The text every page reads and the share link carries: the entries repair it (live text, link), and
        # this catches any other way in, since one surrogate here broke every page until the session ended.
        st.session_state[TEXT] = repaired_text(st.session_state[TEXT], "The text")
    sanitize_selection()


def known_encodings() -> list[str]:
    """Every encoding a view may offer: the built-ins (aliases once), then this session's own tokenizers."""
    return BUILTIN_ENCODINGS + list(st.session_state.get(CUSTOM, {}))


def own_unigrams() -> list[str]:
    """This session's own Unigram tokenizers (uploaded: no Unigram vocabulary is built in), oldest first."""
    own = st.session_state.get(CUSTOM, {})
    return [n for n, e in own.items() if e.family == "unigram" or (e.family == "sentencepiece" and e.is_unigram)]


def builtin_name(name: object) -> str | None:
    """`name` as a built-in's entry name (an alias becomes its entry), or None if it is not built in."""
    if not isinstance(name, str):
        return None
    name = canonical_name(name)
    return name if name in BUILTIN_ENCODINGS else None


def unselect(names: list[str]) -> None:
    """Take `names` out of the chosen encodings at the start of the next run (the widget may be drawn)."""
    st.session_state[UNSELECT] = list(names)


def select(name: str, *, make_room: bool = False) -> None:
    """Add `name` to the chosen encodings at the start of the next run (`sanitize_selection`).

    The sidebar's Encodings box is drawn before any view, and Streamlit refuses a change to a drawn widget's
    key (a 4th upload, which drops the oldest, crashed the Train page so), so a view only asks here, from a
    callback or from its main run before `st.rerun`.  With MAX_SELECTED chosen already, `make_room` gives the
    last pick's place to `name` (a button that asked for it: "Use in Compare"); otherwise the others stay and
    a notice says why `name` is not selected."""
    st.session_state.setdefault(SELECT, []).append((name, make_room))


def sanitize_selection() -> None:
    """Chosen encodings: known ones only, each once, at most MAX_SELECTED (a link may hold anything); then the
    names `select` asked for, at the end."""
    known = set(known_encodings()) - set(st.session_state.pop(UNSELECT, []))
    names = [canonical_name(n) if isinstance(n, str) else n for n in st.session_state.get(ENCODINGS) or []]
    chosen = list(dict.fromkeys(n for n in names if n in known))[:MAX_SELECTED]
    for name, make_room in st.session_state.pop(SELECT, []):
        if name not in known or name in chosen:
            continue
        if len(chosen) >= MAX_SELECTED and make_room:
            chosen.pop()
        if len(chosen) < MAX_SELECTED:
            chosen.append(name)
        else:
            notify("warning", f"{name} is loaded but not selected: the sidebar's Encodings holds at most "
                              f"{MAX_SELECTED} at once (as many as a share link carries), and your {MAX_SELECTED} "
                              f"stay. Unselect one there, then pick {name}.")
    if chosen != st.session_state.get(ENCODINGS):
        st.session_state[ENCODINGS] = chosen
    token_enc = st.session_state.get(TOKEN_ENC)
    if isinstance(token_enc, str) and canonical_name(token_enc) != token_enc:
        st.session_state[TOKEN_ENC] = token_enc = canonical_name(token_enc)
    if token_enc not in known:
        st.session_state[TOKEN_ENC] = "cl100k_base"


# ----------------------------------------------------------- own tokenizers
def add_custom(enc: Any, *, name: str | None = None, reservation: Any = None, suffix_if_taken: bool = False) -> str:
    """Keep a trained/uploaded tokenizer for this session, renamed to `name` if given (the oldest goes
    past MAX_CUSTOM); returns its name.  Held by playground.cache.uploads (released when the session ends,
    weighed against the server's budget): `uploads.UploadBudgetError` or `uploads.TokenizerNameError`.

    The chosen encodings are not touched here: a dropped tokenizer leaves them at the start of the next run
    (`sanitize_selection`), since a caller in a view's main run comes after the sidebar's box is drawn.
    `select` chooses the new one."""
    from playground.cache import uploads  # uploads reads nothing of this module; imported here to stay a leaf

    custom = uploads.this_session(st.session_state.get(CUSTOM))
    st.session_state[CUSTOM] = custom
    for old in custom.add(enc, max_count=MAX_CUSTOM, name=name, reservation=reservation,
                          suffix_if_taken=suffix_if_taken):
        notify("warning", f"Your oldest tokenizer, {old}, was removed: a session keeps at most "
                          f"{MAX_CUSTOM} of its own. Train or upload it again to bring it back.")
    return enc.name


def notify(kind: str, text: str) -> None:
    """A message for the next run to show once; `text` is plain text (escaped when shown)."""
    st.session_state.setdefault(NOTICES, []).append((kind, text))


def surrogate_notice(where: str, n: int, first: str = "") -> str:
    """What a user is told when `where` (the subject, e.g. "The imported file") held `n` lone surrogates that
    were replaced; `first` says where the first was.  The character itself is never quoted: a str holding
    one cannot be sent to the browser."""
    what = ("halves of UTF-16 pairs, not characters, and UTF-8 cannot hold them, so each was" if n > 1 else
            "half of a UTF-16 pair, not a character, and UTF-8 cannot hold it, so it was")
    return (f"{where} held {n:,} lone surrogate{'s' if n > 1 else ''}{f' (the first: {first})' if first else ''}: "
            f"{what} replaced with U+FFFD (\ufffd), as tiktoken does.")


def repaired_text(text: str, where: str) -> str:
    """`text` with lone surrogates replaced with U+FFFD (engine.text.repair_surrogates) and a notice naming
    `where` when there were any.  Every entry of user text passes here: a str holding one cannot be encoded
    as UTF-8, so Streamlit could not send the page back (the share link, an export) and every later run of
    the session broke.  A browser never sends one, but a raw client, a JSON escape or a link can."""
    fixed = repair_surrogates(text)
    n = lone_surrogates(text) if fixed is not text else 0
    if n:
        at = first_surrogate(text)
        notify("warning", surrogate_notice(where, n, f"U+{ord(text[at]):04X} at character {at + 1:,}"))
    return fixed


def take_notices() -> list[tuple[str, str]]:
    notices = list(st.session_state.get(NOTICES, []))
    st.session_state[NOTICES] = []
    st.session_state[NOTICES_SHOWN] = notices
    return notices


def notices_again(replace: dict[str, str | None] | None = None) -> None:
    """Show the notices of the last run again in the next one: a run a component's report starts at once
    (playground/components/browser_store.py) redraws the page, and one-shot notices would flash away.
    `replace` maps a notice's text to the text shown instead (None: left out)."""
    replace = replace or {}
    again = [(kind, replace.get(text, text)) for kind, text in st.session_state.get(NOTICES_SHOWN, [])]
    st.session_state[NOTICES] = [(k, t) for k, t in again if t] + list(st.session_state.get(NOTICES, []))


# ---------------------------------------------------------------- share link
def load_query_params() -> None:
    """Restore a share link: every value checked against what its widget takes, unknown parameters ignored.

    Nothing is dropped silently: what the link holds but this app cannot use (a wrong value, an
    unknown or seventh encoding) is named in one notice, and what the sender's link could not carry
    (its ``cut`` list: a long text, their own tokenizers) in another.  A dropped value never reaches
    session state, so it is never written back into the address either.
    """
    qp = st.query_params
    problems: list[str] = []
    if "text" in qp:
        text = qp["text"]
        if len(text) > MAX_TEXT_CHARS:
            problems.append(f"the text has {len(text):,} characters; only its first {MAX_TEXT_CHARS:,} are used")
        st.session_state[TEXT] = repaired_text(text[:MAX_TEXT_CHARS], "The link's text")
    if "enc" in qp:
        asked = [n for n in qp["enc"].split(",") if n]
        names = list(dict.fromkeys(filter(None, map(builtin_name, asked))))
        unknown = [n for n in asked if builtin_name(n) is None]
        if unknown:
            problems.append(f"encodings that are not built in: {', '.join(unknown)} (a tokenizer someone trained "
                            "or uploaded stays in their session)")
        if len(names) > MAX_SELECTED:
            problems.append(f"{', '.join(names[MAX_SELECTED:])}: at most {MAX_SELECTED} encodings are shown at once, "
                            f"the first {MAX_SELECTED} are")
        if names:
            st.session_state[ENCODINGS] = names[:MAX_SELECTED]
    if "sp" in qp:
        if qp["sp"] in SPECIAL_POLICIES:
            st.session_state[SPECIAL] = qp["sp"]
        else:
            problems.append(f"sp={_shown(qp['sp'])}: the special-token setting is one of {', '.join(SPECIAL_POLICIES)}")
    if "ws" in qp:
        if qp["ws"] in ("0", "1"):
            st.session_state[SHOW_WS] = qp["ws"] == "1"
        else:
            problems.append(f"ws={_shown(qp['ws'])}: whitespace markers are 1 (on) or 0 (off)")
    if "tok" in qp:
        # At most MAX_TOKEN_ID_DIGITS digits: int() refuses a string of over 4,300 digits with a ValueError that
        # escaped the notice, and no vocabulary comes near a 19-digit id.
        if qp["tok"].isascii() and qp["tok"].isdigit() and len(qp["tok"]) <= MAX_TOKEN_ID_DIGITS:
            st.session_state[TOKEN_ID] = int(qp["tok"])
        else:
            problems.append(f"tok={_shown(qp['tok'])}: a token id is a whole number from 0 "
                            f"(at most {MAX_TOKEN_ID_DIGITS} digits)")
    if "tenc" in qp:
        if builtin_name(qp["tenc"]):
            st.session_state[TOKEN_ENC] = builtin_name(qp["tenc"])
        else:
            problems.append(f"tenc={_shown(qp['tenc'])}: not a built-in encoding")
    for param, raw in qp.items():
        key = param[2:]
        if not param.startswith("v.") or key not in LINK_VALUES:
            continue  # not ours (a tracking parameter, a setting of an older version): nothing to restore
        try:
            # load_json_bounded: a link of 3,000 nested brackets must be a notice, not a RecursionError
            st.session_state[key] = link_value(key, load_json_bounded(raw, name=param))
        except ValueError as error:  # LinkValueError, or not JSON at all
            why = error if isinstance(error, LinkValueError) else "not a value this app writes"
            problems.append(f"{LINK_VALUES[key].label} ({param}={_shown(raw)}): {why}")
    if problems:
        notify("warning", "Parts of this link could not be used and were left out: " + "; ".join(problems) + ".")
    st.session_state[LINK_CUT] = [item for item in qp.get("cut", "").split(",") if item]
    told = cut_notice(st.session_state[LINK_CUT])
    if told:
        notify("warning", told)


def cut_notice(cut: list[str], *, own: bool = True) -> str | None:
    """The notice for what a link's ``cut`` list says it could not carry (None: nothing); without `own`, its
    own tokenizers are left out (a reload of their tab named them already: widgets/browser_memory.py)."""
    items = [c for c in cut if c not in PAGE_TELLS_CUT and (own or not c.startswith("own:"))]
    missing = _gaps(",".join(items), sender=False)
    if not missing:
        return None
    return ("This link could not carry everything its sender had open: " + "; ".join(missing)
            + ". Ask them to send what is missing another way.")


def _shown(raw: str) -> str:
    """A value from a link, short enough to quote in a notice."""
    return raw if len(raw) <= 40 else raw[:40] + "…"


def link_options(key: str) -> list:
    """The options of the widget `key` (read from its view module, never copied), or [] if it has none."""
    spec = LINK_VALUES[key]
    if spec.options == "encodings":
        return list(BUILTIN_ENCODINGS)
    if not spec.options:
        return []
    module, name = spec.options.split(":")
    # imported when a link is read, not at import: views import this module
    return list(getattr(importlib.import_module(f"playground.{module}"), name))


def link_value(key: str, value: Any) -> Any:
    """`value` as the widget `key` takes it (a whole number for a float box becomes a float, an alias of
    an encoding its entry's name); LinkValueError saying what the widget expects if it cannot take it."""
    spec = LINK_VALUES[key]
    for text in value if isinstance(value, list) else [value]:
        at = first_surrogate(text) if isinstance(text, str) else None
        if at is not None:  # JSON's "\ud800" escape reads as one; quoted in a notice it would break the page
            raise LinkValueError(f"holds a lone surrogate (U+{ord(text[at]):04X}), half of a UTF-16 pair and not "
                                 "a character")
    if spec.kind is list:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise LinkValueError("expects a list of encoding names")
        unknown = [v for v in value if builtin_name(v) is None]
        if unknown:
            raise LinkValueError(f"{_shown(', '.join(unknown))} not built in")
        return list(dict.fromkeys(map(builtin_name, value)))
    if spec.kind is bool:
        if not isinstance(value, bool):
            raise LinkValueError("expects true or false")
        return value
    if spec.kind in (int, float):
        # Only a float can be inf or nan: math.isfinite(int) converts to float, and an int of 309 digits or more
        # (which JSON reads exactly) has no float, so it raised OverflowError past the notice.  Comparing an int
        # with a float bound is exact in Python, so the range check below needs no conversion.
        number = isinstance(value, (int, float)) and not isinstance(value, bool) and not (
            isinstance(value, float) and not math.isfinite(value))
        if not number or (spec.kind is int and not isinstance(value, int)):
            raise LinkValueError("expects a whole number" if spec.kind is int else "expects a number")
        expects = f"expects a number from {spec.low:,}" + ("" if spec.high is None else f" to {spec.high:,}")
        if (spec.low is not None and value < spec.low) or (spec.high is not None and value > spec.high):
            raise LinkValueError(expects)
        if spec.kind is float and isinstance(value, int) and abs(value) > sys.float_info.max:
            raise LinkValueError(expects)  # a float box without an upper bound cannot hold it either
        return spec.kind(value)
    if not isinstance(value, str):
        raise LinkValueError("expects text")
    if len(value) > url_limit(key):
        raise LinkValueError(f"expects at most {url_limit(key):,} characters")
    if spec.options == "encodings":
        if builtin_name(value) is None:
            raise LinkValueError("expects the name of a built-in encoding")
        return builtin_name(value)
    options = link_options(key)
    if spec.options and value not in options:
        raise LinkValueError("expects one of " + ", ".join(map(str, options)))
    return spec.check(value) if spec.check else value


def url_limit(key: str) -> int:
    """Characters of the view setting `key` a share link may carry."""
    return URL_VALUE_LIMITS.get(key, MAX_URL_VALUE)


def url_safe(key: str, value: Any) -> bool:
    """Whether a share link may carry `value` for the view setting `key` (what its widget takes, not too long)."""
    try:
        link_value(key, value)
    except (LinkValueError, KeyError):
        return False
    return True


def _gaps(cut: str, *, sender: bool) -> list[str]:
    """What a link's ``cut`` list says it could not carry, in words for its sender or its recipient."""
    words = []
    for item in filter(None, cut.split(",")):
        what, _, n = item.partition(":")
        count = int(n) if n.isascii() and n.isdigit() else None
        if what == "text" and count:
            words.append(f"{'your' if sender else 'the'} text ({count:,} characters; a link holds at most "
                         f"{MAX_URL_TEXT:,}), so the link opens with the demo text instead")
        elif what == "own" and count:
            plural = "s" if count > 1 else ""
            words.append(f"{count} tokenizer{plural} you trained or uploaded (they stay in this tab only, and a "
                         "reload clears them)" if sender else
                         f"{count} tokenizer{plural} trained or uploaded in the tab the link was copied from (a "
                         f"link cannot carry {'them' if count > 1 else 'one'}: {'they stay' if count > 1 else 'it stays'} "
                         "in that tab only, until it is reloaded or closed)")
        elif what.startswith("v.") and what[2:] in LINK_VALUES:
            words.append(f"the {LINK_VALUES[what[2:]].label} setting (too long for a link)")
    return words


def _left_out(page: str | None) -> list[str]:
    """The ``cut`` list of the current link: what it cannot carry of the session and of `page`'s settings."""
    cut = []
    text = st.session_state.get(TEXT, "")
    if len(text) > MAX_URL_TEXT:
        cut.append(f"text:{len(text)}")
    if session_only_selected():
        cut.append(f"own:{len(session_only_selected())}")
    for key in PAGE_KEYS.get(page or "", ()):
        value = st.session_state.get(key)
        if isinstance(value, str) and len(value) > url_limit(key):
            cut.append("v." + key)
    return cut


# Parameters of a link's ``cut`` list whose page tells its reader itself, knowing more than the link: the Chat page
# restores a conversation too long for the link from this browser's copy, and speaks to its author if it cannot.
PAGE_TELLS_CUT = ("v." + CHAT_CONV,)


def link_cut() -> list[str]:
    """What the link that opened this session could not carry (its ``cut`` list), e.g. ``v.chat_conv``."""
    return list(st.session_state.get(LINK_CUT, []))


def link_gaps(page: str | None = None) -> list[str]:
    """What the current share link leaves out, in words for the person copying it (empty: nothing)."""
    return _gaps(",".join(_left_out(page)), sender=True)


def save_query_params(page: str | None = None) -> None:
    """Write the current state into the URL: app-wide values, `page`'s own choices (only values their
    widgets take, `link_value`), and ``cut``, what the link cannot carry (so its recipient is told)."""
    text = st.session_state.get(TEXT, "")
    params = {
        "enc": ",".join(n for n in st.session_state.get(ENCODINGS, []) if n in BUILTIN_ENCODINGS),
        "sp": st.session_state.get(SPECIAL, "text"),
        "ws": "1" if st.session_state.get(SHOW_WS, True) else "0",
    }
    if len(text) <= MAX_URL_TEXT:
        params["text"] = text
    if st.session_state.get(TOKEN_ID) is not None and st.session_state.get(TOKEN_ENC) in BUILTIN_ENCODINGS:
        params["tok"] = str(st.session_state[TOKEN_ID])
        params["tenc"] = st.session_state[TOKEN_ENC]
    for key in PAGE_KEYS.get(page or "", ()) + tuple(k for k in APP_LINK_KEYS if st.session_state.get(k)):
        value = st.session_state.get(key)
        if value == "" and LINK_VALUES[key].skip_empty:
            continue
        if value is not None and url_safe(key, value):
            params["v." + key] = json.dumps(link_value(key, value), ensure_ascii=False)
    cut = _left_out(page)
    if cut:
        params["cut"] = ",".join(cut)
    if dict(st.query_params) != params:
        st.query_params.from_dict(params)


def session_only_selected() -> list[str]:
    """The chosen encodings a link cannot carry (this session's own tokenizers)."""
    custom = st.session_state.get(CUSTOM, {})
    return [n for n in st.session_state.get(ENCODINGS, []) if n in custom]
