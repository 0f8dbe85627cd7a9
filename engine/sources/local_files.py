"""Tokenizer files already on this machine: the Hugging Face hub cache and Ollama's models folder.

For a server that runs on the user's own machine, the playground can list the tokenizers that
machine's tools have downloaded and load one on a click.  A shared server must never read its own
disk on a visitor's behalf, so this is off unless the environment says ``BPE_LOCAL_TOKENIZERS=1``
(`enabled`); the Docker image never sets it.

Two layouts are read, as their tools write them:

* **huggingface_hub's cache** ("Manage huggingface_hub cache-system"): ``<hub>/models--{org}--{name}/
  snapshots/{revision}/{file}``, each file a symlink to ``../../blobs/{etag}``.  The hub folder is
  ``$HF_HUB_CACHE``, else ``$HF_HOME/hub``, else ``$XDG_CACHE_HOME/huggingface/hub``, else
  ``~/.cache/huggingface/hub`` -- every one of them that exists is listed.  Per snapshot the
  tokenizer file is the first of `HF_FILES` present (``vocab.json`` only with its ``merges.txt``).
* **Ollama** (its server's ``manifest`` and ``blob`` packages): ``<models>/manifests/<host>/
  <namespace>/<model>/<tag>`` is an OCI image manifest (JSON) whose layer of media type
  ``application/vnd.ollama.image.model`` names ``<models>/blobs/sha256-<hex>``, a GGUF file with the
  tokenizer in its header.  The folder is ``$OLLAMA_MODELS``, ``~/.ollama/models`` or
  ``/usr/share/ollama/.ollama/models`` (the Linux service's).

Nothing else on disk is read.  Directory listings stay inside those roots at the layouts' fixed
depths; a file is opened only if its real path (symlinks followed) lies inside the same root and it
is a regular file; manifests are read up to `MAX_MANIFEST_BYTES`; a GGUF blob only up to the upload
cap (its header is at the start: `engine.formats.file_kinds.GGUF_HEADER_BYTES`); at most
`MAX_LISTED` tokenizers are listed.  `read_local` checks all of it again when the file is read, so a
cache changed between listing and loading cannot point it elsewhere.
"""
from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ..formats.limits import TokenizerTooLargeError

ENV_SWITCH = "BPE_LOCAL_TOKENIZERS"
# A snapshot's tokenizer file, best first: the file that says most about the tokenizer wins.
HF_FILES = ("tokenizer.json", "tekken.json", "tokenizer.model", "vocab.json", "vocab.txt")
OLLAMA_SYSTEM_DIR = Path("/usr/share/ollama/.ollama/models")
OLLAMA_MODEL_LAYER = "application/vnd.ollama.image.model"
MAX_LISTED = 500  # tokenizers listed (each one a line in the UI)
MAX_DIR_ENTRIES = 5_000  # entries looked at in one directory: a huge folder cannot stall the page
MAX_MANIFEST_BYTES = 64_000  # an Ollama manifest (real ones: under 1 kB)
_BLOB_NAME = re.compile(r"sha256[-:]([0-9a-f]{64})")


@dataclass(frozen=True)
class LocalTokenizer:
    """One tokenizer found on this machine: where, which model, and the file(s) that hold it."""

    source: str  # "Hugging Face cache" or "Ollama"
    model: str  # "org/name" (with "@" and a short revision when a model has several) or Ollama's "name:tag"
    root: str  # the cache root it was found under; every file must stay inside it
    files: tuple[str, ...]  # absolute paths as listed (symlinks not yet followed)
    size: int  # bytes of the files together
    kind: str  # the file's name ("tokenizer.json", "vocab.json + merges.txt") or "GGUF"

    @property
    def label(self) -> str:
        size = f"{self.size / 1e6:,.1f} MB" if self.size >= 100_000 else f"{self.size / 1e3:,.1f} kB"
        return f"{self.model} · {self.kind} · {size} ({self.source})"


