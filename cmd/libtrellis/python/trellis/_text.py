"""trellis.tokenize: raw text into sentences and tokens with offsets."""

from . import _native

DEFAULT_TOKENIZER = "en-tokenizer"


def tokenize(text, tokenizer=DEFAULT_TOKENIZER):
    """Split raw text into sentences and tokens.

    tokenizer: "en-tokenizer" (the shipped English tokenizer and sentence
    splitter, a CRF over characters learned from UD English EWT), "rules"
    (a regular expression, splitting sentences after . ! ?), "lines" (a
    sentence per line, tokens split at white space: text tokenized
    already), "chars" (a sentence per line, a token per character but
    white space), or the path of a tokenizer model file. libtrellis loads
    a tokenizer once and keeps it, by name, for later calls.

    Returns a list with a dict per sentence: {"start", "end", "text",
    "tokens"}, each token a dict {"start", "end", "text"}. Offsets are
    indices into text, a str (characters, not bytes):
    text[t["start"]:t["end"]] == t["text"].

        >>> trellis.tokenize("Café au lait. Ünïcode?")[1]
        {'start': 14, 'end': 22, 'text': 'Ünïcode?', 'tokens': [{'start': 14, 'end': 21, 'text': 'Ünïcode'}, {'start': 21, 'end': 22, 'text': '?'}]}

    An unknown tokenizer, or a model file that is not a tokenizer, raises
    TrellisError (a ValueError) with trellis's message.
    """
    return _native.tokenize(text, tokenizer)
