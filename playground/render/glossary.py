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
    Term("fertility", "Tokens per word: how many tokens a tokenizer spends on an average word of a language. "
                      "1 means every word is one token. For scripts written without spaces between words (Chinese, "
                      "Japanese, Thai…) the Arena counts tokens per character instead, and says so.",
         "o200k_base spends about 2 tokens per word on the Arena's sentences; gpt2 about 7.6.",
         ("tokens per word", "tokens per character")),
    Term("relative cost", "A language's tokens divided by English's tokens for the same content, with the same "
                          "tokenizer: what a speaker of that language pays more (× English). Also called the token tax.",
         "3.0× English: the same message costs three times the tokens.", ("× English", "token tax")),
    Term("parity", "A tokenizer is at parity when every language costs about the same number of tokens for the same "
                   "content. Parity-aware BPE trains toward it.", "", ("parity-aware", "parity-aware BPE")),
    Term("Gini", "The Gini coefficient: one number for how unequal a set of values is. Over the languages' token "
                 "counts it is 0 when every language costs the same, and nears 1 when one language holds all the tokens.",
         "Token counts 1, 2, 3, 4 have a Gini of 0.25.", ("Gini coefficient",)),
    Term("non-canonical tokenization", "Any other way to write a text with a tokenizer's tokens than the one its "
                                       "encoder gives. It decodes to the same text, but the model rarely saw it in training.",
         f"“{SPACE}hello” as {SPACE}h|ello instead of one token.", ("non-canonical",)),
    Term("BPE-dropout", "While encoding, each merge is skipped at random with probability p, so one text gets many "
                        "different cuts. Used in training as a regularizer; p = 0 is the usual encoding.", "",
         ("dropout",)),
    Term("scaffold token", "A token that exists in the vocabulary only as a step toward longer tokens: the merges "
                           "that build on it almost always fire, so it rarely appears in encoded text on its own.", ""),
    Term("superword", "A token that spans more than one word, across the space between them, such as “ by the way”. "
                      "Ordinary BPE never makes one, because its pre-tokenizer cuts at spaces first.", "",
         ("superwords", "superword token")),
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
