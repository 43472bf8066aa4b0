"""trellis.CRF: the sklearn-crfsuite CRF estimator over libtrellis."""

import inspect
import math
import numbers
import os

from . import _features
from ._log import TrainingLog
from ._native import Model, TrellisError
from ._text import DEFAULT_TOKENIZER

# The algorithms of sklearn-crfsuite (CRFsuite's trainers) trellis has a
# learner for, and the settings each takes: sklearn-crfsuite's name ->
# the trellis learner's setting.
_SETTINGS = {
    "lbfgs": ("crf", {"c1": "c1", "c2": "c2", "max_iterations": "max_iterations", "num_memories": "memory",
                      "epsilon": "epsilon", "period": "period", "delta": "delta", "patience": "patience"}),
    "l2sgd": ("crf", {"c2": "c2", "max_iterations": "max_iterations", "period": "period", "delta": "delta",
                      "learning_rate": "learning_rate", "patience": "patience"}),
    "ap": ("perceptron", {"max_iterations": "epochs"}),
    "pa": ("pa", {"max_iterations": "epochs", "pa_type": "pa_type", "c": "c"}),
    "arow": ("arow", {"max_iterations": "epochs", "variance": "variance", "gamma": "gamma"}),
}
_AVERAGED = ("ap", "pa", "arow")  # the online learners, which take averaging
_FLOATS = {"c1", "c2", "epsilon", "delta", "learning_rate", "c", "variance", "gamma"}
_INTS = {"max_iterations", "num_memories", "period", "patience", "pa_type"}
# sklearn-crfsuite settings trellis has no counterpart for.
_UNSUPPORTED = ("linesearch", "max_linesearch", "calibration_eta", "calibration_rate", "calibration_samples",
                "calibration_candidates", "calibration_max_trials", "trainer_cls")


def _supported():
    return ", ".join(repr(a) for a in _SETTINGS)


