"""The texts of the "Why counts differ" demos: what each one shows, and its examples.

Only texts and explanations live here; every number the gallery shows is
measured by the engine when the page runs.  The languages demo reads
engine/data/languages.json (real translations, made by scripts/gen_languages.py).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

LANGUAGES_FILE = Path(__file__).resolve().parents[3] / "engine" / "data" / "languages.json"


@dataclass(frozen=True)
class Sample:
    label: str
    text: str
    note: str = ""  # where the text comes from, or what to look for


@dataclass(frozen=True)
class Demo:
    key: str
    title: str
    explanation: str
    samples: tuple[Sample, ...]
    show_ids: bool = False  # the table lists the token ids, not only their number
    show_split: bool = False  # the table shows where each encoding cuts the text
    focus: str = ""  # the example "Look closer" starts on (a label; the first one if empty)

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(s.text for s in self.samples)


@lru_cache(maxsize=1)
def languages() -> dict:
    """The parsed languages.json: its msgid, provenance and one entry per language."""
    return json.loads(LANGUAGES_FILE.read_text(encoding="utf-8"))


def _language_samples() -> tuple[Sample, ...]:
    out = []
    for entry in languages()["languages"]:
        src = entry["source"]
        where = src["file"] or f'msgid of {src["domain"]}'
        out.append(Sample(f'{entry["language"]} ({entry["code"]})', entry["text"],
                          f'{entry["script"]} · {src["package"]} {src["version"]}: {where}'))
    return tuple(out)


PYTHON_SPACES = """def total(orders):
    result = 0
    for order in orders:
        if order.paid:
            for item in order.items:
                if item.price > 0:
                    result += item.price
    return result
"""
PYTHON_TABS = PYTHON_SPACES.replace("    ", "\t")
JSON_PRETTY = """{
    "order": 1042,
    "paid": true,
    "items": [
        {"name": "tea", "price": 3.5},
        {"name": "cake", "price": 4.25}
    ]
}"""
JSON_MINIFIED = '{"order":1042,"paid":true,"items":[{"name":"tea","price":3.5},{"name":"cake","price":4.25}]}'

GLITCH_TOKENS = (
    (" SolidGoldMagikarp", "Reddit username from r/counting"),
    (" TheNitromeFan", "Reddit username from r/counting"),
    (" RandomRedditorWithNo", "Reddit username fragment from r/counting"),
    (" davidjl", "Reddit username from r/counting; still one token in cl100k_base"),
    (" petertodd", "name seen mostly in one context"),
    ("TPPStreamerBot", "Twitch Plays Pokémon bot"),
    (" externalToEVA", "code / game log fragment"),
    ("ForgeModLoader", "Minecraft mod-loader log text"),
)

YAML_SAME = """order: 1042
paid: true
items:
  - name: tea
    price: 3.5
  - name: cake
    price: 4.25
