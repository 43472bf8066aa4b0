"""Tests of the trellis Python package, standard library only.

Run from cmd/libtrellis/python with libtrellis built:

    go build -buildmode=c-shared -o /tmp/libtrellis.so ./cmd/libtrellis
    TRELLIS_LIB=/tmp/libtrellis.so python3 -m unittest discover -s tests -v

or, with TRELLIS_TEST_INSTALLED=1, against the trellis package installed in
the running Python (ci.sh: pip installs it in a fresh virtualenv and runs
these from outside the tree, with neither PYTHONPATH nor TRELLIS_LIB).

The round trips with the trellis command use $TRELLIS_BIN, or build it
with go.
"""

import json
import math
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.dirname(HERE)
ROOT = os.path.abspath(os.path.join(PYDIR, "..", "..", ".."))
INSTALLED = os.environ.get("TRELLIS_TEST_INSTALLED") == "1"
if not INSTALLED:
    sys.path.insert(0, PYDIR)

import trellis  # noqa: E402

# The folder of the package under test.
PKGDIR = os.path.dirname(os.path.abspath(trellis.__file__))
if INSTALLED and os.path.dirname(PKGDIR) == PYDIR:
    raise ImportError("TRELLIS_TEST_INSTALLED=1, but trellis was imported from the source tree %s: "
                      "run the tests from another folder" % PYDIR)

SAMPLE = os.path.join(ROOT, "specs", "data", "ud-ewt-sample")


