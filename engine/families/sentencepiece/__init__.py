"""SentencePiece BPE ``.model`` files: the encoding, its merge loop, normalizer and protobuf reader.
"""
