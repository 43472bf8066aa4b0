"""Tests of trellis.Pipeline and of shipped models loaded by name: the
shipped POS tagger en-xpos, then a chunker `trellis run` trained here on
columns word, xpos, chunk, which reads en-xpos's labels as its xpos."""

import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_crf import ROOT, chunk_data, run, trellis, trellis_command  # noqa: E402
from test_text import check_offsets  # noqa: E402

# Words of the chunk corpus, and some it has not (non-ASCII ones included).
TEXT = "The big dog sees a café near the river. Ünïcode moves quickly!\n\nA quick dog moves it ."

SPEC = """experiment "xpos-chunk" {
  seed = 1
}
corpus "train" {
  path    = "train.txt"
  format  = "conll"
  columns = ["word", "xpos", "chunk"]
}
labels {
  column = "chunk"
  scheme = "iob2"
}
features {
  emission "w" {
    column = "word"
  }
  emission "p" {
    column  = "xpos"
    offsets = [-1, 0, 1]
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
"""


class PipelineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cmd = trellis_command()
        cls.dir = tempfile.TemporaryDirectory()
        d = cls.dir.name
        shutil.copy(os.path.join(ROOT, "cmd", "trellis", "testdata", "chunk-train.txt"), os.path.join(d, "train.txt"))
        with open(os.path.join(d, "spec.hcl"), "w") as f:
            f.write(SPEC)
        run([cls.cmd, "run", os.path.join(d, "spec.hcl"), "--out", os.path.join(d, "run")])
        cls.path = os.path.join(d, "run", "models", "crf.model")
        cls.chunker = trellis.CRF.load(cls.path)
        cls.xpos = trellis.CRF.load("en-xpos")
        cls.pipeline = trellis.Pipeline([cls.xpos, cls.chunker])

    @classmethod
    def tearDownClass(cls):
        cls.pipeline.close()
        cls.dir.cleanup()

    def by_hand(self, words):
        """{"xpos", "chunk"} of words: en-xpos's tags, and the chunker's
        predict given them as its xpos column."""
        tags = self.xpos.predict(words)
        chunks = self.chunker.predict([[[w, t] for w, t in zip(ws, ts)] for ws, ts in zip(words, tags)])
        return [{"xpos": t, "chunk": c} for t, c in zip(tags, chunks)]

    def test_tag_text(self):
        spans = 0
        for name in ("en-tokenizer", "rules", "lines"):
            with self.subTest(tokenizer=name):
                sents = self.pipeline.tag_text(TEXT, tokenizer=name)
                self.assertGreaterEqual(len(sents), 2)
                check_offsets(self, TEXT, sents)
                words = [[t["text"] for t in s["tokens"]] for s in sents]
                want = self.by_hand(words)
                for s, w in zip(sents, want):
                    self.assertEqual(s["labels"], w["chunk"])
                    self.assertEqual([t["label"] for t in s["tokens"]], w["chunk"])
                    self.assertEqual([t["tags"] for t in s["tokens"]],
                                     [{"xpos": x, "chunk": c} for x, c in zip(w["xpos"], w["chunk"])])
                    spans += len(s.get("spans", []))
        self.assertGreater(spans, 0)
        # Penn tags, and chunks, where the corpus has the words.
        first = self.pipeline.tag_text(TEXT)[0]["tokens"][:3]
        self.assertEqual([(t["text"], t["tags"]["xpos"]) for t in first], [("The", "DT"), ("big", "JJ"), ("dog", "NN")])
        self.assertEqual([t["label"] for t in first], ["B-NP", "I-NP", "I-NP"])
        self.assertEqual(self.pipeline.tag_text(""), [])

    def test_same_as_trellis_tag(self):
        """tag_text gives what `trellis tag --model en-xpos --model
        chunker` prints, a line a sentence."""
        out = run([self.cmd, "tag", "--model", "en-xpos", "--model", self.path, "--input", "text", "--output", "json"],
                  input=TEXT, encoding="utf-8").stdout
        want = [json.loads(line) for line in out.splitlines() if line]
        self.assertEqual(self.pipeline.tag_text(TEXT), want)

    def test_tag_words(self):
        words = [["The", "big", "dog", "sees", "a", "café", "."], [], ["New York", "moves", "Ünïcode"]]
        got = self.pipeline.tag(words)
        self.assertEqual(len(got), 3)
        self.assertEqual(got[1], {"xpos": [], "chunk": []})
        self.assertEqual([got[0], got[2]], self.by_hand([words[0], words[2]]))
        self.assertEqual(self.pipeline.tag([tuple(words[0])]), [got[0]])
        self.assertEqual(self.pipeline.tag([]), [])
        with self.assertRaisesRegex(TypeError, "sentence 0 must be a list of words"):
            self.pipeline.tag(["The dog barks"])
        with self.assertRaisesRegex(TypeError, "sentence 1 must be a list of words"):
            self.pipeline.tag([["a"], ["b", 3]])

    def test_errors(self):
        """Refused when made: a model reading a column no earlier model
        labels, a model twice, models that are not CRFs with a model."""
        for models in ([self.chunker], [self.chunker, self.xpos]):
            with self.assertRaises(ValueError) as cm:
                trellis.Pipeline(models)
            self.assertIsInstance(cm.exception, trellis.TrellisError)
            self.assertEqual(str(cm.exception),
                             'model 1 (chunk) reads the column "xpos": no earlier model produces the column '
                             '(it is the first model); put a model that labels "xpos" before it')
        with self.assertRaisesRegex(ValueError, r'model 2 \(chunk\) reads the column "xpos".*before it label "upos"'):
            trellis.Pipeline([trellis.CRF.load("en-upos"), self.chunker])
        with self.assertRaisesRegex(ValueError, "model 2 is model 1 again"):
            trellis.Pipeline([self.xpos, self.xpos])
        with self.assertRaisesRegex(ValueError, "at least one model"):
            trellis.Pipeline([])
        X, y = chunk_data()
        with self.assertRaisesRegex(ValueError, "no word column"):
            trellis.Pipeline([trellis.CRF(c2=0.1).fit(X, y)])
        with self.assertRaisesRegex(AttributeError, "no model yet"):
            trellis.Pipeline([self.xpos, trellis.CRF()])
        with self.assertRaisesRegex(TypeError, "models must be a list of CRF"):
            trellis.Pipeline(self.xpos)
        with self.assertRaisesRegex(TypeError, r"models\[1\] must be a CRF, got str"):
            trellis.Pipeline([self.xpos, self.path])
        with self.assertRaisesRegex(TypeError, "text must be a str"):
            self.pipeline.tag_text(TEXT.encode())

    def test_refit_model(self):
        """A CRF of the pipeline refit frees the model the pipeline holds:
        the pipeline says so rather than tag with another model."""
        crf = trellis.CRF.load(self.path)
        p = trellis.Pipeline([trellis.CRF.load("en-xpos"), crf])
        self.assertEqual(p.tag([["a", "dog"]]), self.by_hand([["a", "dog"]]))
        crf.fit(*chunk_data())
        with self.assertRaisesRegex(trellis.TrellisError, "a model of the pipeline was freed"):
            p.tag([["a", "dog"]])

    def test_models_outlive_their_crfs(self):
        """The pipeline keeps its models when no one else holds their CRFs."""
        p = trellis.Pipeline([trellis.CRF.load("en-xpos"), trellis.CRF.load(self.path)])
        self.assertEqual(p.tag([["the", "river", "moves"]]), self.by_hand([["the", "river", "moves"]]))


