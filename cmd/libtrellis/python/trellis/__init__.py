"""trellis for Python: sequence labelling with an sklearn-crfsuite interface.

    >>> import trellis
    >>> crf = trellis.CRF(algorithm="lbfgs", c1=0.1, c2=0.1, max_iterations=100)
    >>> crf.fit(X_train, y_train)
    >>> crf.predict(X_test)

X is sklearn-crfsuite's: a list of sentences, each a list of tokens, each
token a dict of attribute name -> str / bool / number (or a nested dict,
list or set), or a list of attribute names. The work is done by
libtrellis, trellis's C shared library, which `pip install` builds
beside this package's __init__.py (the TRELLIS_LIB environment variable,
when set, names another). trellis.metrics has sklearn_crfsuite.metrics's
scores and conlleval's span scores.

Raw text, as spaCy takes it: trellis.tokenize(text) splits it into
sentences and tokens (by default with "en-tokenizer", the shipped English
tokenizer), and CRF.tag_text(text) tags it with a model that reads words
(one `trellis run` trained on a corpus of columns), giving per sentence
the tokens with their labels and, for a span scheme (BIO...), the spans:

    >>> trellis.tokenize("Café au lait. Ünïcode?")[1]["tokens"]
    [{'start': 14, 'end': 21, 'text': 'Ünïcode'}, {'start': 21, 'end': 22, 'text': '?'}]
    >>> crf = trellis.CRF.load("run/models/crf.model")  # trellis run specs/quickstart.hcl --out run
    >>> [(t["text"], t["label"], t["start"]) for t in crf.tag_text("The café opened in 2019.")[0]["tokens"]]
    [('The', 'DET', 0), ('café', 'NOUN', 4), ('opened', 'VERB', 9), ('in', 'ADP', 16), ('2019', 'NUM', 19), ('.', 'PUNCT', 23)]

Offsets are str indices: text[t["start"]:t["end"]] == t["text"] for every
token and span.

CRF.load also takes the name of a model shipped with trellis ("en-upos",
"en-xpos": POS taggers reading words). trellis.Pipeline([...]) chains
models, each reading the labels of the ones before it as the columns it
names: a chunker trained on columns word, xpos, chunk after "en-xpos".
"""

from ._crf import CRF
from ._native import TrellisError, library_path
from ._pipeline import Pipeline
from ._text import tokenize

__all__ = ["CRF", "Pipeline", "TrellisError", "library_path", "tokenize"]
