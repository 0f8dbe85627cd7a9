"""Vocabularies load on first use: importing the engine, listing the names, the catalog, the picker's labels
and model-name look-ups open no vocabulary file (the engine/data ``*.gz`` files; the installed Gemma ones too); `get_encoding` opens only the files of the name asked for.

Watched with an audit hook on ``open`` in a fresh process (an earlier test in this one may have loaded them).
"""
from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import APP_DIR

_PROBE = r"""
import json, os, sys
opened = []
sys.addaudithook(lambda event, args: opened.append(os.fspath(args[0]))
                 if event == "open" and isinstance(args[0], (str, os.PathLike)) else None)

def data_files():  # the vocabularies (every one is gzipped; the small .json tables beside them are not)
    return sorted({os.path.basename(p) for p in opened if os.sep + "data" + os.sep in p and p.endswith(".gz")})

import engine
from engine.sources import catalog
from playground.state import BUILTIN_ENCODINGS
from playground.widgets.pickers import encoding_label

names = engine.list_tokenizer_names()
engine.list_encoding_names()
groups = catalog.group_by_maker(BUILTIN_ENCODINGS)
labels = [encoding_label(n, m) for m, ns in groups for n in ns]
catalog.catalog(), catalog.not_installed(), catalog.search_encodings("THUDM/glm-4-9b"), catalog.search_encodings("Zhipu")
[engine.encoding_name_for_model(m) for m in ("gpt-4o", "glm-5", "THUDM/glm-4-9b", "claude-2.1", "bert-base-uncased")]
listed = data_files()
engine.get_encoding(sys.argv[1]).encode("hi")
print(json.dumps({"names": names, "labels": len(labels), "listed": listed, "after": data_files()}))
"""


def probe(name: str) -> dict:
    out = subprocess.run([sys.executable, "-c", _PROBE, name], cwd=APP_DIR, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_listing_and_the_picker_load_no_vocabulary():
    got = probe("glm4")
    assert "glm4" in got["names"] and got["labels"] >= len(got["names"]) - 1  # (aliases listed once)
    assert got["listed"] == []
    # the check can see a load: glm4's header and the glm5 data it shares, and nothing else
    assert got["after"] == ["glm4_tokenizer.header.gz", "glm5_tokenizer.compact.gz"]


def test_one_encoding_loads_only_its_own_files():
    got = probe("bert-base-uncased")
    assert got["listed"] == [] and got["after"] == ["bert_base_uncased_vocab.txt.gz"]
