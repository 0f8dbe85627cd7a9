"""Generate engine/data/reachability.json (unreachable, partial-UTF-8 and never-produced tokens per built-in)
and engine/data/scaffold_builtin.json (each built-in's scaffold numbers over the built-in corpus).

Sweeping a vocabulary (every token decoded and encoded again, `engine.explain.unreachable.reachability`)
takes seconds per 100,000 tokens in pure Python, too long for a page, so the built-ins' results are
stored here, each with the digest of the vocabulary they came from (`vocab_digest`): a changed vocabulary
makes `stored_reachability` refuse its entry, and tests/engine/explain/test_unreachable.py recounts a
sample of every entry.  Run after changing a built-in or the engine's encoding:

    .venv/bin/python scripts/gen_reachability.py [name ...]
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from engine.explain import scaffold, unreachable  # noqa: E402

OUT = unreachable.DATA_FILE


def main(names: list[str]) -> None:
    doc = json.loads(OUT.read_text(encoding="utf-8")) if OUT.exists() and names else {"encodings": {}}
    stored = doc["encodings"]
    summary_doc = (json.loads(scaffold.SUMMARY_FILE.read_text(encoding="utf-8")) if scaffold.SUMMARY_FILE.exists()
                   and names else {"encodings": {}})
    summaries = summary_doc["encodings"]
    corpus = scaffold.builtin_corpus()
    for name in names or engine.list_tokenizer_names():
        start = time.perf_counter()
        enc = engine.get_encoding(name)
        found = unreachable.reachability(enc)
        stored[name] = found.as_json()
        try:
            summary = scaffold.summary_of(scaffold.scaffold_counts(enc, corpus))
            summaries[name] = {k: getattr(summary, k) for k in ("vocab_size", "tokens", "reached", "scaffold")}
        except scaffold.NoMergeTreesError:
            summaries[name] = None
        print(f"{name:18} {time.perf_counter() - start:6.1f} s  partial UTF-8 {len(found.partial_utf8):6,}  "
              f"in context {len(found.in_context):6,}  unreachable {len(found.unreachable):6,}  "
              f"specials never produced {len(found.special_never):4,}/{found.specials:,}", flush=True)
    order = [n for n in engine.list_tokenizer_names() if n in stored]
    out = {
        "about": "Per built-in encoding, the ordinary tokens whose bytes are not valid UTF-8 (partial_utf8), that "
                 "encode back to themselves only inside some context (in_context) or in none tried (unreachable), "
                 "and the special tokens that ordinary text never produces (special_never): "
                 "engine.explain.unreachable. Definitions after Land & Bartolo, Fishing for Magikarp, EMNLP 2024.",
        "generator": "scripts/gen_reachability.py",
        "contexts": [list(c) for c in unreachable.CONTEXTS],
        "encodings": {n: stored[n] for n in order},
    }
    OUT.write_text(json.dumps(out, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({OUT.stat().st_size:,} bytes)")
    scaffold.SUMMARY_FILE.write_text(json.dumps({
        "about": "Per built-in encoding, over engine/data/languages.json (scaffold.builtin_corpus): ordinary tokens "
                 "(vocab_size), ids emitted (tokens), distinct tokens emitted or inside an emitted token's merge "
                 "tree (reached), and scaffold tokens (never emitted, inside at least once): "
                 "engine.explain.scaffold, after LiteToken (Sun et al. 2026). null: a model that merges nothing.",
        "generator": "scripts/gen_reachability.py",
        "corpus_digest": scaffold.corpus_digest(corpus),
        "encodings": {n: summaries[n] for n in order if n in summaries},
    }, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {scaffold.SUMMARY_FILE.relative_to(ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])