def read_conllu(path, limit=None):
    """(words, upos) per sentence of a CoNLL-U file."""
    sents, words, tags = [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if words:
                    sents.append((words, tags))
                    words, tags = [], []
                    if limit and len(sents) == limit:
                        break
                continue
            if line.startswith("#"):
                continue
            cols = line.split("\t")
            if "-" in cols[0] or "." in cols[0]:
                continue
            words.append(cols[1])
            tags.append(cols[3])
    if words:
        sents.append((words, tags))
    return sents


def word2features(sent, i):
    """sklearn-crfsuite's tutorial features, every kind of value."""
    word = sent[i]
    f = {
        "bias": 1.0,
        "word.lower()": word.lower(),
        "word[-3:]": word[-3:],
        "word[-2:]": word[-2:],
        "word.isupper()": word.isupper(),
        "word.istitle()": word.istitle(),
        "word.isdigit()": word.isdigit(),
        "len": len(word) / 10,
    }
    if i > 0:
        f["-1"] = {"word.lower()": sent[i - 1].lower(), "word.istitle()": sent[i - 1].istitle()}
    else:
        f["BOS"] = True
    if i < len(sent) - 1:
        f["+1:word.lower()"] = sent[i + 1].lower()
    else:
        f["EOS"] = True
    return f


def sent2features(words):
    return [word2features(words, i) for i in range(len(words))]


def ud(name, limit):
    sents = read_conllu(os.path.join(SAMPLE, name), limit)
    return [sent2features(w) for w, _ in sents], [t for _, t in sents], [w for w, _ in sents]


# A small synthetic chunking set: the attributes are the word and its
# left neighbour, as lists of names.
CHUNKS = [
    "the/B-NP dog/I-NP barks/B-VP at/B-PP the/B-NP cat/I-NP",
    "a/B-NP cat/I-NP sleeps/B-VP",
    "the/B-NP big/I-NP dog/I-NP sees/B-VP a/B-NP bird/I-NP",
    "dogs/B-NP bark/B-VP",
    "a/B-NP bird/I-NP sings/B-VP in/B-PP the/B-NP tree/I-NP",
]


def chunk_data():
    X, y = [], []
    for line in CHUNKS:
        toks = [t.split("/") for t in line.split()]
        words = [w for w, _ in toks]
        X.append([["w=" + w] + (["w[-1]=" + words[i - 1]] if i else ["BOS"]) for i, w in enumerate(words)])
        y.append([l for _, l in toks])
    return X, y


def child_env(**extra):
    """The environment of a Python subprocess that imports the trellis
    package under test: the tree's (PYTHONPATH, TRELLIS_LIB), or the
    installed one, found with neither."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if INSTALLED:
        env.pop("PYTHONPATH", None)
        env.pop("TRELLIS_LIB", None)
    else:
        env.update(PYTHONPATH=PYDIR, TRELLIS_LIB=trellis.library_path())
    env.update(extra)
    return env


_TRELLIS = None


def trellis_command():
    """The trellis command: $TRELLIS_BIN, or built with go once."""
    global _TRELLIS
    if _TRELLIS:
        return _TRELLIS
    if os.environ.get("TRELLIS_BIN"):
        _TRELLIS = os.environ["TRELLIS_BIN"]
        return _TRELLIS
    go = shutil.which("go")
    if go is None:
        raise unittest.SkipTest("the trellis command is needed: set TRELLIS_BIN or put go on PATH")
    out = os.path.join(tempfile.mkdtemp(prefix="trellis-bin-"), "trellis")
    subprocess.run([go, "build", "-o", out, "./cmd/trellis"], cwd=ROOT, check=True)
    _TRELLIS = out
    return out


def run(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw)


def crfsuite_line(label, token):
    """A token in CRFsuite's file format, escaping ':' and '\\' in names."""
    fields = [label]
    for name, value in token:
        name = name.replace("\\", "\\\\").replace(":", "\\:")
        fields.append(name if value == 1.0 else "%s:%r" % (name, value))
    return "\t".join(fields)


def flatten(token):
    """A token dict as (name, value) pairs, as the package flattens it."""
    from trellis import _features
    names, values = _features.token(token, [0, 0])
    return list(zip(names, values))


class UDTest(unittest.TestCase):
    """Training on the UD English EWT sample shipped with trellis."""

    @classmethod
    def setUpClass(cls):
        cls.X, cls.y, _ = ud("train.conllu", 400)
        cls.Xd, cls.yd, cls.wd = ud("dev.conllu", 100)
        cls.crf = trellis.CRF(algorithm="lbfgs", c1=0.05, c2=0.05, max_iterations=60, seed=1)
        cls.crf.fit(cls.X, cls.y)

    def test_fit_predict(self):
        crf = self.crf
        self.assertEqual(sorted(crf.classes_), sorted({t for ts in self.y for t in ts}))
        self.assertEqual(crf.learner_, "crf")
        pred = crf.predict(self.Xd)
        self.assertEqual([len(p) for p in pred], [len(x) for x in self.Xd])
        acc = crf.score(self.Xd, self.yd)
        # 400 training sentences: about 0.87 (printed for the record).
        print("\nUD sample dev accuracy: %.4f" % acc, file=sys.stderr)
        self.assertGreater(acc, 0.8)
        self.assertEqual(crf.predict_single(self.Xd[3]), pred[3])
        self.assertEqual(crf.predict([]), [])
        self.assertEqual(crf.predict([[]]), [[]])

    def test_marginals(self):
        crf = self.crf
        marg = crf.predict_marginals(self.Xd[:20])
        pred = crf.predict(self.Xd[:20])
        agree = total = 0
        for k, sent in enumerate(marg):
            self.assertEqual(len(sent), len(self.Xd[k]))
            for i, p in enumerate(sent):
                self.assertEqual(sorted(p), sorted(crf.classes_))
                self.assertAlmostEqual(sum(p.values()), 1.0, places=9)
                self.assertTrue(all(0.0 <= v <= 1.0 for v in p.values()))
                agree += max(p, key=p.get) == pred[k][i]
                total += 1
        # Viterbi's path and the per-token most probable labels can
        # differ, rarely.
        self.assertGreater(agree / total, 0.95)
        self.assertEqual(crf.predict_marginals_single(self.Xd[2]), marg[2])

    def test_dev_set(self):
        # The perceptron keeps its best epoch on the dev set.
        ap = trellis.CRF(algorithm="ap", max_iterations=3, seed=1)
        ap.fit(self.X, self.y, X_dev=self.Xd, y_dev=self.yd)
        self.assertEqual(ap.learner_, "perceptron")
        self.assertGreater(ap.score(self.Xd, self.yd), 0.8)
        with self.assertRaisesRegex(ValueError, "X_dev and y_dev"):
            ap.fit(self.X, self.y, X_dev=self.Xd)
        with self.assertRaisesRegex(ValueError, r"X_dev\[1\] has \d+ tokens, y_dev\[1\] has \d+ labels"):
            ap.fit(self.X, self.y, X_dev=self.Xd[:2], y_dev=[self.yd[0], self.yd[0]])

    def test_trellis_tag_round_trip(self):
        """A saved model is the file `trellis tag` reads: it labels the dev
        sentences, written in CRFsuite's format, as predict does, with the
        marginals predict_marginals gives."""
        cmd = trellis_command()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "pos.model")
            self.crf.save(path)
            data = os.path.join(d, "dev.crfsuite")
            with open(data, "w", encoding="utf-8") as f:
                for xseq, ys in zip(self.Xd, self.yd):
                    for x, label in zip(xseq, ys):
                        f.write(crfsuite_line(label, flatten(x)) + "\n")
                    f.write("\n")
            out = run([cmd, "tag", "--model", path, "--marginals", data]).stdout
            got, sent = [], []
            for line in out.split("\n"):
                if not line.strip():
                    if sent:
                        got.append(sent)
                        sent = []
                    continue
                # The input line, then the label and its marginal.
                fields = line.split("\t")
                sent.append((fields[-2], float(fields[-1])))
            pred = self.crf.predict(self.Xd)
            marg = self.crf.predict_marginals(self.Xd)
            self.assertEqual([[l for l, _ in s] for s in got], pred)
            for k, s in enumerate(got):
                for i, (label, p) in enumerate(s):
                    self.assertAlmostEqual(marg[k][i][label], p, places=4)
            loaded = trellis.CRF.load(path)
            self.assertEqual(loaded.predict(self.Xd), pred)
            self.assertEqual(loaded.classes_, self.crf.classes_)