class CRF:
    """A linear-chain CRF (or an online learner) trained by trellis, with
    sklearn-crfsuite's interface.

    algorithm: "lbfgs" (default; L-BFGS, OWL-QN when c1 > 0), "l2sgd"
    (SGD with L2), "ap" (averaged perceptron), "pa" (passive-aggressive:
    pa_type 0, 1 or 2, c, error_sensitive) or "arow" (AROW: variance,
    gamma). max_iterations is the online learners' number of epochs.

    c1, c2, max_iterations, num_memories, epsilon, period, delta: as in
    CRFsuite. Unset ones take trellis's defaults, which are CRFsuite's
    except max_iterations: unlimited for lbfgs (as CRFsuite), 50 epochs for
    l2sgd (CRFsuite: 1000), 10 epochs for ap (CRFsuite: 100).

    all_possible_states: True gives every (attribute, label) pair a weight,
    not only those seen in training. all_possible_transitions: trellis
    always weights every label transition (CRFsuite's True); False cannot
    be honoured and raises ValueError.

    averaging (ap, pa, arow): False returns the last weights, not their
    average. trellis averages all three by default; CRFsuite averages ap
    and pa but not arow (averaging=False gives CRFsuite's arow).

    min_freq: drop attributes seen fewer than min_freq times in the
    training data (trellis's min_count). CRFsuite counts each (attribute,
    label) feature, weighted by the attribute's value; trellis counts every
    occurrence of the attribute, and so keeps or drops all its features.

    model_filename: when set, fit saves the model there.

    trellis's own settings: scheme (label scheme, e.g. "iob2": decoding is
    then constrained to well-formed sequences), seed, threads (0: one per
    CPU; the model is the same for any number), patience (lbfgs, l2sgd:
    with a dev set, stop after that many iterations without a better dev
    score and keep the best), learning_rate (l2sgd's initial step).

    Settings are checked when the CRF is made and again by fit.

    With a model (after fit or CRF.load), sklearn-crfsuite's attributes:
    classes_, attributes_, num_attributes_, state_features_,
    transition_features_, size_, and training_log_ (after fit; None for a
    loaded model); and trellis's start_features_ and stop_features_ (the
    weights of a sequence's first and last label, which CRFsuite has not).
    They are None without a model.

    tag_text(text) tags raw text with a model that reads words, through a
    tokenizer (trellis.tokenize's), and gives tokens and spans with their
    offsets into text.
    """

    def __init__(self, algorithm=None, min_freq=None, all_possible_states=None, all_possible_transitions=None,
                 c1=None, c2=None, max_iterations=None, num_memories=None, epsilon=None, period=None, delta=None,
                 linesearch=None, max_linesearch=None, calibration_eta=None, calibration_rate=None,
                 calibration_samples=None, calibration_candidates=None, calibration_max_trials=None,
                 pa_type=None, c=None, error_sensitive=None, averaging=None, variance=None, gamma=None,
                 verbose=False, model_filename=None, keep_tempfiles=None, trainer_cls=None,
                 scheme=None, seed=0, threads=0, patience=None, learning_rate=None):
        self.algorithm = algorithm
        self.min_freq = min_freq
        self.all_possible_states = all_possible_states
        self.all_possible_transitions = all_possible_transitions
        self.c1 = c1
        self.c2 = c2
        self.max_iterations = max_iterations
        self.num_memories = num_memories
        self.epsilon = epsilon
        self.period = period
        self.delta = delta
        self.linesearch = linesearch
        self.max_linesearch = max_linesearch
        self.calibration_eta = calibration_eta
        self.calibration_rate = calibration_rate
        self.calibration_samples = calibration_samples
        self.calibration_candidates = calibration_candidates
        self.calibration_max_trials = calibration_max_trials
        self.pa_type = pa_type
        self.c = c
        self.error_sensitive = error_sensitive
        self.averaging = averaging
        self.variance = variance
        self.gamma = gamma
        self.verbose = verbose
        self.model_filename = model_filename
        self.keep_tempfiles = keep_tempfiles
        self.trainer_cls = trainer_cls
        self.scheme = scheme
        self.seed = seed
        self.threads = threads
        self.patience = patience
        self.learning_rate = learning_rate
        self._model = None
        self._weights = None
        self.classes_ = None
        self.training_log_ = None
        self._learner()

    # -- settings ---------------------------------------------------------

    def _learner(self):
        """The trellis learner the settings stand for, {"type", "config"};
        ValueError or TypeError when they cannot be honoured."""
        algorithm = "lbfgs" if self.algorithm is None else self.algorithm
        if not isinstance(algorithm, str):
            raise TypeError("algorithm must be a str, got %s" % type(algorithm).__name__)
        algorithm = algorithm.lower()
        if algorithm not in _SETTINGS:
            raise ValueError("unknown algorithm %r; supported algorithms: %s" % (algorithm, _supported()))
        typ, names = _SETTINGS[algorithm]
        config = {}
        for name in sorted(_FLOATS | _INTS):
            value = getattr(self, name)
            if value is None:
                continue
            if name not in names:
                raise ValueError("%s is not a setting of algorithm %r (its settings: %s)"
                                 % (name, algorithm, ", ".join(sorted(names))))
            config[names[name]] = _number(name, value, name in _INTS)
        for name in _UNSUPPORTED:
            if getattr(self, name) is not None:
                raise ValueError("%s is a CRFsuite setting trellis has no counterpart for; leave it None" % name)
        if self.min_freq is not None:
            _number("min_freq", self.min_freq, False, minimum=0)
        if self.all_possible_transitions is False:
            raise ValueError("all_possible_transitions=False is not supported: trellis weights every "
                             "label transition, as all_possible_transitions=True does")
        if self.all_possible_states is not None:
            config["features"] = "all" if _flag("all_possible_states", self.all_possible_states) else "observed"
        if algorithm == "l2sgd":
            config["algorithm"] = "sgd"
        if self.averaging is not None:
            if algorithm not in _AVERAGED:
                raise ValueError("averaging is a setting of algorithms 'ap', 'pa' and 'arow'")
            config["average"] = _flag("averaging", self.averaging)
        if self.error_sensitive is not None:
            if algorithm != "pa":
                raise ValueError("error_sensitive is a setting of algorithm 'pa'")
            config["error_sensitive"] = _flag("error_sensitive", self.error_sensitive)
        for name in ("seed", "threads"):
            _number(name, getattr(self, name), True, minimum=0)
        if self.scheme is not None and not isinstance(self.scheme, str):
            raise TypeError("scheme must be a str, got %s" % type(self.scheme).__name__)
        return {"type": typ, "config": config}

    def get_params(self, deep=True):
        """The constructor's settings (scikit-learn's estimator protocol)."""
        names = [p for p in inspect.signature(CRF.__init__).parameters if p != "self"]
        return {name: getattr(self, name) for name in names}

    def set_params(self, **params):
        """Change settings (scikit-learn's estimator protocol); checked as
        the constructor checks them."""
        valid = self.get_params()
        old = dict(valid)
        for name, value in params.items():
            if name not in valid:
                raise ValueError("invalid parameter %r for CRF" % name)
            setattr(self, name, value)
        try:
            self._learner()
        except (TypeError, ValueError):
            for name, value in old.items():
                setattr(self, name, value)
            raise
        return self

    # -- training ---------------------------------------------------------

    def fit(self, X, y, X_dev=None, y_dev=None):
        """Train on X (sentences of token attributes) and y (their labels).
        With X_dev and y_dev, the learner uses them as trellis's dev
        corpus: the perceptron keeps its best epoch on them, and the CRF
        stops early on them when patience is set. Returns self."""
        learner = self._learner()
        settings = {"learner": learner, "seed": self.seed, "threads": self.threads, "verbose": bool(self.verbose)}
        if self.scheme is not None:
            settings["scheme"] = self.scheme
        if self.min_freq is not None:
            # Counts are whole: count >= min_freq is count >= ceil(min_freq).
            settings["min_count"] = int(math.ceil(self.min_freq))
        if (X_dev is None) != (y_dev is None):
            raise ValueError("give both X_dev and y_dev, or neither")
        train, _ = _features.encode(X, y)
        dev = None
        if X_dev is not None:
            dev, _ = _features.encode(X_dev, y_dev, "X_dev", "y_dev")
        model = Model.train(settings, train, dev)
        self._set_model(model)
        self.training_log_ = TrainingLog(model.training_log())
        if self.model_filename is not None:
            self.save(self.model_filename)
        return self

    def _set_model(self, model):
        if self._model is not None:
            self._model.close()
        self._model = model
        self._weights = None
        self.classes_ = list(model.info["labels"])

    # -- tagging ----------------------------------------------------------

    def _tag(self, X, marginals):
        model = self._fitted()
        if model.info["attributes"]:
            return model.tag_attributes(_features.encode(X)[0], marginals)
        return model.tag(_features.plain(X), marginals)

    def predict(self, X):
        """The labels of every sentence of X: a list of lists of str."""
        return self._tag(X, False)["labels"]

    def predict_single(self, xseq):
        """The labels of one sentence."""
        return self.predict([xseq])[0]

    def predict_marginals(self, X):
        """Per sentence, per token, a dict label -> P(label | sentence),
        over every label of classes_."""
        res = self._tag(X, True)
        labels = self.classes_
        return [[dict(zip(labels, p)) for p in sent] for sent in res["marginals"]]

    def predict_marginals_single(self, xseq):
        """predict_marginals of one sentence."""
        return self.predict_marginals([xseq])[0]

    def score(self, X, y):
        """Token accuracy of predict(X) against y."""
        pred = self.predict(X)
        gold = _features.labels(y, [len(p) for p in pred])
        total = sum(len(g) for g in gold)
        if total == 0:
            raise ValueError("no tokens to score")
        return sum(p == g for ps, gs in zip(pred, gold) for p, g in zip(ps, gs)) / total

    def tag_text(self, text, tokenizer=DEFAULT_TOKENIZER):
        """Tag raw text: split it into sentences and tokens with tokenizer
        (as trellis.tokenize: "en-tokenizer", "rules", "lines", "chars" or
        a tokenizer model path) and label each sentence's tokens.

        Returns a list with a dict per sentence, the object `trellis tag
        --input text --output json` prints: "start", "end" and "text" of
        the sentence; "tokens", each {"start", "end", "text", "label"};
        "labels", the tokens' labels as a list (predict's); for a model
        with a span scheme (iob2, bioes...), "spans", each {"start", "end",
        "label", "text", "first", "last"} (its tokens are first..last; the
        key is left out of a sentence with no span, so read it with
        .get("spans", [])); for a segmentation model (trellis's chars
        format, which always reads characters), "words". Offsets are
        indices into text: text[t["start"]:t["end"]] == t["text"].

        The model must read only the words: one `trellis run` trained on
        a corpus of columns with features of the word alone, loaded with
        CRF.load. A model trained by fit on attribute dicts (whose
        features the caller computes) or reading other columns raises
        TrellisError (a ValueError) with trellis's message."""
        return self._fitted().tag_text(text, tokenizer)

    # -- files ------------------------------------------------------------

    def save(self, path):
        """Write the model file (atomically) to path: the file `trellis run`
        writes, which `trellis tag --model` reads."""
        self._fitted().save(path)

    @classmethod
    def load(cls, path):
        """A CRF holding the model file at path: one saved by save(), or
        written by `trellis run`. A model trained on attributes (here, or
        by `trellis run` on a crfsuite corpus) takes X as fit does; one
        trained on columns takes each token as a str (its word) or a list
        of column values.

        path may also name a model shipped with trellis, where no file has
        that path: "en-upos" and "en-xpos" (POS taggers reading words),
        "en-tokenizer". A path that is neither raises FileNotFoundError."""
        crf = cls()
        try:
            model = Model.load(path)
        except TrellisError as e:
            # libtrellis's message also lists the shipped models' names.
            if not os.path.exists(path):
                raise FileNotFoundError(str(e)) from None
            raise
        crf._set_model(model)
        return crf

    def __getstate__(self):
        state = self.get_params()
        state["_model_bytes"] = None if self._model is None else self._model.to_bytes()
        log = self.training_log_
        state["_training_events"] = None if log is None else log.events
        return state

    def __setstate__(self, state):
        state = dict(state)
        data = state.pop("_model_bytes", None)
        events = state.pop("_training_events", None)
        self.__dict__.update(state)
        self._model, self._weights, self.classes_ = None, None, None
        self.training_log_ = None if events is None else TrainingLog(events)
        if data is not None:
            self._set_model(Model.from_bytes(data))

    # -- introspection (sklearn-crfsuite's attributes) --------------------

    def _params(self):
        """The model's weights (libtrellis's trellis_weights), read once;
        None without a model."""
        if self._model is None:
            return None
        if self._weights is None:
            self._weights = self._model.weights()
        return self._weights

    @property
    def size_(self):
        """The model's size in bytes (its file's, as save writes it)."""
        w = self._params()
        return None if w is None else w["size"]

    @property
    def attributes_(self):
        """The attributes the model weights: those with at least one
        non-zero state feature (CRFsuite keeps only these), in the model's
        order."""
        w = self._params()
        return None if w is None else list(w["attributes"])

    @property
    def num_attributes_(self):
        """The number of attributes_."""
        w = self._params()
        return None if w is None else len(w["attributes"])

    @property
    def state_features_(self):
        """{(attribute, label): weight} for every non-zero state feature.
        For a latent model (hidden states) the label is the state's name,
        "B-NP#1"."""
        w = self._params()
        if w is None:
            return None
        attrs, states, st = w["attributes"], w["states"], w["state"]
        return {(attrs[a], states[y]): x for a, y, x in zip(st["attr"], st["label"], st["weight"])}

    @property
    def transition_features_(self):
        """{(label_from, label_to): weight} for every non-zero transition
        weight ({} for a model without transitions)."""
        w = self._params()
        if w is None:
            return None
        states = w["states"]
        return {(states[p], states[c]): x for p, row in enumerate(w["transitions"])
                for c, x in enumerate(row) if x != 0}

    @property
    def start_features_(self):
        """{label: weight} of a sequence starting with label (trellis's;
        CRFsuite has none), non-zero ones."""
        return self._boundary("start")

    @property
    def stop_features_(self):
        """{label: weight} of a sequence ending with label (trellis's),
        non-zero ones."""
        return self._boundary("stop")

    def _boundary(self, key):
        w = self._params()
        if w is None:
            return None
        return {label: x for label, x in zip(w["states"], w[key]) if x != 0}

    @property
    def learner_(self):
        """The trellis learner that made the model: "crf", "perceptron",
        "hmm"."""
        return self._fitted().info["learner"]

    def _fitted(self):
        if self._model is None:
            raise AttributeError("this CRF has no model yet: call fit (or CRF.load)")
        return self._model

    def __repr__(self):
        set_params = ", ".join("%s=%r" % kv for kv in self.get_params().items()
                               if kv[1] != inspect.signature(CRF.__init__).parameters[kv[0]].default)
        return "CRF(%s)" % set_params


def _number(name, value, integer, minimum=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s must be %s, got %s %r"
                        % (name, "an int" if integer else "a number", type(value).__name__, value))
    if integer:
        if value != int(value):
            raise TypeError("%s must be an int, got %r" % (name, value))
        value = int(value)
    else:
        value = float(value)
        if not math.isfinite(value):
            raise ValueError("%s must be a finite number, got %r" % (name, value))
    if minimum is not None and value < minimum:
        raise ValueError("%s must be >= %s, got %r" % (name, minimum, value))
    return value


def _flag(name, value):
    if not isinstance(value, bool):
        raise TypeError("%s must be True or False, got %s %r" % (name, type(value).__name__, value))
    return value
