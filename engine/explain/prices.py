"""What a count costs and how much of a context window it fills: prices and windows that say how old they are.

    >>> p = price_for("gpt-4o")
    >>> p.input, p.output, p.window, load_table().as_of
    (2.5, 10.0, 128000, '2026-11-03')
    >>> round(cost(p, input_tokens=1_000, output_tokens=500), 6)
    0.0075

The numbers are not ours: ``engine/data/prices.json`` is extracted by ``scripts/refresh_prices.py`` from
a pinned release of genai-prices (Pydantic's maintained price list, MIT), with that release's version and
the newest day its data says a price was checked (the "as of" date).  Every page that shows a cost shows
`source_line()`, because a price without its date reads as today's and prices change monthly.

Each of our built-in chat encodings maps to the models it counts (`models_for_encoding`); the first is
the one a page prices a row with.  Open-weight models have no maker's price: the entry is a host's, and
its label names the host.

The traps:

- **Tiers.**  Some prices change past a prompt size (MiniMax-M3 over 512k tokens, Qwen3.6 Plus over 256k).  genai-prices bills
  the *whole* prompt at the tier it reaches ("cliff" pricing, as Anthropic, Google and OpenAI do), not
  the tokens above the line: `rate` does the same, so a 300k prompt is all at the higher rate.
- **Reasoning.**  Most models bill reasoning (thinking) tokens as output; only where the source lists a
  separate reasoning price is it used (`Price.reasoning_rate` falls back to the output price).
- **Missing values.**  A price or window the source does not give stays None and is said as such,
  never guessed; a user's override (`with_overrides`) fills or replaces any of them.
"""
from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path

PRICES_FILE = Path(__file__).resolve().parent.parent / "data" / "prices.json"
PRICE_FIELDS = ("input", "cached_input", "output", "reasoning")  # USD per million tokens
FIELD_LABELS = {"input": "input", "cached_input": "cached input", "output": "output", "reasoning": "reasoning"}
MAX_PRICE = 100_000.0  # USD per million tokens: far above any listed price, below anything absurd
MAX_OVERRIDES = 40  # models one override text may set (more than the file holds)


class PriceOverrideError(ValueError):
    """A price override the user wrote (or a link carried) that cannot be read; the message says the fix."""


# A price: a number, or {"base": number, "tiers": [[from_tokens, number], ...]} (whole prompt at the tier reached)
Rate = float | dict | None


@dataclass(frozen=True)
class Price:
    """One model's prices (USD per million tokens) and context window, and where they came from."""

    model: str  # our name for it ("gpt-4o"), the key of the prices file and of an override
    label: str  # for people: "GPT-4o (OpenAI)", "Llama 3.3 70B (on Groq via Hugging Face)"
    encoding: str  # the built-in encoding that counts its tokens
    provider: str
    window: int | None  # context window in tokens (input and output together), None when the source has none
    input: Rate = None
    cached_input: Rate = None
    output: Rate = None
    reasoning: Rate = None
    overridden: tuple[str, ...] = ()  # the fields the user set

    def rate(self, field: str, prompt_tokens: int = 0) -> float | None:
        """The price of `field` per million tokens for a prompt of `prompt_tokens` (the tier it reaches)."""
        return rate(getattr(self, field), prompt_tokens)

    def reasoning_rate(self, prompt_tokens: int = 0) -> float | None:
        """Reasoning tokens' price: the listed one, else the output price (how most makers bill them)."""
        own = self.rate("reasoning", prompt_tokens)
        return own if own is not None else self.rate("output", prompt_tokens)


@dataclass(frozen=True)
class PriceTable:
    source: str  # "genai-prices"
    version: str
    as_of: str  # ISO date: the newest day the source's data says a price was checked
    prices: dict[str, Price]


def rate(value: Rate, prompt_tokens: int = 0) -> float | None:
    """A price as a number for a prompt of `prompt_tokens`: the last tier whose start it exceeds, else the base.

    >>> rate({"base": 0.3, "tiers": [[256000, 0.6]]}, 300_000)
    0.6
    """
    if value is None or isinstance(value, (int, float)):
        return value
    chosen = value["base"]
    for start, price in value["tiers"]:
        if prompt_tokens > start:
            chosen = price
    return chosen


@functools.lru_cache(maxsize=1)
def load_table() -> PriceTable:
    """The shipped prices file, read once."""
    doc = json.loads(PRICES_FILE.read_text(encoding="utf-8"))
    prices = {name: Price(model=name, label=row["label"], encoding=row["encoding"], provider=row["provider"],
                          window=row["window"], **{f: row[f] for f in PRICE_FIELDS})
              for name, row in doc["models"].items()}
    return PriceTable(source=doc["source"], version=doc["version"], as_of=doc["as_of"], prices=prices)