"""

SPECIAL_SAMPLES = (
    Sample("End of text inside a sentence", "Hello<|endoftext|>world"),
    Sample("Only the marker", "<|endoftext|>"),
)


def build_demos() -> dict[str, Demo]:
    demos = [
        Demo("languages", "Languages",
             "The same sentence — one GTK error message, as translated by GTK's own translators — in "
             f"{len(languages()['languages'])} languages. Byte-level BPE vocabularies are learnt mostly from "
             "English text, so other scripts are cut into more, shorter pieces: the same meaning costs more "
             "tokens. Newer vocabularies (o200k_base has 200,000 tokens) narrow the gap.",
             _language_samples(), focus="Hindi (hi)"),
        Demo("numbers", "Numbers & arithmetic",
             "GPT-2's pre-tokenizer keeps a whole run of digits as one piece and lets BPE cut it wherever "
             "merges happen to exist, so `1234567890` and `1234567891` may be split differently. "
             "cl100k_base and o200k_base first cut digit runs into groups of at most three (`\\p{N}{1,3}`), "
             "so numbers split regularly from the left. A gap between chips below marks a new piece.",
             (Sample("Year", "2026"), Sample("Year after a space", "In 1999"),
              Sample("Price", "$1,234.56"), Sample("Decimal", "3.14159265"),
              Sample("Ten digits", "1234567890"), Sample("Ten digits, last one changed", "1234567891"),
              Sample("Twenty digits", "12345678901234567890"),
              Sample("Addition", "127 + 677 = 804"), Sample("Multiplication", "48293 * 17 = 820981")),
             show_split=True, focus="Ten digits"),
        Demo("code", "Code",
             "GPT-2 has no tokens for runs of spaces: each space of an indentation is a token of its own. "
             "cl100k_base and o200k_base have tokens for long runs of spaces, so indentation is nearly free. "
             "Tabs are cheap everywhere; minified JSON drops the whitespace entirely.",
             (Sample("Python, 4-space indents", PYTHON_SPACES), Sample("Python, tab indents", PYTHON_TABS),
              Sample("JSON, pretty-printed", JSON_PRETTY), Sample("JSON, minified", JSON_MINIFIED),
              Sample("One line, 16 spaces deep", "                return result"))),
        Demo("whitespace", "Whitespace & case",
             "A token includes the space before a word, and case matters: `hello`, ` hello`, `Hello` and "
             "`HELLO` are different tokens with unrelated ids (shown under each chip). Trailing spaces and "
             "blank lines are tokens too.",
             (Sample("lower", "hello"), Sample("leading space", " hello"), Sample("Capital", "Hello"),
              Sample("Capital after space", " Hello"), Sample("UPPER", "HELLO"),
              Sample("trailing spaces", "hello   "), Sample("newline", "hello\n"),
              Sample("three newlines", "hello\n\n\n"), Sample("spaces between words", "hello    world")),
             show_ids=True),
        Demo("contractions", "Contractions",
             "GPT-2's pre-tokenizer has case-sensitive rules for English contractions with the ASCII "
             "apostrophe (`'s 't 're 've 'm 'll 'd`), so `DON'T` falls into `DON` `'` `T`. The typographic "
             "apostrophe `’` (U+2019) is in no rule: GPT-2 cuts it off as a piece of its own. cl100k_base and "
             "o200k_base let one punctuation mark lead a word (the piece `’t`), match contractions in any "
             "case, and o200k_base keeps them on the word (` DON'T` is one piece). A gap between chips marks "
             "a new piece.",
             (Sample("ASCII apostrophe", "don't"), Sample("Typographic apostrophe", "don’t"),
              Sample("I'm", "I'm"), Sample("I’m", "I’m"), Sample("we'll", "we'll"), Sample("we’ll", "we’ll"),
              Sample("Upper case", "DON'T"), Sample("Sentence", "It's what they'd've said, isn't it?")),
             show_split=True, focus="Typographic apostrophe"),
        Demo("emoji", "Emoji",
             "An emoji is one symbol on screen but often several code points: a skin tone is a second code "
             "point, a family joins people with zero-width joiners (U+200D), a flag is two regional "
             "indicator letters. Each code point is 3–4 UTF-8 bytes, and a vocabulary that lacks the "
             "sequence spends up to one token per byte. Chips with ‹hex› hold part of a character.",
             (Sample("Grinning face", "😀"), Sample("Thumbs up", "👍"), Sample("With skin tone", "👍🏽"),
              Sample("Family (ZWJ sequence)", "👨\u200d👩\u200d👧\u200d👦"), Sample("Flag of Japan", "🇯🇵"),
              Sample("Rainbow flag", "🏳️\u200d🌈"), Sample("Red heart", "❤️"),
              Sample("In a sentence", "Great job 👍🏽🎉")),
             focus="Family (ZWJ sequence)"),
        Demo("glitch", "Glitch tokens",
             "Some GPT-2 tokens are strings that were frequent in the text the tokenizer was built from "
             "(Reddit usernames from r/counting, game logs) but rare in the model's training text, so the "
             "model barely learned them and behaved strangely when it saw them ('SolidGoldMagikarp', "
             "Rumbelow & Watkins 2023). In gpt2 each is one token; newer vocabularies mostly split them.",
             tuple(Sample(text.strip(), text, note) for text, note in GLITCH_TOKENS),
             show_ids=True, show_split=True),
        Demo("special", "Special tokens",
             "`<|endoftext|>` is a control token, not text. tiktoken refuses text that contains it unless you "
             "say how to treat it: `allowed_special` makes it one special token, `disallowed_special=()` "
             "encodes it as ordinary text (several tokens). Letting user text become a control token is how "
             "prompt injection through special tokens works.",
             SPECIAL_SAMPLES, show_ids=True),
        # The classic "why does the model do that" demos; their extra panels are in classics.py.
        Demo("letters", "Counting letters",
             "“How many r's are in strawberry?” The model never sees letters: it sees ids. In a sentence "
             "` strawberry` is one token, so its three r's are hidden inside one id; alone, `strawberry` is cut "
             "into pieces that each hide some of them. Counting letters asks about what is inside the ids.",
             (Sample("strawberry", "strawberry"), Sample("In a sentence", "How many r's are in strawberry?"),
              Sample("Capitalised", "Strawberry"), Sample("Upper case", " STRAWBERRY"),
              Sample("Mississippi (count the s's)", "Mississippi")),
             show_split=True, focus="In a sentence"),
        Demo("reverse", "Reversing a string",
             "Reversing a text's letters gives a text cut into other tokens (usually more, and rarer); "
             "reversing its token ids gives its pieces in the other order, not its letters. Either way the "
             "model cannot just read its input backwards.",
             (Sample("Word", "tokenization"), Sample("Word reversed", "noitazinekot"),
              Sample("Sentence", "Hello world"), Sample("Sentence reversed", "dlrow olleH")),
             show_split=True, show_ids=True, focus="Word reversed"),
        Demo("trailing", "Trailing space",
             "In training text a space belongs to the word after it (` time` is one token). A prompt that ends "
             "with a space ends on a lone space token, which the model rarely saw before a word, so the "
             "completion gets worse. tiktoken's `encode_with_unstable` holds back such an end and lists every "
             "token sequence that could continue it.",
             (Sample("Prompt", "Once upon a"), Sample("Prompt + space", "Once upon a "),
              Sample("Question", "The capital of France is"), Sample("Question + space", "The capital of France is ")),
             show_ids=True, focus="Prompt + space"),
        Demo("yaml", "YAML vs JSON",
             "The same data as pretty JSON, minified JSON and YAML. YAML drops the quotes and brackets, JSON "
             "minified drops the whitespace; which is cheaper depends on the vocabulary's tokens for runs of "
             "spaces and punctuation.",
             (Sample("JSON, pretty-printed", JSON_PRETTY), Sample("JSON, minified", JSON_MINIFIED),
              Sample("YAML", YAML_SAME))),
        Demo("utf", "UTF-8, 16, 32",
             "One text, one number of characters (code points, what this app counts everywhere), but three "
             "byte counts: UTF-8 uses 1–4 bytes per character, UTF-16 2 or 4 (JavaScript's `length` counts its "
             "2-byte units, so an emoji is 2), UTF-32 always 4. Byte-level BPE works on the UTF-8 bytes.",
             (Sample("English", "Hello, world"), Sample("French", "naïve café"), Sample("Russian", "Привет, мир"),
              Sample("Chinese", "你好，世界"), Sample("Emoji", "👍🏽🎉"))),
    ]
    return {d.key: d for d in demos}


DEMOS = build_demos()
