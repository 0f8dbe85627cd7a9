"""The glossary: the playground's words in plain language, for the Glossary page and the links every `?`
help gets (playground/components/glossary_links.js finds these terms in a help text and links them).

Pure data and one HTML builder; every value escaped.
"""
from __future__ import annotations

from dataclasses import dataclass

from playground.render.html import attrs, esc, SPACE


@dataclass(frozen=True)
class Term:
    term: str
    plain: str  # what it means, in plain words
    example: str = ""
    also: tuple[str, ...] = ()  # other spellings the help texts use (matched as whole words, any case)

    @property
    def anchor(self) -> str:
        return "g-" + self.term.lower().replace(" ", "-").replace("/", "-")


TERMS: tuple[Term, ...] = (
    Term("token", "A piece of text the model reads as one unit: a whole word, part of a word, a space, or even "
                  "part of one character. A model never sees letters, only tokens.",
         f"{SPACE}strawberry is one token in GPT-2; strawberry without the space is three: st|raw|berry.",
         ("tokens",)),
    Term("id", "The number of a token. The model is given the list of ids, never the text.",
         "In cl100k_base, “hello” is id 15339.", ("ids", "token id")),
    Term("vocabulary", "Every token a tokenizer knows, each with its id. Bigger vocabularies need fewer tokens "
                       "for the same text.", "gpt2 has 50,257 tokens, o200k_base about 200,000.",
         ("vocab", "vocabularies")),
    Term("byte", "The smallest unit computers store text in. Byte-level BPE starts from the 256 possible bytes, "
                 "so any text can be written with its tokens.", "“é” is 2 bytes in UTF-8, “日” 3, “👍” 4.",
         ("bytes",)),
    Term("character", "One Unicode code point. This app counts characters this way everywhere; an emoji with a "
                      "skin tone is 2 characters, and JavaScript would say 4.", "“naïve” is 5 characters, 6 bytes.",
         ("characters", "code point", "code points")),
    Term("UTF-8", "The usual way to turn characters into bytes: 1 byte for English letters, 2 to 4 for others. "
                  "Byte-level BPE works on these bytes.", "", ("UTF-16", "UTF-32")),
    Term("pre-tokenizer", "The first cut: a rule (a regular expression) splits the text into pieces, such as "
                          "words with their leading space, numbers and punctuation. Merges never cross a piece.",
         f"“Hello world!” → Hello | {SPACE}world | !", ("pre-tokenization", "split pattern", "pattern")),
    Term("piece", "One part of the text after the pre-tokenizer's cut. Each piece is turned into tokens on its own.",
         f"{SPACE}world is one piece of “Hello world!”.", ("pieces",)),
    Term("BPE", "Byte pair encoding. Training: count every pair of neighbouring tokens in a text, make the most "
                "frequent pair a new token, repeat. Encoding: apply those merges in the same order.",
         "aaabdaaabac → aa is learned first, then aaa, then aaab.", ("byte pair encoding",)),
    Term("merge", "One learned rule “these two tokens become one”. A vocabulary of 50,000 tokens has about "
                  "50,000 merges.", "s + t → st", ("merges", "merged")),
    Term("rank", "The position of a merge in the learned order: a lower rank was learned earlier, from a more "
                 "frequent pair, and is applied first. In byte-level BPE the rank is also the new token's id.",
         "", ("ranks",)),
    Term("tie", "Two pairs with the same count. minbpe takes the pair it saw first in the text.", "", ("ties",)),
    Term("merge tree", "How a token is built from bytes, merge by merge, drawn as a tree.", ""),
    Term("special token", "A control token such as <|endoftext|>: it marks the end of a document or a chat turn. "
                          "It is never made from ordinary text unless you allow it.", "",
         ("special tokens", "special")),
    Term("normalizer", "A step before splitting that rewrites the text: Unicode normal forms (NFC, NFKC), "
                       "lower case, removed accents, or ▁ for spaces (SentencePiece).", "", ("normalization", "NFC", "NFKC")),
    Term("byte fallback", "When a SentencePiece vocabulary has no piece for a character, it writes the character's "
                          "UTF-8 bytes as byte tokens such as <0xE6>, so nothing is lost.", ""),
    Term("tokens per byte", "How many tokens a text needs per byte of it. Training lowers it; lower means the "
                            "text is cheaper for the model.", "", ("bytes per token", "compression")),
)


NAMES = tuple(t.term for t in TERMS)  # what a link may ask the Glossary page to show (state.GLOSSARY_TERM)


def link_terms() -> list[dict[str, object]]:
    """For the help links: each term's words (the term and its other spellings) and its anchor."""
    return [{"words": [t.term, *t.also], "anchor": t.anchor, "term": t.term} for t in TERMS]


def glossary_html(hit: str | None = None) -> str:
    """The Glossary page: one entry per term, with an id to link to; the entry `hit` (a term) marked."""
    items = []
    for t in TERMS:
        example = f'<div class="eg">{esc(t.example)}</div>' if t.example else ""
        dt = {"id": t.anchor, "class": "hit" if t.term == hit else None}
        items.append(f"<dt {attrs(dt)}>{esc(t.term)}</dt><dd>{esc(t.plain)}{example}</dd>")
    return f'<dl class="glossary">{"".join(items)}</dl>'
