"""The parsed ranks of a shipped vocabulary file, kept on disk between processes.

Parsing o200k_base's 200,000 base64 lines takes 0.45 s of a cold process (bench/bench_first_tree.py: the first
Merge tree of a fresh server waits for it; so does every test worker and every fresh job process), while
`marshal` reads the same dict back in 0.07 s.  `marshal` because it is the standard library's fastest reader
of a dict of bytes to int (pickle took 0.12 s) and it builds no objects but those; what it reads is still
checked before use.

- The key is the shipped file's name and sha256 (the one its parse checks), the parsers' source
  (`engine.formats.tiktoken_files`) and the Python version: an updated data file or a changed parser never
  meets an old cache, and the cache of a name's older key is removed when the new one is written (one file
  per shipped vocabulary: bounded).
- A cache file is the sha256 of its payload, then the payload; it is written to a temporary file and renamed,
  so a reader sees a whole file or none.  One whose checksum fails, or that is not a dict of bytes to int, is
  ignored and written again.
- Where: ``$BPE_CACHE_DIR`` (``off`` turns the cache off), else ``$XDG_CACHE_HOME/bpe-playground``, else
  ``~/.cache/bpe-playground``; under it ``ranks/``.  A directory that cannot be made or written to means
  parsing every time, as without a cache.
"""
from __future__ import annotations

import functools
import hashlib
import marshal
import os
import sys
import tempfile
from pathlib import Path
from typing import Callable

from . import tiktoken_files
from .tiktoken_files import read_data_file

_DIGEST = 32  # bytes of sha256 before the payload


def cache_dir() -> Path | None:
    """The directory the ranks are kept in, or None when the cache is off."""
    env = os.environ
    chosen = env.get("BPE_CACHE_DIR")
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "off", "0", "none") else Path(chosen) / "ranks"
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "bpe-playground" / "ranks"


@functools.cache
def _parser_source() -> bytes:
    """The parsers' module source, read once per process (part of the cache key)."""
    return Path(tiktoken_files.__file__).read_bytes()


def _path(directory: Path, filename: str, sha256: str) -> Path:
    key = hashlib.sha256(b"\0".join([sha256.encode(), _parser_source(), str(marshal.version).encode(),
                                      sys.version.split()[0].encode()])).hexdigest()
    return directory / f"{filename}.{key[:16]}.marshal"


def _read(path: Path) -> dict[bytes, int] | None:
    """The ranks in a cache file, or None if it is missing, damaged or not ranks."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    digest, payload = data[:_DIGEST], data[_DIGEST:]
    if len(digest) != _DIGEST or hashlib.sha256(payload).digest() != digest:
        return None
    try:
        ranks = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None
    if (type(ranks) is not dict or not all(type(k) is bytes for k in ranks)
            or not all(type(v) is int for v in ranks.values())):
        return None
    return ranks


def _write(directory: Path, path: Path, ranks: dict[bytes, int], filename: str) -> None:
    """Write `ranks` to `path` whole or not at all, and remove the caches of `filename`'s other versions."""
    payload = marshal.dumps(ranks)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".ranks-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(hashlib.sha256(payload).digest() + payload)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        for old in directory.glob(f"{filename}.*.marshal"):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError:  # read-only home, full disk, no permission: the next process parses again
        pass


def shipped_ranks(filename: str, sha256: str, parse: Callable[[bytes], dict[bytes, int]]) -> dict[bytes, int]:
    """The ranks of shipped data file `filename` (sha256 `sha256`, read by `read_data_file`), as `parse` makes
    them from its bytes: from the disk cache when a whole, checked copy is there, else parsed and cached."""
    directory = cache_dir()
    if directory is None:
        return parse(read_data_file(filename, sha256))
    path = _path(directory, filename, sha256)
    ranks = _read(path)
    if ranks is None:
        ranks = parse(read_data_file(filename, sha256))
        _write(directory, path, ranks, filename)
    return ranks
