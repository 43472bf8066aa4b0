"""Tests of raw text: trellis.tokenize and CRF.tag_text. Offsets are str
indices, non-ASCII text included; tag_text gives predict's labels, the
spans those labels make, and what `trellis tag --input text --output
json` prints."""

import gzip
import json
import os
import pathlib
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_crf import CHUNKS, ROOT, chunk_data, run, trellis, trellis_command  # noqa: E402

TEXT = "Café au lait. Ünïcode?"
# Non-ASCII words, an astral character (one str index, two UTF-16 units,
# four UTF-8 bytes), a blank line and a "\r\n".
MIXED = "The dog barks at a café. Ünïcode sings 🙂?\n\nthe big café sleeps .\r\na bird sings"

SPEC = """experiment "chunks" {
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
    column    = "word"
    lowercase = true
    offsets   = [-1, 0]
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


def check_offsets(test, text, sents):
    """Every sentence, token and span of sents is text[start:end]."""
    for s in sents:
        test.assertEqual(text[s["start"]:s["end"]], s["text"])
        for t in s["tokens"]:
            test.assertEqual(text[t["start"]:t["end"]], t["text"], t)
        for sp in s.get("spans", []):
            test.assertEqual(text[sp["start"]:sp["end"]], sp["text"], sp)


def bio_chunks(labels):
    """(first, last, type) of each chunk of IOB2 labels, worked out here."""
    out = []
    for i, label in enumerate(labels):
        if label.startswith("B-") or (label.startswith("I-") and (not out or out[-1][1] != i - 1
                                                                  or out[-1][2] != label[2:])):
            out.append([i, i, label[2:]])
        elif label.startswith("I-"):
            out[-1][1] = i
    return [tuple(c) for c in out]


class TokenizeTest(unittest.TestCase):
    def test_default_tokenizer(self):
        sents = trellis.tokenize(TEXT)
        self.assertEqual([[t["text"] for t in s["tokens"]] for s in sents], [["Café", "au", "lait", "."], ["Ünïcode", "?"]])
        self.assertEqual([(s["start"], s["end"]) for s in sents], [(0, 13), (14, 22)])
        check_offsets(self, TEXT, sents)
        self.assertEqual(trellis.tokenize(TEXT, tokenizer="en-tokenizer"), sents)
        self.assertEqual(trellis.tokenize(""), [])

    def test_each_tokenizer(self):
        for name in ("en-tokenizer", "rules", "lines", "chars"):
            with self.subTest(tokenizer=name):
                sents = trellis.tokenize(MIXED, name)
                check_offsets(self, MIXED, sents)
                toks = [t["text"] for s in sents for t in s["tokens"]]
                self.assertIn("🙂", "".join(toks))
                self.assertTrue(all(t.strip() == t and t for t in toks), toks)
        # A line per sentence, white space between tokens; a character per token.
        lines = trellis.tokenize(MIXED, "lines")
        self.assertEqual([s["text"] for s in lines], MIXED.replace("\r", "").replace("\n\n", "\n").split("\n"))
        self.assertIn("café.", [t["text"] for t in lines[0]["tokens"]])
        chars = trellis.tokenize(MIXED, "chars")
        self.assertEqual("".join(t["text"] for s in chars for t in s["tokens"]), "".join(MIXED.split()))

    def test_model_file(self):
        """A tokenizer model given by path (str or pathlib.Path) tokenizes
        as the shipped one of the same file."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "tok.model")
            with gzip.open(os.path.join(ROOT, "framework", "pretrained", "models", "en-tokenizer.model.gz")) as f, \
                    open(path, "wb") as out:
                out.write(f.read())
            want = trellis.tokenize(MIXED)
            self.assertEqual(trellis.tokenize(MIXED, path), want)
            self.assertEqual(trellis.tokenize(MIXED, pathlib.Path(path)), want)

    def test_errors(self):
        with self.assertRaisesRegex(TypeError, "text must be a str, got bytes"):
            trellis.tokenize(TEXT.encode())
        with self.assertRaisesRegex(TypeError, "tokenizer must be a str"):
            trellis.tokenize(TEXT, 3)
        with self.assertRaisesRegex(ValueError, "contains NUL"):
            trellis.tokenize(TEXT, "rules\0x")
        with self.assertRaisesRegex(trellis.TrellisError, 'tokenizer "no-such-tokenizer".*shipped model'):
            trellis.tokenize(TEXT, "no-such-tokenizer")
        with self.assertRaisesRegex(UnicodeEncodeError, "surrogates not allowed"):
            trellis.tokenize("a\ud800b")

    def test_threads(self):
        want = trellis.tokenize(MIXED)
        results = []
        threads = [threading.Thread(target=lambda: results.append(trellis.tokenize(MIXED))) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(results, [want] * 4)


class TagTextTest(unittest.TestCase):
    """A BIO chunk model `trellis run` trained on words (some of them
    non-ASCII) tags raw text."""

    @classmethod
    def setUpClass(cls):
        cls.cmd = trellis_command()
        cls.dir = tempfile.TemporaryDirectory()
        d = cls.dir.name
        lines = CHUNKS + ["a/B-NP café/I-NP sleeps/B-VP ./O", "Ünïcode/B-NP lait/I-NP sings/B-VP ?/O"]
        with open(os.path.join(d, "train.txt"), "w", encoding="utf-8") as f:
            for line in lines:
                f.write("\n".join(t.replace("/", " ") for t in line.split()) + "\n\n")
        with open(os.path.join(d, "spec.hcl"), "w") as f:
            f.write(SPEC)
        run([cls.cmd, "run", os.path.join(d, "spec.hcl"), "--out", os.path.join(d, "run")])
        cls.path = os.path.join(d, "run", "models", "crf.model")
        cls.crf = trellis.CRF.load(cls.path)

    @classmethod
    def tearDownClass(cls):
        cls.crf._fitted().close()
        cls.dir.cleanup()

    def test_spans(self):
        spans = 0
        for name in ("en-tokenizer", "rules", "lines", "chars"):
            with self.subTest(tokenizer=name):
                sents = self.crf.tag_text(MIXED, tokenizer=name)
                self.assertGreaterEqual(len(sents), 3)
                check_offsets(self, MIXED, sents)
                words = [[t["text"] for t in s["tokens"]] for s in sents]
                labels = [s["labels"] for s in sents]
                self.assertEqual(self.crf.predict(words), labels)
                for s in sents:
                    self.assertEqual([t["label"] for t in s["tokens"]], s["labels"])
                    got = [(sp["first"], sp["last"], sp["label"]) for sp in s.get("spans", [])]
                    self.assertEqual(got, bio_chunks(s["labels"]))
                    for sp in s.get("spans", []):
                        self.assertEqual(sp["start"], s["tokens"][sp["first"]]["start"])
                        self.assertEqual(sp["end"], s["tokens"][sp["last"]]["end"])
                    spans += len(got)
        self.assertGreater(spans, 0)
        sents = self.crf.tag_text(TEXT)
        check_offsets(self, TEXT, sents)
        self.assertEqual(self.crf.predict([["Café", "au", "lait", "."], ["Ünïcode", "?"]]), [s["labels"] for s in sents])
        # Trained as the first words of noun phrases, both start one.
        firsts = [(sp["label"], s["tokens"][0]["text"]) for s in sents for sp in s["spans"] if sp["first"] == 0]
        self.assertEqual(firsts, [("NP", "Café"), ("NP", "Ünïcode")])

    def test_same_as_trellis_tag(self):
        """tag_text gives the objects `trellis tag --input text --output
        json` prints, a line each."""
        for name in ("en-tokenizer", "rules"):
            with self.subTest(tokenizer=name):
                out = run([self.cmd, "tag", "--model", self.path, "--input", "text", "--output", "json",
                           "--tokenizer", name], input=MIXED, encoding="utf-8").stdout
                want = [json.loads(line) for line in out.splitlines() if line]
                self.assertEqual(self.crf.tag_text(MIXED, name), want)

    def test_errors(self):
        X, y = chunk_data()
        attrs = trellis.CRF(c2=0.1).fit(X, y)
        for text in (TEXT, ""):
            with self.assertRaisesRegex(trellis.TrellisError, "needs a model that reads only the words"):
                attrs.tag_text(text)
        with self.assertRaisesRegex(ValueError, "not a tokenizer model"):
            self.crf.tag_text(TEXT, tokenizer=self.path)
        with self.assertRaisesRegex(AttributeError, "no model yet"):
            trellis.CRF().tag_text(TEXT)
        with self.assertRaisesRegex(TypeError, "text must be a str"):
            self.crf.tag_text([TEXT])
        self.assertEqual(self.crf.tag_text("  \n "), [])


if __name__ == "__main__":
    unittest.main()