class AlgorithmTest(unittest.TestCase):
    def test_each_algorithm(self):
        X, y = chunk_data()
        for algorithm, learner, kw in [
            ("lbfgs", "crf", {"c1": 0.01, "c2": 0.01, "num_memories": 4, "epsilon": 1e-6, "period": 5, "delta": 1e-6}),
            ("l2sgd", "crf", {"c2": 0.01, "max_iterations": 30, "learning_rate": 0.5}),
            ("ap", "perceptron", {"max_iterations": 20, "averaging": True}),
            ("LBFGS", "crf", {"c2": 0.01, "all_possible_states": True, "all_possible_transitions": True}),
        ]:
            with self.subTest(algorithm=algorithm):
                crf = trellis.CRF(algorithm=algorithm, **kw).fit(X, y)
                self.assertEqual(crf.learner_, learner)
                self.assertEqual(crf.predict(X), y)

    def test_settings_reach_trellis(self):
        X, y = chunk_data()
        def confidence(**kw):
            m = trellis.CRF(**kw).fit(X, y).predict_marginals_single(X[0])
            return min(max(p.values()) for p in m)
        # Strong regularization flattens the marginals; one iteration
        # barely leaves the uniform start.
        self.assertGreater(confidence(c2=0.01), confidence(c2=10.0) + 0.2)
        self.assertGreater(confidence(c2=0.01), confidence(c2=0.01, max_iterations=1) + 0.2)
        ap1 = trellis.CRF(algorithm="ap", max_iterations=1, averaging=False).fit(X, y)
        ap2 = trellis.CRF(algorithm="ap", max_iterations=1).fit(X, y)
        self.assertNotEqual(ap1.predict_marginals(X), ap2.predict_marginals(X))

    def test_online_algorithms(self):
        """pa and arow train trellis's pa and arow learners with their
        settings: they learn the training data, and their settings change
        the model."""
        X, y = chunk_data()
        for kw in ({"algorithm": "pa"}, {"algorithm": "pa", "pa_type": 2, "c": 0.5, "error_sensitive": False},
                   {"algorithm": "arow"}, {"algorithm": "arow", "variance": 0.5, "gamma": 2.0, "averaging": False}):
            with self.subTest(kw=kw):
                crf = trellis.CRF(max_iterations=5, **kw).fit(X, y)
                pred = crf.predict(X)
                right = sum(p == g for ps, gs in zip(pred, y) for p, g in zip(ps, gs))
                self.assertGreater(right / sum(len(gs) for gs in y), 0.9)
        a = trellis.CRF(algorithm="pa", max_iterations=1, pa_type=0).fit(X, y)
        b = trellis.CRF(algorithm="pa", max_iterations=1, pa_type=1, c=0.001).fit(X, y)
        self.assertNotEqual(a.predict_marginals(X), b.predict_marginals(X))

    def test_unsupported_algorithms(self):
        with self.assertRaisesRegex(ValueError, "unknown algorithm 'sgd'; supported algorithms"):
            trellis.CRF(algorithm="sgd")

    def test_bad_settings(self):
        cases = [
            ({"c2": "1"}, TypeError, "c2 must be a number, got str"),
            ({"c1": True}, TypeError, "c1 must be a number"),
            ({"c2": float("nan")}, ValueError, "c2 must be a finite number"),
            ({"max_iterations": 1.5}, TypeError, "max_iterations must be an int"),
            ({"algorithm": 3}, TypeError, "algorithm must be a str"),
            ({"algorithm": "l2sgd", "c1": 0.1}, ValueError, "c1 is not a setting of algorithm 'l2sgd'"),
            ({"algorithm": "ap", "c2": 0.1}, ValueError, "c2 is not a setting of algorithm 'ap'"),
            ({"averaging": False}, ValueError, "averaging is a setting of algorithms 'ap', 'pa' and 'arow'"),
            ({"algorithm": "arow", "c": 1.0}, ValueError, "c is not a setting of algorithm 'arow'"),
            ({"algorithm": "ap", "error_sensitive": True}, ValueError, "error_sensitive is a setting of algorithm 'pa'"),
            ({"all_possible_transitions": False}, ValueError, "all_possible_transitions=False is not supported"),
            ({"all_possible_states": 1}, TypeError, "all_possible_states must be True or False"),
            ({"linesearch": "Backtracking"}, ValueError, "linesearch is a CRFsuite setting"),
            ({"min_freq": -1}, ValueError, "min_freq must be >= 0"),
            ({"min_freq": "2"}, TypeError, "min_freq must be a number"),
            ({"seed": -1}, ValueError, "seed must be >= 0"),
            ({"scheme": 2}, TypeError, "scheme must be a str"),
        ]
        for kw, exc, msg in cases:
            with self.subTest(kw=kw):
                with self.assertRaisesRegex(exc, msg):
                    trellis.CRF(**kw)

    def test_trellis_errors(self):
        """Settings trellis itself refuses raise TrellisError (a
        ValueError) with trellis's message."""
        X, y = chunk_data()
        for kw, msg in [
            ({"c2": -1.0}, "c2 must be a finite number >= 0"),
            ({"scheme": "iob9"}, "Unknown label scheme"),
            ({"max_iterations": -3}, "max_iterations"),
        ]:
            with self.subTest(kw=kw):
                with self.assertRaisesRegex(trellis.TrellisError, msg):
                    trellis.CRF(**kw).fit(X, y)
        with self.assertRaisesRegex(trellis.TrellisError, "train sentence 2: no tokens"):
            trellis.CRF().fit([X[0], []], [y[0], []])

    def test_params_and_pickle(self):
        X, y = chunk_data()
        crf = trellis.CRF(c2=0.01, scheme="iob2")
        self.assertEqual(crf.get_params()["c2"], 0.01)
        self.assertIs(crf.set_params(c1=0.01), crf)
        self.assertEqual(crf.c1, 0.01)
        with self.assertRaisesRegex(ValueError, "invalid parameter 'c3'"):
            crf.set_params(c3=1)
        with self.assertRaisesRegex(ValueError, "c1 is not a setting of algorithm 'ap'"):
            crf.set_params(algorithm="ap")
        self.assertEqual(crf.algorithm, None)  # a refused change is undone
        self.assertEqual(repr(crf), "CRF(c1=0.01, c2=0.01, scheme='iob2')")
        with self.assertRaisesRegex(AttributeError, "no model yet"):
            crf.predict(X)
        crf.fit(X, y)
        back = pickle.loads(pickle.dumps(crf))
        self.assertEqual(back.get_params(), crf.get_params())
        self.assertEqual(back.classes_, crf.classes_)
        self.assertEqual(back.predict_marginals(X), crf.predict_marginals(X))
        unfitted = pickle.loads(pickle.dumps(trellis.CRF(c2=0.5)))
        self.assertEqual(unfitted.c2, 0.5)
        self.assertIsNone(unfitted.classes_)


