"""Imported once by the job fork server (`playground.jobs`): the engine and the built-in vocabularies,
loaded before any job forks, so every job starts with them in (copy-on-write) memory, and the
job process class (unpickled first thing in every job)."""
from playground import job_process, job_tasks  # noqa: F401  (job_process: imported for the jobs)

job_tasks.warm()
