"""Not collected by the project's own run: these are tiktoken 0.14.0's tests, unchanged (see PROVENANCE.md).

Collected here they would `import tiktoken` -- the real library -- and test it, not us.
`tests/engine/test_tiktoken_suite.py` copies them out and runs them against `engine`
through a rename-only shim (``sys.modules["tiktoken"] = engine``).
"""
collect_ignore_glob = ["test_*.py"]
