"""What keeps one server fair for many users: heavy work in job processes (`jobs`, the tasks they run
by name in `job_tasks`, the fork server's preload and process class), turns for script runs
(`script_gate`), and the net under every page (`errors`)."""