class InputTest(unittest.TestCase):
    def test_token_forms_are_equivalent(self):
        """Each of sklearn-crfsuite's token forms is the attributes it
        stands for: str values are key=value, bools 1/0, numbers real
        values, nested dicts and lists prefix their keys with "key:"."""
        X, y = chunk_data()
        Xd = [[dict(n.split("=", 1) if "=" in n else (n, True) for n in tok) for tok in xseq] for xseq in X]
        nested = [[{"n": dict(t)} for t in xseq] for xseq in Xd]
        prefixed = [[{"n:" + k: v for k, v in t.items()} for t in xseq] for xseq in Xd]
        a = trellis.CRF(c2=0.1).fit(X, y).predict_marginals(X)
        b = trellis.CRF(c2=0.1).fit(Xd, y).predict_marginals(X)
        self.assertEqual(a, b)
        c = trellis.CRF(c2=0.1).fit(nested, y).predict_marginals(nested)
        d = trellis.CRF(c2=0.1).fit(prefixed, y).predict_marginals(prefixed)
        self.assertEqual(c, d)
        from trellis import _features
        self.assertEqual(
            _features.token({"w": "a", "up": True, "dig": False, "len": 3, "p": {"x": 0.5}, "q": ["u", "v"],
                             "s": {"z"}}, [0, 0]),
            (["w=a", "up", "dig", "len", "p:x", "q:u", "q:v", "s:z"], [1.0, 1.0, 0.0, 3.0, 0.5, 1.0, 1.0, 1.0]))
        self.assertEqual(_features.token(["x", "y"], [0, 0]), (["x", "y"], [1.0, 1.0]))

    def test_real_values_matter(self):
        X, y = chunk_data()
        scaled = [[{"w": t[0], "bias": 2.0} for t in xseq] for xseq in X]
        plain = [[{"w": t[0], "bias": 1.0} for t in xseq] for xseq in X]
        a = trellis.CRF(c2=1.0).fit(scaled, y).predict_marginals(scaled)
        b = trellis.CRF(c2=1.0).fit(plain, y).predict_marginals(plain)
        self.assertNotEqual(a, b)

    def test_names_need_no_escaping(self):
        """Attribute names and labels with colons, backslashes, tabs and
        newlines train and tag (JSON carries them; CRFsuite's text format
        could not)."""
        X = [[["a:1", "t\tab"], ["b\\:2", "new\nline"]], [["a:1"], ["b\\:2"]]]
        y = [["X:1", "Y\t2"], ["X:1", "Y\t2"]]
        crf = trellis.CRF(c2=0.01).fit(X, y)
        self.assertEqual(sorted(crf.classes_), ["X:1", "Y\t2"])
        self.assertEqual(crf.predict([[["a:1"], ["new\nline"]]]), [["X:1", "Y\t2"]])

    def test_nul_is_refused(self):
        with self.assertRaisesRegex(ValueError, "attribute name 'a\\\\x00b' contains NUL"):
            trellis.CRF().fit([[["a\0b"]]], [["A"]])
        with self.assertRaisesRegex(ValueError, "label 'A\\\\x00' contains NUL"):
            trellis.CRF().fit([[["a"]]], [["A\0"]])

    def test_bad_input(self):
        X, y = chunk_data()
        crf = trellis.CRF()
        cases = [
            (X, y[:-1], ValueError, "X has 5 sentences, y has 4"),
            (X, [y[0][:-1]] + y[1:], ValueError, r"X\[0\] has 6 tokens, y\[0\] has 5 labels"),
            (X, ["B-NP"] + y[1:], TypeError, r"y\[0\]: a label sequence is a list of str"),
            (X, [[1] * len(y[0])] + y[1:], TypeError, r"y\[0\]\[0\]: labels are str, got int"),
            ([[{"w": None}]], [["A"]], TypeError, r"X\[0\]\[0\]\['w'\]: a value is a str, bool, number, dict, list or set, got NoneType"),
            ([[{"w": float("nan")}]], [["A"]], ValueError, r"X\[0\]\[0\]\['w'\]: value nan is not a finite number"),
            ([[{"w": {"x": float("inf")}}]], [["A"]], ValueError, r"X\[0\]\[0\]\['w'\]\['x'\]: value inf"),
            ([[{1: "a"}]], [["A"]], TypeError, r"X\[0\]\[0\]: attribute names are strings, got int 1"),
            ([[7]], [["A"]], TypeError, r"X\[0\]\[0\]: a token is a dict of attributes or a list of attribute names, got int"),
            ([["word"]], [["A"]], TypeError, r"X\[0\]\[0\]: a token is a dict .* got str"),
            ([[["a", 2]]], [["A"]], TypeError, r"X\[0\]\[0\]: a list of attributes holds names \(str\), got int at index 1"),
            (["abc"], [["A"]], TypeError, r"X\[0\] is a list of tokens, got str"),
            ("abc", [["A"]], TypeError, "X is a list of sentences, got str"),
        ]
        for X_, y_, exc, msg in cases:
            with self.subTest(msg=msg):
                with self.assertRaisesRegex(exc, msg):
                    crf.fit(X_, y_)
        crf.fit(X, y)
        with self.assertRaisesRegex(TypeError, r"X\[1\]\[0\]: a token is a dict"):
            crf.predict([X[0], [None]])


