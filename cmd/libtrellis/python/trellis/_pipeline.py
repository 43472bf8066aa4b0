"""trellis.Pipeline: several models tagging in order, each reading the
labels of the ones before it (`trellis tag --model A --model B`)."""

from . import _native
from ._crf import CRF
from ._text import DEFAULT_TOKENIZER


class Pipeline:
    """Models that tag one after the other: each reads the words and, as the
    columns it names, the labels of the models before it. A chunker trained
    on columns word, xpos, chunk reads the labels of the shipped POS tagger
    "en-xpos", whose label column is "xpos":

        >>> chunker = trellis.CRF.load("runs/conll2000-xpos/models/crf.model")  # specs/conll2000-xpos.hcl
        >>> p = trellis.Pipeline([trellis.CRF.load("en-xpos"), chunker])
        >>> p.tag([["He", "reckons", "the", "deficit", "will", "narrow", "."]])
        [{'chunk': ['B-NP', 'B-VP', 'B-NP', 'I-NP', 'B-VP', 'I-VP', 'O'], 'xpos': ['PRP', 'VBZ', 'DT', 'NN', 'MD', 'VB', '.']}]

    models: a list of CRF with a model (CRF.load, or a `trellis run` model
    file), each reading the words and columns labelled by earlier models
    (the latest, when several label one). A model reading a column no
    earlier model labels, a model given twice, or one trained by fit on
    attribute dicts (which has no word column) raises TrellisError (a
    ValueError) with trellis's message, here.

    The pipeline keeps the models it was made with: refitting one of its
    CRFs frees that model, and the pipeline then raises TrellisError.
    """

    def __init__(self, models):
        if isinstance(models, CRF) or not hasattr(models, "__iter__"):
            raise TypeError("models must be a list of CRF, got %s" % type(models).__name__)
        models = list(models)
        for i, m in enumerate(models):
            if not isinstance(m, CRF):
                raise TypeError("models[%d] must be a CRF, got %s" % (i, type(m).__name__))
        self.models = models
        self._pipeline = _native.Pipeline([m._fitted() for m in models])

    def tag_text(self, text, tokenizer=DEFAULT_TOKENIZER):
        """Tag raw text with every model: CRF.tag_text's sentences (the
        last model's "label", "labels" and "spans"), each token with
        "tags", a dict column -> label of every model. Offsets are indices
        into text: text[t["start"]:t["end"]] == t["text"]."""
        return self._pipeline.tag_text(text, tokenizer)

    def tag(self, sentences):
        """Tag sentences given as words (a list of lists of str): per
        sentence, a dict column -> the labels of its words."""
        words = []
        for k, sent in enumerate(sentences):
            if isinstance(sent, str) or not all(isinstance(w, str) for w in sent):
                raise TypeError("sentence %d must be a list of words (str), got %r" % (k, sent))
            words.append(list(sent))
        return self._pipeline.tag(words)

    def close(self):
        """Free the pipeline (its models stay their CRFs')."""
        self._pipeline.close()

    def __repr__(self):
        return "Pipeline(%d models)" % len(self.models)