class ShippedModelTest(unittest.TestCase):
    def test_load_by_name(self):
        upos = trellis.CRF.load("en-upos")
        self.assertEqual(upos.learner_, "crf")
        self.assertIn("NOUN", upos.classes_)
        self.assertEqual(upos.predict([["She", "reads", "a", "book", "."]]), [["PRON", "VERB", "DET", "NOUN", "PUNCT"]])
        sents = upos.tag_text("She reads a book. It was good.")
        self.assertEqual([s["labels"] for s in sents], [["PRON", "VERB", "DET", "NOUN", "PUNCT"],
                                                        ["PRON", "AUX", "ADJ", "PUNCT"]])
        xpos = trellis.CRF.load("en-xpos")
        self.assertEqual(xpos.learner_, "perceptron")
        self.assertEqual(xpos.predict([["She", "reads", "a", "book", "."]]), [["PRP", "VBZ", "DT", "NN", "."]])

    def test_file_wins_over_name(self):
        """A file at the path is loaded, not the shipped model of that name."""
        X, y = chunk_data()
        crf = trellis.CRF(c2=0.1).fit(X, y)
        cwd = os.getcwd()
        with tempfile.TemporaryDirectory() as d:
            crf.save(os.path.join(d, "en-upos"))
            os.chdir(d)
            try:
                self.assertEqual(trellis.CRF.load("en-upos").classes_, crf.classes_)
            finally:
                os.chdir(cwd)

    def test_unknown_name(self):
        with self.assertRaisesRegex(FileNotFoundError, r'nor is "en-nope" the name of a shipped model \(en-tokenizer, '
                                                       r'en-upos, en-xpos\)'):
            trellis.CRF.load("en-nope")
        with self.assertRaises(FileNotFoundError):
            trellis.CRF.load(os.path.join("no", "such.model"))


if __name__ == "__main__":
    unittest.main()