class CommandModelTest(unittest.TestCase):
    def test_load_trellis_run_model(self):
        """A model `trellis run` made on a corpus of columns loads and tags
        words (or rows) as `trellis tag` does."""
        cmd = trellis_command()
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "train.txt"), "w") as f:
                for line in CHUNKS:
                    f.write("\n".join(t.replace("/", " ") for t in line.split()) + "\n\n")
            with open(os.path.join(d, "spec.hcl"), "w") as f:
                f.write("""experiment "chunks" {
  seed = 1
}
corpus "train" {
  path    = "train.txt"
  format  = "conll"
  columns = ["word", "chunk"]
}
labels {
  column = "chunk"
  scheme = "iob2"
}
features {
  emission "w" {
    column  = "word"
    offsets = [-1, 0]
  }
  transition "t" {}
}
learner "crf" {
  type = "crf"
  c2   = 0.1
}
evaluation {
  train = "train"
  test  = "train"
}
""")
            run([cmd, "run", os.path.join(d, "spec.hcl"), "--out", os.path.join(d, "run")])
            path = os.path.join(d, "run", "models", "crf.model")
            crf = trellis.CRF.load(path)
            self.assertEqual(crf.learner_, "crf")
            words = [["the", "cat", "sees", "a", "dog"], ["dogs", "sing"]]
            out = run([cmd, "tag", "--model", path, "--input", "tokens"],
                      input="".join("\n".join(w) + "\n\n" for w in words)).stdout
            want = [[l.split("\t")[1] for l in block.split("\n") if l]
                    for block in out.strip("\n").split("\n\n")]
            self.assertEqual(crf.predict(words), want)
            self.assertEqual(crf.predict([[[w] for w in ws] for ws in words]), want)  # rows
            self.assertEqual(len(crf.predict_marginals(words)[0]), 5)
            # The weights of a spec's templates, named as `trellis inspect` names them.
            self.assertIn(("w[0]=cat", "I-NP"), crf.state_features_)
            self.assertEqual({l for t in crf.transition_features_ for l in t}, set(crf.classes_))
            self.assertEqual(crf.size_, os.path.getsize(path))
            with self.assertRaisesRegex(TypeError, "reads words"):
                crf.predict([[{"w": "the"}]])
        with self.assertRaises(FileNotFoundError):
            trellis.CRF.load(os.path.join(HERE, "no-such.model"))
        with tempfile.NamedTemporaryFile(suffix=".model") as f:
            f.write(b"not a model")
            f.flush()
            with self.assertRaisesRegex(trellis.TrellisError, "not a trellis model file"):
                trellis.CRF.load(f.name)

    def test_load_neural_run_model(self):
        """A model with a neural encoder (a BiLSTM-CRF that `trellis run`
        trained) loads unchanged and tags words as `trellis tag` does."""
        cmd = trellis_command()
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "train.txt"), "w") as f:
                for line in CHUNKS:
                    f.write("\n".join(t.replace("/", " ") for t in line.split()) + "\n\n")
            with open(os.path.join(d, "spec.hcl"), "w") as f:
                f.write("""experiment "chunks" {
  seed = 1
}
corpus "train" {
  path    = "train.txt"
  format  = "conll"
  columns = ["word", "chunk"]
}
labels {
  column = "chunk"
  scheme = "iob2"
}
features {
  transition "t" {}
}
encoder "bilstm" {
  word_dim     = 6
  char_dim     = 4
  char_filters = 4
  hidden       = 6
  epochs       = 5
  batch_size   = 2
}
learner "bilstm_crf" {
  type    = "crf"
  encoder = "bilstm"
}
evaluation {
  train = "train"
  test  = "train"
}
""")
            run([cmd, "run", os.path.join(d, "spec.hcl"), "--out", os.path.join(d, "run")])
            path = os.path.join(d, "run", "models", "bilstm_crf.model")
            crf = trellis.CRF.load(path)
            words = [["the", "cat", "sees", "a", "dog"], ["dogs", "sing", "unseen"]]
            out = run([cmd, "tag", "--model", path, "--input", "tokens"],
                      input="".join("\n".join(w) + "\n\n" for w in words)).stdout
            want = [[l.split("\t")[1] for l in block.split("\n") if l]
                    for block in out.strip("\n").split("\n\n")]
            self.assertEqual(crf.predict(words), want)
            self.assertEqual(len(crf.predict_marginals(words)[1]), 3)
            self.assertEqual(crf.size_, os.path.getsize(path))
            self.assertIsInstance(crf.state_features_, dict)  # the network's weights are not listed

    def test_model_filename(self):
        X, y = chunk_data()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.model")
            crf = trellis.CRF(c2=0.1, model_filename=path).fit(X, y)
            self.assertEqual(trellis.CRF.load(path).predict(X), crf.predict(X))
            with self.assertRaisesRegex(trellis.TrellisError, "no-such-dir"):
                crf.save(os.path.join(d, "no-such-dir", "m.model"))