def enabled(environ: Mapping[str, str] | None = None) -> bool:
    """Whether listing this machine's tokenizers is switched on (``BPE_LOCAL_TOKENIZERS=1``)."""
    value = (os.environ if environ is None else environ).get(ENV_SWITCH, "")
    return value.strip().lower() in ("1", "true", "yes", "on")


def hf_cache_roots(environ: Mapping[str, str] | None = None, home: Path | None = None) -> list[Path]:
    """The Hugging Face hub folders that exist, in huggingface_hub's order of precedence."""
    env = os.environ if environ is None else environ
    home = Path.home() if home is None else home
    candidates = [env.get("HF_HUB_CACHE"), env.get("HUGGINGFACE_HUB_CACHE"),
                  env.get("HF_HOME") and str(Path(env["HF_HOME"]) / "hub"),
                  env.get("XDG_CACHE_HOME") and str(Path(env["XDG_CACHE_HOME"]) / "huggingface" / "hub"),
                  str(home / ".cache" / "huggingface" / "hub")]
    return _existing(candidates)


def ollama_roots(environ: Mapping[str, str] | None = None, home: Path | None = None) -> list[Path]:
    """Ollama's models folders that exist."""
    env = os.environ if environ is None else environ
    home = Path.home() if home is None else home
    return _existing([env.get("OLLAMA_MODELS"), str(home / ".ollama" / "models"), str(OLLAMA_SYSTEM_DIR)])


def _existing(candidates: list[str | None]) -> list[Path]:
    found: list[Path] = []
    for candidate in candidates:
        if not candidate:
            continue
        try:
            path = Path(candidate).expanduser().resolve()
        except (OSError, RuntimeError):
            continue
        if path.is_dir() and path not in found:
            found.append(path)
    return found


def _entries(folder: Path) -> list[os.DirEntry]:
    """A directory's entries, sorted, at most `MAX_DIR_ENTRIES`; none if it cannot be read."""
    try:
        with os.scandir(folder) as it:
            entries = []
            for entry in it:
                entries.append(entry)
                if len(entries) >= MAX_DIR_ENTRIES:
                    break
    except OSError:
        return []
    return sorted(entries, key=lambda e: e.name)


def inside(path: Path | str, root: Path | str) -> Path | None:
    """`path`'s real location if it is a regular file inside `root` (symlinks followed), else None."""
    try:
        real = Path(os.path.realpath(path))
        root_real = Path(os.path.realpath(root))
        info = real.stat()
    except (OSError, RuntimeError):
        return None
    if not real.is_relative_to(root_real) or not stat.S_ISREG(info.st_mode):
        return None
    return real


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _hf_snapshot(snapshot: Path, root: Path) -> tuple[tuple[str, ...], int, str] | None:
    """The tokenizer file(s) of one snapshot folder: (paths, bytes, kind), or None."""
    for name in HF_FILES:
        path = snapshot / name
        if inside(path, root) is None:
            continue
        files = [path]
        if name == "vocab.json":
            merges = snapshot / "merges.txt"
            if inside(merges, root) is None:
                continue  # vocab.json alone is no tokenizer this playground reads
            files.append(merges)
        size = sum(os.path.getsize(os.path.realpath(p)) for p in files)
        return tuple(str(p) for p in files), size, "vocab.json + merges.txt" if name == "vocab.json" else name
    return None


def _list_hf(root: Path, out: list[LocalTokenizer]) -> None:
    for repo in _entries(root):
        if not repo.name.startswith("models--") or not _is_dir(repo):
            continue
        model = repo.name[len("models--"):].replace("--", "/")
        snapshots = [s for s in _entries(Path(repo.path) / "snapshots") if _is_dir(s)]
        for snapshot in snapshots:
            found = _hf_snapshot(Path(snapshot.path), root)
            if found is None:
                continue
            files, size, kind = found
            name = model if len(snapshots) == 1 else f"{model}@{snapshot.name[:7]}"
            out.append(LocalTokenizer("Hugging Face cache", name, str(root), files, size, kind))
            if len(out) >= MAX_LISTED:
                return


