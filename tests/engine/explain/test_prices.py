"""engine/data/prices.json against the pinned genai-prices release it was extracted from, and the price
lookups, costs and the user's overrides built on it."""
from __future__ import annotations

import importlib
import re
import sys
import types
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from engine.chat import FORMAT_OF_ENCODING, FORMAT_OF_ROW
from engine.explain import prices
from tests import reference_packages as ref


@pytest.fixture(scope="module")
def genai_prices(tmp_path_factory):
    """genai_prices.data from the pinned wheel, by the package's own types (its __init__, which starts a price
    updater needing httpx2, is not run: its types need only pydantic)."""
    root = tmp_path_factory.mktemp("genai_prices")
    for path in ref.members("genai-prices", "genai_prices/*.py"):
        out = root / path
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(ref.member("genai-prices", path))
    saved = {k: v for k, v in sys.modules.items() if k == "genai_prices" or k.startswith("genai_prices.")}
    package = types.ModuleType("genai_prices")
    package.__path__ = [str(root / "genai_prices")]
    sys.modules["genai_prices"] = package
    try:
        data = importlib.import_module("genai_prices.data")
        yield data, (root / "genai_prices" / "data.py").read_text(encoding="utf-8")
    finally:
        for k in [k for k in sys.modules if k == "genai_prices" or k.startswith("genai_prices.")]:
            del sys.modules[k]
        sys.modules.update(saved)


def _theirs(value):
    if value is None:
        return None
    if isinstance(value, Decimal):
        return value
    return {"base": value.base, "tiers": [[t.start, t.price] for t in value.tiers]}


def _ours(value):
    if value is None:
        return None
    if isinstance(value, dict):
        return {"base": Decimal(str(value["base"])), "tiers": [[s, Decimal(str(p))] for s, p in value["tiers"]]}
    return Decimal(str(value))


def test_every_price_and_window_equals_the_pinned_package(genai_prices):
    """Every model of the file (all of them: a sample would be most of it): the package's own
    ModelInfo.get_prices on the "as of" day, and its context_window."""
    data, _source = genai_prices
    table = prices.load_table()
    assert (table.source, table.version) == ("genai-prices", "0.2.3")
    day = date.fromisoformat(table.as_of)
    when = datetime(day.year, day.month, day.day, 12, tzinfo=UTC)
    providers = {p.id: p for p in data.providers}
    raw = __import__("json").loads(prices.PRICES_FILE.read_text(encoding="utf-8"))["models"]
    for name, p in table.prices.items():
        provider_id, model_id = raw[name]["source_id"].split("/", 1)
        model = next(m for m in providers[provider_id].models if m.id == model_id)
        theirs = model.get_prices(when)
        assert p.window == model.context_window, name
        assert p.provider == providers[provider_id].name, name
        for ours, attr in (("input", "input_mtok"), ("cached_input", "cache_read_mtok"), ("output", "output_mtok"),
                           ("reasoning", "output_reasoning_mtok")):
            assert _ours(getattr(p, ours)) == _theirs(getattr(theirs, attr, None)), (name, ours)


def test_the_as_of_date_is_the_newest_day_the_data_says_it_was_checked(genai_prices):
    _data, source = genai_prices
    checked = re.findall(r"\b(?:checked|verified|updated|as of)(?: on)? (20\d\d-\d\d-\d\d)\b", source)
    assert prices.load_table().as_of == max(checked)
    assert f"checked on {prices.load_table().as_of}" in source