class GILTest(unittest.TestCase):
    def test_training_releases_the_gil(self):
        """While one thread is inside libtrellis's training call, another
        runs Python: the library is a ctypes.CDLL, which releases the GIL
        around foreign calls. (Loaded with ctypes.PyDLL, the counter does
        not move during the call and this fails.)"""
        import ctypes
        from trellis import _features, _native
        X, y, _ = ud("train.conllu", 200)
        settings = json.dumps({"learner": {"type": "crf", "config": {"max_iterations": 20}}, "threads": 1}).encode()
        data, _ = _features.encode(X, y)
        lib = _native.lib()
        counter = [0]
        during = []
        started, done = threading.Event(), threading.Event()

        def train():
            err = ctypes.c_void_p()
            started.set()
            before = counter[0]
            h = lib.trellis_train(_native.buf(settings), _native.buf(data), _native.buf(None), ctypes.byref(err))
            during.append(counter[0] - before)
            done.set()
            self.assertNotEqual(h, 0)
            lib.trellis_free(h)

        # A switch interval longer than the call keeps Python from
        # forcing the GIL over to the main thread around the call: only
        # the call's own release lets the main thread run during it. The
        # main thread yields now and then (sleep(0)) so that the training
        # thread gets the GIL back promptly after the call.
        interval = sys.getswitchinterval()
        sys.setswitchinterval(5.0)
        try:
            t = threading.Thread(target=train)
            t.start()
            started.wait()
            while not done.is_set():
                counter[0] += 1
                if counter[0] % 100000 == 0:
                    time.sleep(0)
            t.join()
        finally:
            sys.setswitchinterval(interval)
        self.assertGreater(during[0], 1000, "the main thread did not run while the other trained")


