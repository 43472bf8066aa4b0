"""trellis for Python: sequence labelling with an sklearn-crfsuite interface.

    >>> import trellis
    >>> crf = trellis.CRF(algorithm="lbfgs", c1=0.1, c2=0.1, max_iterations=100)
    >>> crf.fit(X_train, y_train)
    >>> crf.predict(X_test)

X is sklearn-crfsuite's: a list of sentences, each a list of tokens, each
token a dict of attribute name -> str / bool / number (or a nested dict,
list or set), or a list of attribute names. The work is done by
libtrellis, trellis's C shared library, found through the TRELLIS_LIB
environment variable or beside this package.
"""

from ._crf import CRF
from ._native import TrellisError, library_path

__all__ = ["CRF", "TrellisError", "library_path"]
