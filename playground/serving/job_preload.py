"""Imported once by the job fork server (`playground.serving.jobs`): the engine and the built-in vocabularies,
loaded before any job forks, so every job starts with them in (copy-on-write) memory, and the
job process class (unpickled first thing in every job).

The fork server also lowers its own CPU priority (niceness JOB_NICE), which every job inherits:
jobs are the heavy, patient work (training, big encodes, vocabulary scans), and on a machine with
few cores they would take CPU from the server process that answers every other user's clicks
(bench/bench_load.py: several users training while others switch pages).

Last, everything loaded is frozen out of the garbage collector's walk (`gc.freeze`, the standard
library's advice before forking): a job whose collector walks the inherited objects writes to
their pages and makes the kernel copy them.
"""
import gc
import os

from playground.serving import job_process, job_tasks  # noqa: F401  (job_process: imported for the jobs)

JOB_NICE = 10  # added to the server's niceness; 19 is the lowest priority

try:
    os.nice(JOB_NICE)
except OSError:  # a platform without nice: jobs run at the server's priority
    pass

job_tasks.warm()
gc.collect()
gc.freeze()
