"""This machine's tokenizers: listed from a fake Hugging Face cache and Ollama folder, off unless switched on,
and nothing outside those folders read (symlinks pointing out, manifests naming other files)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine.formats.limits import TokenizerTooLargeError
from engine.sources import local_files
from engine.sources.local_files import LocalTokenizer, find_local_tokenizers, read_local

GGUF = b"GGUF" + b"\x03\x00\x00\x00" + b"\x00" * 56
SHA = "ab" * 32


def hf_model(hub: Path, repo: str, files: dict[str, bytes], revision: str = "0123456789abcdef") -> Path:
    """A model in huggingface_hub's layout: snapshot files are symlinks to blobs."""
    folder = hub / ("models--" + repo.replace("/", "--"))
    snapshot = folder / "snapshots" / revision
    snapshot.mkdir(parents=True)
    (folder / "blobs").mkdir(exist_ok=True)
    (folder / "refs").mkdir(exist_ok=True)
    (folder / "refs" / "main").write_text(revision)
    for name, data in files.items():
        blob = folder / "blobs" / f"{abs(hash((repo, name, revision))):x}"
        blob.write_bytes(data)
        (snapshot / name).symlink_to(os.path.relpath(blob, snapshot))
    return snapshot


def ollama_model(models: Path, name: str, tag: str, blob: bytes, digest: str = SHA) -> Path:
    manifest = models / "manifests" / "registry.ollama.ai" / "library" / name / tag
    manifest.parent.mkdir(parents=True)
    (models / "blobs").mkdir(exist_ok=True)
    path = models / "blobs" / f"sha256-{digest}"
    path.write_bytes(blob)
    manifest.write_text(json.dumps({"schemaVersion": 2, "layers": [
        {"mediaType": "application/vnd.ollama.image.license", "digest": "sha256:" + "cd" * 32, "size": 10},
        {"mediaType": local_files.OLLAMA_MODEL_LAYER, "digest": f"sha256:{digest}", "size": len(blob)}]}))
    return path


@pytest.fixture
def machine(tmp_path):
    """A home folder with a Hugging Face cache and an Ollama folder, and the environment switching it on."""
    home = tmp_path / "home"
    hub = home / ".cache" / "huggingface" / "hub"
    hf_model(hub, "bert-base-uncased", {"vocab.txt": b"[PAD]\n[UNK]\nhello\n", "config.json": b"{}"})
    hf_model(hub, "openai-community/gpt2", {"vocab.json": b'{"a": 0}', "merges.txt": b"#version: 0.2\n",
                                            "tokenizer.json": b'{"model": {}}'})
    hf_model(hub, "org/only-vocab-json", {"vocab.json": b'{"a": 0}'})  # no merges.txt: not a tokenizer
    hf_model(hub, "org/weights-only", {"model.safetensors": b"x" * 10})
    ollama_model(home / ".ollama" / "models", "llama3.2", "latest", GGUF + b"rest of the weights")
    return {"env": {local_files.ENV_SWITCH: "1"}, "home": home, "hub": hub}


def listed(machine) -> dict[str, LocalTokenizer]:
    return {e.model: e for e in find_local_tokenizers(machine["env"], machine["home"])}


def test_nothing_is_listed_unless_switched_on(machine):
    assert find_local_tokenizers({}, machine["home"]) == []
    assert find_local_tokenizers({local_files.ENV_SWITCH: "0"}, machine["home"]) == []
    entry = listed(machine)["bert-base-uncased"]
    with pytest.raises(PermissionError, match=local_files.ENV_SWITCH):
        read_local(entry, 1_000_000, {}, machine["home"])


def test_hf_cache_and_ollama_models_are_listed_with_their_tokenizer_file(machine):
    found = listed(machine)
    assert set(found) == {"bert-base-uncased", "openai-community/gpt2", "llama3.2:latest"}
    assert found["bert-base-uncased"].kind == "vocab.txt"
    assert found["openai-community/gpt2"].kind == "tokenizer.json"  # the best file of the snapshot
    assert found["llama3.2:latest"].kind == "GGUF" and found["llama3.2:latest"].source == "Ollama"
    assert "llama3.2:latest · GGUF" in found["llama3.2:latest"].label


def test_a_vocab_json_with_merges_is_listed_as_a_pair(tmp_path):
    hub = tmp_path / "hub"
    hf_model(hub, "org/pair", {"vocab.json": b'{"a": 0}', "merges.txt": b"#version: 0.2\n"})
    (entry,) = find_local_tokenizers({local_files.ENV_SWITCH: "1", "HF_HUB_CACHE": str(hub)}, tmp_path / "nohome")
    assert entry.kind == "vocab.json + merges.txt"
    files = read_local(entry, 1_000, {local_files.ENV_SWITCH: "1", "HF_HUB_CACHE": str(hub)}, tmp_path / "nohome")
    assert files == [("vocab.json", b'{"a": 0}'), ("merges.txt", b"#version: 0.2\n")]