class FilesTest(unittest.TestCase):
    def test_no_temporary_files(self):
        """fit, predict, pickling and save write nothing but the saved
        model: not in $TMPDIR, not in the working directory, not beside
        the model."""
        with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as cwd, \
                tempfile.TemporaryDirectory() as out:
            prog = ("import pickle, trellis\n"
                    "X = [[['w=a', 'x'], ['w=b']], [['w=b'], ['w=a']]]\n"
                    "crf = trellis.CRF(c2=0.1).fit(X, [['A', 'B'], ['B', 'A']], X_dev=X, y_dev=[['A', 'B'], ['B', 'A']])\n"
                    "crf.predict_marginals(X)\n"
                    "pickle.loads(pickle.dumps(crf)).predict(X)\n"
                    "crf.save(%r)\n" % os.path.join(out, "m.model"))
            env = child_env(TMPDIR=tmp)
            subprocess.run([sys.executable, "-c", prog], cwd=cwd, env=env, check=True)
            self.assertEqual(os.listdir(tmp), [])
            self.assertEqual(os.listdir(cwd), [])
            self.assertEqual(os.listdir(out), ["m.model"])

    def test_verbose(self):
        """verbose=True logs training progress to standard error; by
        default nothing is printed."""
        prog = ("import trellis\n"
                "trellis.CRF(c2=0.1, max_iterations=3, verbose=%s).fit([[['a'], ['b']]], [['A', 'B']])\n")
        env = child_env()
        loud = run([sys.executable, "-c", prog % True], env=env)
        self.assertIn("crf iteration", loud.stderr)
        self.assertIn("iteration=3", loud.stderr)
        quiet = run([sys.executable, "-c", prog % False], env=env)
        self.assertEqual((quiet.stdout, quiet.stderr), ("", ""))

    def test_threads_share_a_model(self):
        X, y = chunk_data()
        crf = trellis.CRF(c2=0.1).fit(X, y)
        want = crf.predict_marginals(X)
        results = []
        threads = [threading.Thread(target=lambda: results.append(crf.predict_marginals(X))) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(results, [want] * 4)


class IntrospectionTest(unittest.TestCase):
    """sklearn-crfsuite's model attributes: attributes_, state_features_,
    transition_features_, size_, num_attributes_, and trellis's
    start_features_ and stop_features_."""

    @classmethod
    def setUpClass(cls):
        cls.X, cls.y, _ = ud("train.conllu", 150)
        cls.Xd, _, _ = ud("dev.conllu", 40)
        # c1 > 0: L1 zeroes weights, which are then not listed.
        cls.crf = trellis.CRF(c1=0.05, c2=0.01, max_iterations=30, seed=1).fit(cls.X, cls.y)

    def test_weights_tag_as_predict(self):
        """Viterbi over the listed weights gives predict's labels: the
        attributes are named and valued as X's tokens flatten, a
        transition goes from its first label to its second, and nothing
        the model scores with is missing."""
        crf = self.crf
        state = {}
        for (attr, label), w in crf.state_features_.items():
            state.setdefault(attr, {})[label] = w
        trans, start, stop = crf.transition_features_, crf.start_features_, crf.stop_features_
        labels = crf.classes_

        def viterbi(xseq):
            best = None  # label -> (score, path)
            for x in xseq:
                emit = {l: sum(v * state.get(a, {}).get(l, 0.0) for a, v in flatten(x)) for l in labels}
                if best is None:
                    best = {l: (start.get(l, 0.0) + emit[l], [l]) for l in labels}
                    continue
                best = {l: max((s + trans.get((p, l), 0.0) + emit[l], path + [l]) for p, (s, path) in best.items())
                        for l in labels}
            return max((s + stop.get(l, 0.0), path) for l, (s, path) in best.items())[1]

        self.assertEqual([viterbi(x) for x in self.Xd], crf.predict(self.Xd))

    def test_shapes(self):
        crf = self.crf
        names = {a for xseq in self.X for x in xseq for a, _ in flatten(x)}
        attrs = crf.attributes_
        self.assertEqual(crf.num_attributes_, len(attrs))
        self.assertEqual(len(set(attrs)), len(attrs))
        self.assertLess(set(attrs), names)  # L1 dropped some
        self.assertEqual({a for a, _ in crf.state_features_}, set(attrs))
        self.assertTrue(all(l in crf.classes_ for _, l in crf.state_features_))
        self.assertTrue(all(w != 0 and isinstance(w, float) for w in crf.state_features_.values()))
        self.assertTrue(all(isinstance(k, tuple) and len(k) == 2 for k in crf.transition_features_))
        self.assertTrue(all(w != 0 for w in crf.transition_features_.values()))
        self.assertTrue(set(crf.start_features_) <= set(crf.classes_))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.model")
            crf.save(path)
            self.assertEqual(crf.size_, os.path.getsize(path))
            loaded = trellis.CRF.load(path)
            self.assertEqual(loaded.state_features_, crf.state_features_)
            self.assertEqual(loaded.transition_features_, crf.transition_features_)
            self.assertIsNone(loaded.training_log_)
        back = pickle.loads(pickle.dumps(crf))
        self.assertEqual(back.attributes_, attrs)
        unfitted = trellis.CRF()
        for name in ("attributes_", "num_attributes_", "state_features_", "transition_features_", "size_",
                     "classes_", "training_log_", "start_features_", "stop_features_"):
            self.assertIsNone(getattr(unfitted, name), name)

    def test_training_log(self):
        log = self.crf.training_log_
        nums = [it["num"] for it in log.iterations]
        self.assertEqual(nums, list(range(1, len(nums) + 1)))
        self.assertGreater(len(nums), 5)
        self.assertLessEqual(len(nums), 30)
        losses = [it["loss"] for it in log.iterations]
        # L-BFGS accepts a step only when it lowers the objective.
        self.assertTrue(all(b <= a for a, b in zip(losses, losses[1:])), losses)
        self.assertIs(log.last_iteration, log.iterations[-1])
        self.assertTrue(all(it["time"] >= 0 for it in log.iterations))
        self.assertAlmostEqual(log.training_seconds, sum(it["time"] for it in log.iterations))
        self.assertTrue(any(line.startswith("crf iteration iteration=3 ") for line in log.log), log.log)
        back = pickle.loads(pickle.dumps(self.crf))
        self.assertEqual(back.training_log_.iterations, log.iterations)

    def test_training_log_of_online_learners(self):
        X, y = chunk_data()
        crf = trellis.CRF(algorithm="ap", max_iterations=3).fit(X, y, X_dev=X, y_dev=y)
        its = crf.training_log_.iterations
        self.assertEqual([it["num"] for it in its], [1, 2, 3])
        self.assertTrue(all(0 <= it["train_error"] <= 1 and 0 <= it["dev_score"] <= 1 for it in its), its)

    def test_min_freq(self):
        """min_freq=N trains without the attributes seen fewer than N times
        in X (trellis's min_count); counts are whole, so 2.5 is 3."""
        counts = {}
        for xseq in self.X:
            for x in xseq:
                for a, _ in flatten(x):
                    counts[a] = counts.get(a, 0) + 1
        def fit(**kw):
            return trellis.CRF(c2=0.01, max_iterations=15, seed=1, **kw).fit(self.X, self.y)
        full, pruned = fit(), fit(min_freq=3)
        self.assertTrue(any(counts[a] < 3 for a in full.attributes_))
        self.assertTrue(pruned.attributes_)
        self.assertEqual([a for a in pruned.attributes_ if counts[a] < 3], [])
        self.assertEqual(fit(min_freq=2.5).state_features_, pruned.state_features_)
        self.assertEqual(fit(min_freq=1).state_features_, full.state_features_)


class LibraryTest(unittest.TestCase):
    def test_found_beside_the_package_or_not_at_all(self):
        lib = trellis.library_path()
        with tempfile.TemporaryDirectory() as d:
            shutil.copytree(PKGDIR, os.path.join(d, "trellis"),
                            ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.dylib", "*.dll"))
            env = {k: v for k, v in os.environ.items() if k not in ("TRELLIS_LIB", "PYTHONPATH")}
            prog = "import trellis; print(trellis.CRF(c2=0.1).fit([[['a'], ['b']]], [['A', 'B']]).predict([[['b']]]))"
            missing = subprocess.run([sys.executable, "-c", prog], cwd=d, env=env, capture_output=True, text=True)
            self.assertNotEqual(missing.returncode, 0)
            self.assertIn("libtrellis not found", missing.stderr)
            self.assertIn("TRELLIS_LIB", missing.stderr)
            shutil.copy(lib, os.path.join(d, "trellis", "libtrellis.so"))
            found = subprocess.run([sys.executable, "-c", prog], cwd=d, env=env, capture_output=True, text=True)
            self.assertEqual(found.stdout.strip(), "[['B']]", found.stderr)


if __name__ == "__main__":
    unittest.main()
