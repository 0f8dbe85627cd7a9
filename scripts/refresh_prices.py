"""Refresh engine/data/prices.json from a pinned genai-prices release (Pydantic's maintained price list).

    python scripts/refresh_prices.py                 # fetches the pinned wheel with pip, checks its sha256
    python scripts/refresh_prices.py --wheel PATH    # or reads a wheel already downloaded

For each model the playground prices (`MODELS`: our name, the genai-prices provider and model id, the
encoding that counts it) it writes input, cached-input, output and reasoning prices in USD per million
tokens (tiered prices as their base and tiers) and the context window, exactly as the package's own
`ModelInfo.get_prices` returns them on the "as of" date.  That date is the newest day the package's data
says a price was checked ("checked on 2026-11-03", "verified on ...", "as of ..."): the data is no newer
than that, and a price that starts later (a scheduled change) is not yet in force on it.

The package is imported without running its ``__init__`` (that starts an updater needing httpx2): its
``types`` need only pydantic.  To move to a new release, change PIN (version and the wheel's sha256), run
this, look at the diff, and update the README's Prices section.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import re
import subprocess
import sys
import tempfile
import types
import zipfile
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "engine" / "data" / "prices.json"
LICENSE_OUT = ROOT / "engine" / "data" / "licenses" / "genai-prices-0.2.3-LICENSE.txt"

PIN = {"name": "genai-prices", "version": "0.2.3", "filename": "genai_prices-0.2.3-py3-none-any.whl",
       "sha256": "56976ce2b04ec206117f7d0e53f4849211a6724ab3a12119afec304eba63ee25"}

# our model name -> (genai-prices provider id, its model id, the encoding that counts it, a label).  Where the
# maker sells no API (open weights), a host whose entry gives a context window is taken; the label says which.
MODELS: dict[str, tuple[str, str, str, str]] = {
    "gpt-4": ("openai", "gpt-4", "cl100k_base", "GPT-4 (OpenAI)"),
    "gpt-3.5-turbo": ("openai", "gpt-3.5-turbo", "cl100k_base", "GPT-3.5 Turbo (OpenAI)"),
    "gpt-4o": ("openai", "gpt-4o", "o200k_base", "GPT-4o (OpenAI)"),
    "gpt-4.1": ("openai", "gpt-4.1", "o200k_base", "GPT-4.1 (OpenAI)"),
    "gpt-5": ("openai", "gpt-5", "o200k_base", "GPT-5 (OpenAI)"),
    "o3": ("openai", "o3", "o200k_base", "o3 (OpenAI)"),
    "gpt-oss-120b": ("groq", "openai/gpt-oss-120b", "o200k_harmony", "gpt-oss-120b (on Groq)"),
    "Llama-3.3-70B-Instruct": ("huggingface_groq", "meta-llama/Llama-3.3-70B-Instruct", "llama3",
                               "Llama 3.3 70B (on Groq via Hugging Face)"),
    "Llama-4-Maverick-17B-128E-Instruct": ("groq", "meta-llama/llama-4-maverick-17b-128e-instruct", "llama4",
                                           "Llama 4 Maverick (on Groq)"),
    "Qwen3-32B": ("groq", "qwen/qwen3-32b", "qwen2.5", "Qwen3 32B (on Groq)"),
    "qwen3.6-plus": ("openrouter", "qwen/qwen3.6-plus", "qwen3.6", "Qwen3.6 Plus (on OpenRouter)"),
    "Mistral-7B-Instruct-v0.2": ("aws", "mistral.mistral-7b-instruct-v0:2", "mistral-v1",
                                 "Mistral 7B Instruct v0.2 (on AWS Bedrock)"),
    "Mistral-7B-Instruct-v0.3": ("ovhcloud", "Mistral-7B-Instruct-v0.3", "mistral-v3",
                                 "Mistral 7B Instruct v0.3 (on OVHcloud)"),
    "Mistral-Nemo-Instruct-2407": ("ovhcloud", "Mistral-Nemo-Instruct-2407", "mistral-tekken",
                                   "Mistral NeMo (on OVHcloud)"),
    "deepseek-v4-pro": ("deepseek", "deepseek-v4-pro", "deepseek-v4", "DeepSeek V4 Pro (DeepSeek)"),
    "deepseek-v3.2": ("deepseek", "deepseek-v3.2", "deepseek-v3", "DeepSeek V3.2 (DeepSeek)"),
    "GLM-5.2": ("zai", "GLM-5.2", "glm5", "GLM-5.2 (Z.ai)"),
    "minimax-m3": ("minimax", "minimax-m3", "minimax-m3", "MiniMax-M3 (MiniMax)"),
    "gemma-3-27b-it": ("aws", "google.gemma-3-27b-it", "gemma3", "Gemma 3 27B (on AWS Bedrock)"),
    "gemma-4-31b-it": ("openrouter", "google/gemma-4-31b-it", "gemma4", "Gemma 4 31B (on OpenRouter)"),
    # Gemini: the rows counted as google-genai's LocalTokenizer counts (Chat's gemini-2.5 and gemini-3.1 rows)
    "gemini-2.5-flash": ("google", "gemini-2.5-flash", "gemini-2.5", "Gemini 2.5 Flash (Google)"),
    "gemini-2.5-pro": ("google", "gemini-2.5-pro", "gemini-2.5", "Gemini 2.5 Pro (Google)"),
    "gemini-3.1-pro-preview": ("google", "gemini-3.1-pro-preview", "gemini-3.1", "Gemini 3.1 Pro preview (Google)"),
    "gemini-3.5-flash": ("google", "gemini-3.5-flash", "gemini-3.1", "Gemini 3.5 Flash (Google)"),
    # Claude: the families Chat's reconstructed panel counts (ctok 1.3.0's generations, engine.families.claude),
    # each with the models its SPECS name (claude-legacy, Claude 1-2, is retired: genai-prices still lists
    # claude-2, but no one can buy it now)
    "claude-sonnet-4-5": ("anthropic", "claude-sonnet-4-5", "claude-3", "Claude Sonnet 4.5 (Anthropic)"),
    "claude-haiku-4-5": ("anthropic", "claude-haiku-4-5", "claude-3", "Claude Haiku 4.5 (Anthropic)"),
    "claude-opus-4-6": ("anthropic", "claude-opus-4-6", "claude-3", "Claude Opus 4.6 (Anthropic)"),
    "claude-opus-4-7": ("anthropic", "claude-opus-4-7", "claude-4.7", "Claude Opus 4.7 (Anthropic)"),
    "claude-opus-4-8": ("anthropic", "claude-opus-4-8", "claude-4.8", "Claude Opus 4.8 (Anthropic)"),
    "claude-sonnet-5": ("anthropic", "claude-sonnet-5", "claude-4.8", "Claude Sonnet 5 (Anthropic)"),
    "claude-fable-5": ("anthropic", "claude-fable-5", "claude-4.8", "Claude Fable 5 (Anthropic)"),
}
# the price fields we keep: ours -> genai-prices' ModelPrice attribute (USD per million tokens)
FIELDS = {"input": "input_mtok", "cached_input": "cache_read_mtok", "output": "output_mtok",
          "reasoning": "output_reasoning_mtok"}
CHECKED = re.compile(r"\b(?:checked|verified|updated|as of)(?: on)? (20\d\d-\d\d-\d\d)\b")


def fetch_wheel(dest: Path) -> Path:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "-d", str(dest),
           f"{PIN['name']}=={PIN['version']}"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return dest / PIN["filename"]


def load_package(wheel: Path, into: Path) -> types.ModuleType:
    """genai_prices.data from `wheel`, its sha256 checked, without the package's __init__."""
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != PIN["sha256"]:
        raise SystemExit(f"{wheel} has sha256 {digest}, not the pinned {PIN['sha256']}")
    with zipfile.ZipFile(wheel) as z:
        z.extractall(into)
    package = types.ModuleType("genai_prices")
    package.__path__ = [str(into / "genai_prices")]
    sys.modules["genai_prices"] = package
    return importlib.import_module("genai_prices.data")


