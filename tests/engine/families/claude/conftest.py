from __future__ import annotations

from typing import Iterator

import pytest

from tests.oracles.ctok_oracle import CtokOracle, ctok_venv


@pytest.fixture(scope="session")
def ctok() -> Iterator[CtokOracle]:
    """ctok 1.3.0 under Python 3.12: the venv is made once per machine, the process once per session."""
    oracle = CtokOracle(ctok_venv())
    yield oracle
    oracle.close()
