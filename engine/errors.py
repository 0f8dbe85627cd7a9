"""The engine's exceptions: one class per way a call can fail, each a subclass of what tiktoken raises.

Callers tell failures apart by type, never by message text::

    try:
        ids = enc.encode(text)
    except engine.DisallowedSpecialTokenError as err:   # still a ValueError, as in tiktoken
        ...                                             # err.token is the special token found

Every class subclasses the built-in exception that tiktoken (or the engine
before these classes existed) raises in the same place, so ``except
ValueError`` / ``except KeyError`` keep working.  Messages say how to fix
the call.
"""
from __future__ import annotations


class DisallowedSpecialTokenError(ValueError):
    """`encode` met the text of a special token that the call does not allow."""

    def __init__(self, token: str) -> None:
        self.token = token
        super().__init__(
            f"Encountered text corresponding to disallowed special token {token!r}.\n"
            "If you want this text to be encoded as a special token, "
            f"pass it to `allowed_special`, e.g. `allowed_special={{{token!r}, ...}}`.\n"
            f"If you want this text to be encoded as normal text, disable the check for this token "
            f"by passing `disallowed_special=(enc.special_tokens_set - {{{token!r}}})`.\n"
            "To disable this check for all special tokens, pass `disallowed_special=()`.\n"
        )


class SplitTimeoutError(ValueError):
    """A user's split pattern ran longer than its time limit on one text (catastrophic backtracking)."""

    def __init__(self, seconds: float, where: str = "") -> None:
        self.seconds = seconds
        self.where = where  # the file and field of the pattern (an uploaded tokenizer.json's Split), if known
        super().__init__(
            f"{where + ': ' if where else ''}the split pattern took more than {seconds:g} s on this text: nested "
            "or overlapping repeats such as (a|a)+ or (a+)+ backtrack exponentially; write them as a single "
            "repeat (a+)"
        )


class TimeLimitError(ValueError):
    """A tokenizer's work on one text ran past the time limit its caller set (`engine.deadline.time_limit`)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(
            f"the tokenizer took more than {seconds:g} s on this text and was stopped: its file makes every "
            "character cost many steps (long pieces or tokens, deep normalization rules); try a shorter text, "
            "or the model's original tokenizer file"
        )


class UnknownTokenError(KeyError):
    """A token id that is neither an ordinary nor a special token of the encoding."""

    def __init__(self, token_id: object, encoding: str, n_vocab: int) -> None:
        self.token_id = token_id
        super().__init__(
            f"unknown token id {token_id!r} for {encoding}: ids are 0..{n_vocab - 1}, "
            "and ids between the ordinary and the special tokens are unused"
        )

    def __str__(self) -> str:  # KeyError would wrap the message in quotes
        return str(self.args[0])


class UnknownEncodingError(ValueError):
    """`get_encoding` was given a name that is not registered (tiktoken raises ValueError here)."""

    def __init__(self, name: object, known: list[str]) -> None:
        self.name = name
        super().__init__(f"Unknown encoding {name!r}. Known encodings: {', '.join(known)} "
                         "(`engine.list_tokenizer_names()` lists them).")


class UnknownModelError(KeyError):
    """`encoding_name_for_model` does not know the model (tiktoken raises KeyError here)."""

    def __init__(self, model_name: str, suggestions: list[str], note: str = "") -> None:
        self.model_name = model_name
        self.suggestions = suggestions
        self.note = note  # why no local encoding can serve this model, when we know
        hint = f" Did you mean {' or '.join(map(repr, suggestions))}?" if suggestions else ""
        hint += f" {note}" if note else ""
        super().__init__(
            f"Could not automatically map {model_name!r} to a tokeniser.{hint} "
            "Use `engine.get_encoding(name)` to pick the encoding explicitly "
            "(`engine.list_tokenizer_names()` lists them)."
        )

    def __str__(self) -> str:
        return str(self.args[0])


class JsonLimitError(ValueError):
    """A JSON file nests deeper, or holds more values, than the engine reads (checked before `json.loads`)."""

    def __init__(self, source: str, found: str, limit: str, fix: str) -> None:
        self.source, self.limit = source, limit
        super().__init__(f"{source}: {found}; the limit is {limit}. {fix}")


class UnsupportedModelError(ValueError):
    """A tokenizer file of a known kind whose model type (WordPiece, Unigram, ...) the engine does not run."""

    def __init__(self, source: str, what: str, fix: str) -> None:
        self.source, self.what = source, what
        super().__init__(f"{source}: {what}; {fix}")


class WrongFileKindError(ValueError):
    """A file uploaded as one kind of tokenizer file that is, by its content, another kind (or no tokenizer)."""

    def __init__(self, source: str, expected: str, found: str, fix: str) -> None:
        self.source, self.expected, self.found = source, expected, found
        super().__init__(f"{source} is {found}, not {expected}; {fix}")


class NotAFilePairError(WrongFileKindError):
    """Two files uploaded together that are not a pair the engine reads as one tokenizer (vocab.json + merges.txt)."""

    def __init__(self, files: list[tuple[str, str]], expected: str, fix: str) -> None:
        # Each file with its own kind: "a and b is X and Y" read as if the two were one file.
        (first, first_kind), (second, second_kind) = files
        self.source, self.expected = f"{first} and {second}", expected
        self.found = f"{first_kind} and {second_kind}"
        ValueError.__init__(self, f"{first} is {first_kind} and {second} is {second_kind}; together they are not "
                                  f"{expected}: {fix}")


class MediaFileError(ValueError):
    """An image or PDF whose header cannot give its size or pages: truncated, crafted or another kind of file.
    The message names the format, what is wrong and what to upload instead."""
