"""The process class of a job (playground.serving.jobs): the fork server's launch, minus "run ``__main__`` again".

Kept apart from playground.serving.jobs, with no Streamlit import, because a job process unpickles this
class before anything else: were it in playground.serving.jobs, each job would import Streamlit
first.  The fork server preloads it (playground.serving.job_preload).
"""
from __future__ import annotations

import multiprocessing.context
import threading
from multiprocessing import popen_forkserver, spawn
from typing import Any


class JobPopen(popen_forkserver.Popen):
    """multiprocessing's fork-server launch, minus "run the parent's ``__main__`` again".

    A new process normally re-imports the parent's main module so that anything pickled from it
    can be found.  Streamlit runs the app script *as* ``__main__`` (a fresh module each run), so
    every job process would run app.py again -- the code of a whole page, before the job
    starts.  Jobs need nothing from ``__main__``:
    their function and arguments are importable by name (playground.serving.job_tasks, engine).
    """

    _launching = threading.Lock()

    def _launch(self, process_obj: Any) -> None:
        # The stdlib reads the preparation data inside `_launch`; the swap is held under a lock,
        # and every job launch comes through here.
        with JobPopen._launching:
            original = spawn.get_preparation_data

            def without_main(name: str) -> dict:
                data = original(name)
                data.pop("init_main_from_path", None)
                data.pop("init_main_from_name", None)
                return data

            spawn.get_preparation_data = without_main
            try:
                super()._launch(process_obj)
            finally:
                spawn.get_preparation_data = original


class JobProcess(multiprocessing.context.ForkServerProcess):
    """A job process launched by `JobPopen`."""

    @staticmethod
    def _Popen(process_obj: Any) -> JobPopen:
        return JobPopen(process_obj)
