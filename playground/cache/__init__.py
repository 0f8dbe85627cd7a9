"""Every cached call of the playground: the shared bounded memo (`memo`), the engine calls a page makes
(`encodings`), the drawn tokens of a text (`render_cache`), and a session's own tokenizers within the
server's memory budget (`uploads`)."""