def as_of(data_source: str) -> date:
    """The newest day the package's data says a price was checked."""
    return max(date.fromisoformat(d) for d in CHECKED.findall(data_source))


def _number(value: Decimal) -> float:
    return float(value)


def _price(value: object) -> dict | float | None:
    if value is None:
        return None
    if isinstance(value, Decimal):
        return _number(value)
    # TieredPrices: the whole prompt is billed at the tier it reaches (genai-prices' "cliff" rule)
    return {"base": _number(value.base), "tiers": [[t.start, _number(t.price)] for t in value.tiers]}


def extract(data: types.ModuleType, day: date) -> dict[str, dict]:
    providers = {p.id: p for p in data.providers}
    when = datetime(day.year, day.month, day.day, 12, tzinfo=UTC)
    out = {}
    for name, (provider_id, model_id, encoding, label) in MODELS.items():
        provider = providers[provider_id]
        model = next(m for m in provider.models if m.id == model_id)
        prices = model.get_prices(when)
        row = {"label": label, "encoding": encoding, "provider": provider.name, "source_id": f"{provider_id}/{model_id}",
               "window": model.context_window}
        row.update({ours: _price(getattr(prices, theirs, None)) for ours, theirs in FIELDS.items()})
        out[name] = row
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, help="a downloaded genai-prices wheel (else pip fetches the pinned one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel or fetch_wheel(Path(tmp))
        data = load_package(wheel, Path(tmp) / "pkg")
        source = (Path(tmp) / "pkg" / "genai_prices" / "data.py").read_text(encoding="utf-8")
        day = as_of(source)
        licence = (Path(tmp) / "pkg" / "genai_prices-0.2.3.dist-info" / "licenses" / "LICENSE").read_text()
        doc = {"source": PIN["name"], "version": PIN["version"], "wheel_sha256": PIN["sha256"],
               "as_of": day.isoformat(), "licence": "MIT (licenses/genai-prices-0.2.3-LICENSE.txt)",
               "unit": "USD per million tokens", "models": extract(data, day)}
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    LICENSE_OUT.write_text(licence, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(doc['models'])} models, as of {doc['as_of']}")


if __name__ == "__main__":
    main()
