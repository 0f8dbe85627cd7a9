"""ctok 1.3.0 itself, the oracle of the Claude 3+ family: run under Python >= 3.12 in a venv the tests make.

ctok needs Python >= 3.12; the playground runs on 3.11.  `ctok_venv` makes ``<test-packages>/ctok-1.3.0-venv``
once per machine (``python3.12 -m venv``, then the pinned wheel from `tests.reference_packages` and the same
`regex` release the engine runs on, since both read Unicode properties through it) and reuses it on later
runs.  `CtokOracle` starts one ctok process per test session and sends it batches of (text, version):
one round trip per batch, never one process per text.

No ``python3.12`` on the machine: the tests skip, saying so (``PYENV_VERSION=3.12.1`` selects it under pyenv).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Sequence

import pytest
import regex

from tests.reference_packages import PINNED, archive, cache_dir

CTOK = PINNED["ctok"]

# Reads one JSON batch per line, [[text, version], ...], and answers one line of counts.
_SERVER = r"""
import json, sys
import ctok
for line in sys.stdin:
    batch = json.loads(line)
    print(json.dumps([ctok.token_count(text, version) for text, version in batch]), flush=True)
"""


def _python312() -> list[str] | None:
    env = {**os.environ, "PYENV_VERSION": os.environ.get("PYENV_VERSION", "3.12.1")}
    exe = shutil.which("python3.12")
    if exe is None:
        return None
    probe = subprocess.run([exe, "-c", "import sys; print(sys.version_info >= (3, 12))"], capture_output=True,
                           text=True, env=env)
    return [exe] if probe.returncode == 0 and probe.stdout.strip() == "True" else None


def ctok_venv() -> Path:
    """The venv's python, made on first use and kept under the pinned files' cache dir (keyed by ctok's version)."""
    venv = cache_dir() / f"ctok-{CTOK.version}-venv"
    python = venv / "bin" / "python"
    done = venv / f".installed-regex-{regex.__version__}"
    if done.exists():
        return python
    base = _python312()
    if base is None:
        pytest.skip("no python3.12 on this machine: ctok (the Claude oracle) needs Python >= 3.12 "
                    "(with pyenv: PYENV_VERSION=3.12.1 python3.12 -m venv ...)")
    wheel = archive("ctok")
    env = {**os.environ, "PYENV_VERSION": os.environ.get("PYENV_VERSION", "3.12.1")}
    if venv.exists():
        shutil.rmtree(venv)
    steps = [[*base, "-m", "venv", str(venv)],
             [str(python), "-m", "pip", "install", "--quiet", f"regex=={regex.__version__}", str(wheel)]]
    for cmd in steps:
        run = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
        if run.returncode:
            pytest.fail(f"could not make the ctok oracle's venv: `{' '.join(cmd)}` failed\n{run.stderr[-2000:]}")
    done.touch()
    return python


class CtokOracle:
    """One ctok process; `counts` sends a whole batch in one round trip."""

    def __init__(self, python: Path) -> None:
        self._proc = subprocess.Popen([str(python), "-c", _SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True, encoding="utf-8")

    def counts(self, texts: Sequence[str], version: str) -> list[int]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        # ensure_ascii keeps lone surrogates as \ud800-style escapes, which json.loads turns back into them
        self._proc.stdin.write(json.dumps([[t, version] for t in texts]) + "\n")
        self._proc.stdin.flush()
        line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError("the ctok oracle process ended; run it by hand to see why")
        return json.loads(line)  # type: ignore[no-any-return]

    def close(self) -> None:
        if self._proc.stdin:
            self._proc.stdin.close()
        self._proc.wait(timeout=60)


if __name__ == "__main__":  # python -m tests.oracles.ctok_oracle "text" 4.7
    oracle = CtokOracle(ctok_venv())
    print(oracle.counts([sys.argv[1]], sys.argv[2] if len(sys.argv) > 2 else "3.0"))
    oracle.close()
