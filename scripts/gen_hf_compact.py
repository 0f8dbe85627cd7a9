"""Write the compact form of each shipped tokenizer.json (engine/data/*.compact.gz) and print its sha256.

The compact form loads several times faster than the JSON (see
`engine.families.hf.tokenizer_json.dump_compact`); tests check that it
holds exactly what the JSON holds.  After running, paste the printed sha256
into BUILTIN_FILES.

Run:  python scripts/gen_hf_compact.py
"""
from __future__ import annotations

import gzip
import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.families.hf.tokenizer_json import BUILTIN_FILES, dump_compact  # noqa: E402
from engine.formats.tiktoken_files import DATA_DIR, read_data_file  # noqa: E402


def main() -> None:
    for name, files in BUILTIN_FILES.items():
        blob = dump_compact(read_data_file(*files.json), files.json[0])
        (DATA_DIR / files.compact[0]).write_bytes(blob)
        print(name, files.compact[0], hashlib.sha256(gzip.decompress(blob)).hexdigest())


if __name__ == "__main__":
    main()