def _read_manifest(path: Path, root: Path) -> dict | None:
    real = inside(path, root)
    if real is None or real.stat().st_size > MAX_MANIFEST_BYTES:
        return None
    try:
        found = json.loads(real.read_bytes())
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def _ollama_name(host: str, namespace: str, model: str, tag: str) -> str:
    """The name `ollama list` shows: ``model:tag`` for the official library, longer for the others."""
    if host == "registry.ollama.ai":
        return f"{model}:{tag}" if namespace == "library" else f"{namespace}/{model}:{tag}"
    return f"{host}/{namespace}/{model}:{tag}"


def _ollama_blob(manifest: dict, root: Path) -> Path | None:
    layers = manifest.get("layers")
    if not isinstance(layers, list):
        return None
    for layer in layers:
        if isinstance(layer, dict) and layer.get("mediaType") == OLLAMA_MODEL_LAYER:
            digest = _BLOB_NAME.fullmatch(str(layer.get("digest", "")))
            if digest is None:
                return None
            blob = root / "blobs" / f"sha256-{digest.group(1)}"
            real = inside(blob, root)
            if real is None:
                return None
            with open(real, "rb") as handle:
                if handle.read(4) != b"GGUF":
                    return None
            return blob
    return None


def _list_ollama(root: Path, out: list[LocalTokenizer]) -> None:
    manifests = root / "manifests"
    for host in (e for e in _entries(manifests) if _is_dir(e)):
        for namespace in (e for e in _entries(Path(host.path)) if _is_dir(e)):
            for model in (e for e in _entries(Path(namespace.path)) if _is_dir(e)):
                for tag in _entries(Path(model.path)):
                    manifest = _read_manifest(Path(tag.path), root)
                    blob = _ollama_blob(manifest, root) if manifest is not None else None
                    if blob is None:
                        continue
                    out.append(LocalTokenizer("Ollama", _ollama_name(host.name, namespace.name, model.name, tag.name),
                                              str(root), (str(blob),), os.path.getsize(os.path.realpath(blob)), "GGUF"))
                    if len(out) >= MAX_LISTED:
                        return


def find_local_tokenizers(environ: Mapping[str, str] | None = None, home: Path | None = None) -> list[LocalTokenizer]:
    """Every tokenizer in this machine's Hugging Face cache and Ollama folder (at most `MAX_LISTED`).
    Lists nothing unless `enabled`."""
    if not enabled(environ):
        return []
    found: list[LocalTokenizer] = []
    for root in hf_cache_roots(environ, home):
        _list_hf(root, found)
    for root in ollama_roots(environ, home):
        _list_ollama(root, found)
    return found[:MAX_LISTED]


def read_local(entry: LocalTokenizer, max_bytes: int, environ: Mapping[str, str] | None = None,
               home: Path | None = None) -> list[tuple[str, bytes]]:
    """The (file name, bytes) of a listed tokenizer, checked again: switched on, its root one of this
    machine's cache roots, each file a regular file inside it.  A GGUF file is read up to `max_bytes`
    (the tokenizer sits in its header); any other file past `max_bytes` is refused."""
    if not enabled(environ):
        raise PermissionError(f"reading this machine's tokenizers is switched off; set {ENV_SWITCH}=1 to switch it on")
    roots = hf_cache_roots(environ, home) + ollama_roots(environ, home)
    if Path(entry.root) not in roots:
        raise PermissionError(f"{entry.root} is not a Hugging Face or Ollama cache folder of this machine")
    files: list[tuple[str, bytes]] = []
    for path in entry.files:
        real = inside(path, entry.root)
        if real is None:
            raise FileNotFoundError(f"{path} is gone or points outside {entry.root}; reload the list")
        size = real.stat().st_size
        if entry.kind != "GGUF" and size > max_bytes:
            raise TokenizerTooLargeError(f"{path} is {size / 1e6:.1f} MB; the limit for a tokenizer file is "
                                         f"{max_bytes / 1e6:.0f} MB")
        with open(real, "rb") as handle:
            data = handle.read(max_bytes)
        name = Path(path).name if entry.kind != "GGUF" else f"{entry.model.replace('/', '-').replace(':', '-')}.gguf"
        files.append((name, data))
    return files
