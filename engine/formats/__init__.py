"""File formats: bytes in, plain data out (no `Encoding` is built here, except minbpe's, which
is one); the size limits every reader keeps; what kind of file an upload is.
"""
