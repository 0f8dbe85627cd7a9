"""warmup.settle_gc: what exists after the warm-up is frozen, young collections run less often."""
from __future__ import annotations

import gc

from playground.serving import warmup


def test_settle_gc_freezes_and_raises_the_threshold():
    before = gc.get_threshold()
    try:
        warmup.settle_gc()
        assert gc.get_freeze_count() > 1000  # modules, vocabularies: out of the collector's walk
        assert gc.get_threshold() == (warmup.GC_THRESHOLD, before[1], before[2])
        cycle = []
        cycle.append(cycle)  # cycles made later are still collected
        del cycle
        assert gc.collect() >= 1
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