def source_line(overridden: bool = False) -> str:
    """What every cost on a page says about its numbers: source, version and date (and the user's own)."""
    t = load_table()
    own = "; prices marked * are yours" if overridden else ""
    return f"Prices and windows from {t.source} {t.version}, as of {t.as_of} (USD per million tokens){own}."


def model_names() -> list[str]:
    return list(load_table().prices)


def price_for(model: str, overrides: dict[str, dict[str, float]] | None = None) -> Price | None:
    """The price of `model` (our name), with the user's `overrides` applied; None for a model not listed."""
    base = load_table().prices.get(model)
    if base is None:
        return None
    return with_overrides(base, (overrides or {}).get(model, {}))


def models_for_encoding(encoding: str) -> list[str]:
    """The priced models an encoding counts, the page's default first."""
    return [name for name, p in load_table().prices.items() if p.encoding == encoding]


def price_for_encoding(encoding: str, overrides: dict[str, dict[str, float]] | None = None) -> Price | None:
    """The default priced model of `encoding` (None when no model it counts is priced)."""
    names = models_for_encoding(encoding)
    return price_for(names[0], overrides) if names else None


def with_overrides(price: Price, fields: dict[str, float]) -> Price:
    """`price` with the user's numbers in place of the source's (a flat price replaces a tiered one)."""
    if not fields:
        return price
    return replace(price, **fields, overridden=tuple(f for f in PRICE_FIELDS if f in fields))


def cost(price: Price, *, input_tokens: int, output_tokens: int = 0, cached_tokens: int = 0,
         reasoning_tokens: int = 0) -> float | None:
    """USD for one request: `input_tokens` (of which `cached_tokens` hit the cache), `output_tokens` of
    visible output and `reasoning_tokens` of thinking.  None when a price it needs is missing; cached tokens
    without a cached price are billed as input."""
    fresh = input_tokens - min(cached_tokens, input_tokens)
    parts = [(fresh, price.rate("input", input_tokens)), (output_tokens, price.rate("output", input_tokens)),
             (reasoning_tokens, price.reasoning_rate(input_tokens))]
    cached = input_tokens - fresh
    cached_rate = price.rate("cached_input", input_tokens)
    parts.append((cached, cached_rate if cached_rate is not None else price.rate("input", input_tokens)))
    if any(tokens and per is None for tokens, per in parts):
        return None
    return sum(tokens * per / 1_000_000 for tokens, per in parts if tokens)


# ---------------------------------------------------------------- the user's prices, as text (session and link)
_ENTRY = re.compile(r"^\s*([^=;\s]+)\s*=\s*([^;]*?)\s*$")


def parse_overrides(text: str) -> dict[str, dict[str, float]]:
    """``"gpt-4o=2/1/8; GLM-5.2=1.2/-/4"`` -> {model: {field: price}}: input/cached input/output/reasoning in
    USD per million tokens, ``-`` or nothing for "the source's".  PriceOverrideError names the bad part."""
    out: dict[str, dict[str, float]] = {}
    known = load_table().prices
    for part in filter(str.strip, text.split(";")):
        m = _ENTRY.match(part)
        if not m:
            raise PriceOverrideError(f"{part.strip()[:60]!r} is not model=input/cached/output/reasoning: "
                                     "write e.g. gpt-4o=2.5/1.25/10")
        model, numbers = m.groups()
        if model not in known:
            raise PriceOverrideError(f"{model[:60]!r} is not a priced model: use one of {', '.join(known)}")
        values = [v.strip() for v in numbers.split("/")]
        if len(values) > len(PRICE_FIELDS):
            raise PriceOverrideError(f"{model}: at most {len(PRICE_FIELDS)} prices (input/cached/output/reasoning)")
        fields: dict[str, float] = {}
        for field, v in zip(PRICE_FIELDS, values):
            if v in ("", "-"):
                continue
            try:
                number = float(v)
            except ValueError:
                raise PriceOverrideError(f"{model}: {FIELD_LABELS[field]} price {v[:20]!r} is not a number") from None
            if not (math.isfinite(number) and 0 <= number <= MAX_PRICE):
                raise PriceOverrideError(f"{model}: {FIELD_LABELS[field]} price must be from 0 to {MAX_PRICE:,.0f} "
                                         "USD per million tokens")
            fields[field] = number
        if fields:
            out[model] = fields
    if len(out) > MAX_OVERRIDES:
        raise PriceOverrideError(f"{len(out)} models; at most {MAX_OVERRIDES}")
    return out


def format_overrides(overrides: dict[str, dict[str, float]]) -> str:
    """`parse_overrides` undone: the canonical text a link carries."""
    def number(v: float | None) -> str:
        return "-" if v is None else f"{v:g}"
    parts = []
    for model, fields in overrides.items():
        values = [number(fields.get(f)) for f in PRICE_FIELDS]
        while values and values[-1] == "-":
            values.pop()
        parts.append(f"{model}={'/'.join(values)}")
    return "; ".join(parts)