def test_every_chat_row_but_none_is_priced_and_every_priced_row_has_a_chat_format():
    """Every Chat row (an encoding, or a Gemini row counted with Gemma's vocabulary) has a listed model with
    its price and window, but Claude 1-2 (no longer sold); so has every family of the Claude panel (ctok's
    generations); nothing priced lacks a chat format or that panel."""
    from engine.families import claude

    priced = {p.encoding for p in prices.load_table().prices.values()}
    assert priced <= set(FORMAT_OF_ROW) | set(claude.list_claude_names())
    assert set(claude.list_claude_names()) <= priced
    assert set(FORMAT_OF_ROW) - {"gpt2"} <= priced | {"claude-legacy"}
    assert prices.price_for_encoding("gemini-2.5").window == 1_048_576
    assert prices.price_for_encoding("o200k_base").model == "gpt-4o"
    assert prices.price_for_encoding("bert-base-uncased") is None


def test_source_line_says_source_version_and_date():
    line = prices.source_line()
    assert "genai-prices 0.2.3" in line and "as of 2026-11-03" in line and "yours" not in line
    assert "yours" in prices.source_line(True)


def test_cost_flat_cached_reasoning_and_tiers():
    p = prices.price_for("gpt-4o")
    assert prices.cost(p, input_tokens=1_000_000) == pytest.approx(2.5)
    assert prices.cost(p, input_tokens=1_000_000, cached_tokens=400_000) == pytest.approx(0.6 * 2.5 + 0.4 * 1.25)
    assert prices.cost(p, input_tokens=0, output_tokens=1_000, reasoning_tokens=1_000) == pytest.approx(0.02)
    m3 = prices.price_for("minimax-m3")
    assert isinstance(m3.input, dict) and m3.input["tiers"]
    start, high = m3.input["tiers"][0]
    # the whole prompt at the tier it reaches (genai-prices' cliff rule), not only the tokens past the line
    assert prices.cost(m3, input_tokens=start) == pytest.approx(start * m3.input["base"] / 1e6)
    assert prices.cost(m3, input_tokens=start + 1) == pytest.approx((start + 1) * high / 1e6)


def test_a_missing_price_is_none_not_zero():
    p = prices.with_overrides(prices.price_for("gpt-4"), {})
    assert p.cached_input is None
    assert prices.cost(p, input_tokens=100, cached_tokens=50) == pytest.approx(100 * 30 / 1e6)  # cached as input
    gone = prices.Price("x", "x", "o200k_base", "x", None, input=1.0)
    assert prices.cost(gone, input_tokens=10, output_tokens=5) is None


def test_overrides_parse_format_round_trip_and_apply():
    text = "gpt-4o=2/1/8; GLM-5.2=1.2/-/4; minimax-m3=0.5"
    parsed = prices.parse_overrides(text)
    assert parsed == {"gpt-4o": {"input": 2.0, "cached_input": 1.0, "output": 8.0},
                      "GLM-5.2": {"input": 1.2, "output": 4.0}, "minimax-m3": {"input": 0.5}}
    assert prices.parse_overrides(prices.format_overrides(parsed)) == parsed
    assert prices.format_overrides(parsed) == "gpt-4o=2/1/8; GLM-5.2=1.2/-/4; minimax-m3=0.5"
    p = prices.price_for("gpt-4o", parsed)
    assert (p.input, p.cached_input, p.output, p.overridden) == (2.0, 1.0, 8.0, ("input", "cached_input", "output"))
    assert prices.price_for("minimax-m3", parsed).rate("input", 10**7) == 0.5  # a flat price replaces the tiers
    assert prices.price_for("gpt-4o").input == 2.5  # the shipped table is never changed
    assert prices.parse_overrides("") == {} and prices.parse_overrides(" ; ") == {}


@pytest.mark.parametrize(("text", "says"), [
    ("gpt-4o", "model=input"), ("nope=1", "not a priced model"), ("gpt-4o=x", "not a number"),
    ("gpt-4o=-1", "from 0"), ("gpt-4o=nan", "from 0"), ("gpt-4o=1/2/3/4/5", "at most 4"),
    ("gpt-4o=inf", "from 0"),
])
def test_bad_overrides_say_what_is_wrong(text, says):
    with pytest.raises(prices.PriceOverrideError, match=says):
        prices.parse_overrides(text)