def test_env_vars_name_the_roots(tmp_path):
    hub, home_hf, ollama = tmp_path / "custom-hub", tmp_path / "hf-home", tmp_path / "ollama"
    hf_model(hub, "a/one", {"tokenizer.json": b"{}"})
    hf_model(home_hf / "hub", "b/two", {"tokenizer.model": b"\n\x05"})
    ollama_model(ollama, "qwen3", "8b", GGUF)
    env = {local_files.ENV_SWITCH: "1", "HF_HUB_CACHE": str(hub), "HF_HOME": str(home_hf), "OLLAMA_MODELS": str(ollama)}
    assert {e.model for e in find_local_tokenizers(env, tmp_path / "nohome")} == {"a/one", "b/two", "qwen3:8b"}


def test_read_local_returns_the_files_and_a_gguf_header_only(machine):
    found = listed(machine)
    assert read_local(found["bert-base-uncased"], 1_000, machine["env"], machine["home"]) == [
        ("vocab.txt", b"[PAD]\n[UNK]\nhello\n")]
    ((name, data),) = read_local(found["llama3.2:latest"], len(GGUF), machine["env"], machine["home"])
    assert name == "llama3.2-latest.gguf" and data == GGUF  # cut at the cap: the header is what counts
    with pytest.raises(TokenizerTooLargeError, match="limit"):
        read_local(found["bert-base-uncased"], 5, machine["env"], machine["home"])


def test_a_symlink_out_of_the_cache_is_neither_listed_nor_read(machine, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("[PAD]\nnot yours\n")
    snapshot = machine["hub"] / "models--evil--model" / "snapshots" / "abc"
    snapshot.mkdir(parents=True)
    (snapshot / "vocab.txt").symlink_to(secret)
    assert "evil/model" not in listed(machine)
    # A listed entry whose file was swapped for a link out afterwards is refused when read.
    entry = listed(machine)["bert-base-uncased"]
    link = Path(entry.files[0])
    link.unlink()
    link.symlink_to(secret)
    with pytest.raises(FileNotFoundError, match="outside"):
        read_local(entry, 1_000, machine["env"], machine["home"])


def test_a_forged_entry_outside_the_roots_is_refused(machine, tmp_path):
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "tokenizer.json").write_text("{}")
    forged = LocalTokenizer("Hugging Face cache", "x/y", str(other), (str(other / "tokenizer.json"),), 2, "tokenizer.json")
    with pytest.raises(PermissionError, match="not a Hugging Face or Ollama cache"):
        read_local(forged, 1_000, machine["env"], machine["home"])
    escaping = LocalTokenizer("Hugging Face cache", "x/y", str(machine["hub"].resolve()),
                              (str(machine["hub"] / ".." / ".." / ".." / ".." / "elsewhere" / "tokenizer.json"),),
                              2, "tokenizer.json")
    with pytest.raises(FileNotFoundError):
        read_local(escaping, 1_000, machine["env"], machine["home"])


def test_ollama_manifests_that_point_elsewhere_or_are_not_gguf_are_skipped(tmp_path):
    models = tmp_path / "ollama"
    ollama_model(models, "notgguf", "latest", b"safetensors...", digest="ef" * 32)
    manifest = models / "manifests" / "registry.ollama.ai" / "library" / "escape" / "latest"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"layers": [{"mediaType": local_files.OLLAMA_MODEL_LAYER,
                                                "digest": "sha256:../../../../etc/passwd"}]}))
    big = models / "manifests" / "registry.ollama.ai" / "library" / "big" / "latest"
    big.parent.mkdir(parents=True)
    big.write_text(" " * (local_files.MAX_MANIFEST_BYTES + 1))
    env = {local_files.ENV_SWITCH: "1", "OLLAMA_MODELS": str(models)}
    assert find_local_tokenizers(env, tmp_path / "nohome") == []


def test_the_listing_is_bounded(tmp_path, monkeypatch):
    hub = tmp_path / "hub"
    for i in range(6):
        hf_model(hub, f"org/m{i}", {"tokenizer.json": b"{}"})
    monkeypatch.setattr(local_files, "MAX_LISTED", 4)
    assert len(find_local_tokenizers({local_files.ENV_SWITCH: "1", "HF_HUB_CACHE": str(hub)}, tmp_path)) == 4


def test_the_docker_image_does_not_switch_it_on():
    dockerfile = (Path(__file__).parents[3] / "Dockerfile").read_text()
    assert local_files.ENV_SWITCH not in dockerfile
