"""Tests of trellis.metrics: the flat scores against values worked out by
hand (scikit-learn's definitions), the report's layout, and the span
scores and per-label scores against `trellis eval` on the same
predictions."""

import json
import os
import random
import subprocess
import sys
import tempfile
import unittest
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_crf import crfsuite_line, flatten, trellis, trellis_command  # noqa: E402

from trellis import metrics  # noqa: E402

# Six tokens in two sentences. Per label (right, predicted, gold):
# B-NP (1, 2, 1), B-PP (1, 2, 1), B-VP (0, 0, 1), I-NP (1, 1, 1), O (1, 1, 2).
Y_TRUE = [["B-NP", "I-NP", "O", "B-VP"], ["B-PP", "O"]]
Y_PRED = [["B-NP", "I-NP", "O", "B-PP"], ["B-PP", "B-NP"]]


class FlatTest(unittest.TestCase):
    def test_scores(self):
        m = metrics
        self.assertAlmostEqual(m.flat_accuracy_score(Y_TRUE, Y_PRED), 4 / 6)
        self.assertEqual(m.sequence_accuracy_score(Y_TRUE, Y_PRED), 0)
        self.assertEqual(m.sequence_accuracy_score(Y_TRUE, [Y_TRUE[0], Y_PRED[1]]), 0.5)
        kw = {"zero_division": 0}
        p, r, f, support = m.flat_precision_score(Y_TRUE, Y_PRED, average=None, **kw), \
            m.flat_recall_score(Y_TRUE, Y_PRED, average=None, **kw), \
            m.flat_f1_score(Y_TRUE, Y_PRED, average=None, **kw), [1, 1, 1, 1, 2]
        self.assertEqual(p, [0.5, 0.5, 0.0, 1.0, 1.0])
        self.assertEqual(r, [1.0, 1.0, 0.0, 1.0, 0.5])
        for got, want in zip(f, [2 / 3, 2 / 3, 0.0, 1.0, 2 / 3]):
            self.assertAlmostEqual(got, want)
        weighted = sum(x * s for x, s in zip(f, support)) / 6
        self.assertAlmostEqual(m.flat_f1_score(Y_TRUE, Y_PRED, average="weighted", **kw), weighted)
        self.assertAlmostEqual(m.flat_f1_score(Y_TRUE, Y_PRED, average="macro", **kw), sum(f) / 5)
        # micro over every label is the accuracy; over a subset (the
        # tutorial's labels without "O") it counts those labels' tokens.
        self.assertAlmostEqual(m.flat_f1_score(Y_TRUE, Y_PRED, average="micro", **kw), 4 / 6)
        labels = ["B-NP", "I-NP", "B-VP", "B-PP"]
        self.assertAlmostEqual(m.flat_precision_score(Y_TRUE, Y_PRED, labels=labels, average="micro", **kw), 3 / 5)
        self.assertAlmostEqual(m.flat_recall_score(Y_TRUE, Y_PRED, labels=labels, average="micro", **kw), 3 / 4)
        self.assertAlmostEqual(m.flat_fbeta_score(Y_TRUE, Y_PRED, 2.0, labels=["B-NP"], average="macro"),
                               5 * 0.5 * 1.0 / (4 * 0.5 + 1.0))

    def test_binary_and_zero_division(self):
        m = metrics
        yt, yp = [[1, 0, 1, 1]], [[1, 1, 0, 1]]
        self.assertAlmostEqual(m.flat_f1_score(yt, yp), 2 / 3)
        self.assertAlmostEqual(m.flat_precision_score([["x", "y"]], [["x", "x"]], pos_label="x"), 0.5)
        with self.assertRaisesRegex(ValueError, "multiclass .* average='binary'"):
            m.flat_f1_score(Y_TRUE, Y_PRED)
        with self.assertRaisesRegex(ValueError, "pos_label=1 is not a label"):
            m.flat_f1_score([["x", "y"]], [["x", "x"]])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.assertEqual(m.flat_precision_score(Y_TRUE, Y_PRED, labels=["B-VP"], average="macro"), 0.0)
        self.assertEqual([w.category for w in caught], [metrics.UndefinedMetricWarning])
        self.assertEqual(caught[0].filename, __file__)  # the caller's line, not the module's
        self.assertEqual(m.flat_precision_score(Y_TRUE, Y_PRED, labels=["B-VP"], average="macro",
                                                zero_division=1), 1.0)
        for bad, msg in [({"average": "samples"}, "average must be one of"),
                         ({"zero_division": 2}, "zero_division must be")]:
            with self.assertRaisesRegex(ValueError, msg):
                m.flat_f1_score(Y_TRUE, Y_PRED, **bad)

    def test_shapes_must_match(self):
        with self.assertRaisesRegex(ValueError, "y_true has 2 sentences, y_pred has 1"):
            metrics.flat_accuracy_score(Y_TRUE, Y_PRED[:1])
        with self.assertRaisesRegex(ValueError, "sentence 1: y_true has 2 labels, y_pred has 1"):
            metrics.sequence_accuracy_score(Y_TRUE, [Y_PRED[0], ["O"]])
        self.assertEqual(metrics.flat_accuracy_score([], []), 0.0)

    def test_report(self):
        """scikit-learn's classification_report layout, to the character."""
        text = metrics.flat_classification_report([["A", "B", "A"]], [["A", "A", "A"]], zero_division=0)
        self.assertEqual(text, "\n".join([
            "              precision    recall  f1-score   support",
            "",
            "           A       0.67      1.00      0.80         2",
            "           B       0.00      0.00      0.00         1",
            "",
            "    accuracy                           0.67         3",
            "   macro avg       0.33      0.50      0.40         3",
            "weighted avg       0.44      0.67      0.53         3",
            ""]))
        d = metrics.flat_classification_report(Y_TRUE, Y_PRED, labels=["B-NP", "B-VP"], output_dict=True,
                                               zero_division=0)
        self.assertEqual(list(d), ["B-NP", "B-VP", "micro avg", "macro avg", "weighted avg"])
        self.assertEqual(d["micro avg"], {"precision": 0.5, "recall": 0.5, "f1-score": 0.5, "support": 2})
        text = metrics.flat_classification_report(Y_TRUE, Y_PRED, labels=["B-NP"], target_names=["noun phrase"],
                                                  digits=3)
        self.assertIn("\n noun phrase      0.500     1.000     0.667         1\n", text)
        self.assertIn("\n   micro avg      0.500     1.000     0.667         1\n", text)


class SpanTest(unittest.TestCase):
    def test_spans(self):
        """conlleval's reading of IOB1, IOB2, BIOES and ill-formed labels."""
        for labels, want in [
            (["B-NP", "I-NP", "O", "B-VP"], [("NP", 0, 2), ("VP", 3, 4)]),
            (["I-NP", "I-NP", "B-NP", "I-NP"], [("NP", 0, 2), ("NP", 2, 4)]),  # IOB1
            (["O", "I-NP", "I-VP", "I-VP"], [("NP", 1, 2), ("VP", 2, 4)]),  # a type change splits
            (["B-PER", "E-PER", "S-LOC", "B-ORG", "I-ORG", "E-ORG", "O"],
             [("PER", 0, 2), ("LOC", 2, 3), ("ORG", 3, 6)]),  # BIOES
            (["E-NP", "E-NP", "I-NP"], [("NP", 0, 1), ("NP", 1, 2), ("NP", 2, 3)]),
            (["B-A-B", "I-A-B"], [("A-B", 0, 2)]),  # the type is all after the first "-"
            ([], []),
            (["O", "O"], []),
        ]:
            with self.subTest(labels=labels):
                self.assertEqual(metrics.spans(labels), want)

    def test_scores(self):
        # Gold NP(0,2) VP(3,4) PP(0,1); predicted NP(0,2) PP(3,4) PP(0,1) NP(1,2).
        p, r, f = metrics.span_precision_recall_f1(Y_TRUE, Y_PRED)
        self.assertEqual((p, r), (2 / 4, 2 / 3))
        self.assertAlmostEqual(f, 2 * p * r / (p + r))
        self.assertEqual(metrics.span_f1_score(Y_TRUE, Y_PRED), f)
        self.assertEqual(metrics.span_f1_score(Y_TRUE, Y_PRED, average=None), {"NP": 2 / 3, "PP": 2 / 3, "VP": 0.0})
        self.assertAlmostEqual(metrics.span_f1_score(Y_TRUE, Y_PRED, average="macro"), 4 / 9)
        report = metrics.span_classification_report(Y_TRUE, Y_PRED, output_dict=True)
        self.assertEqual(report["VP"], {"precision": 0.0, "recall": 0.0, "f1-score": 0.0, "support": 1})
        self.assertEqual(report["micro avg"]["support"], 3)
        self.assertEqual(metrics.span_precision_recall_f1([["O"]], [["O"]]), (0.0, 0.0, 0.0))
        with self.assertRaisesRegex(ValueError, "average must be"):
            metrics.span_f1_score(Y_TRUE, Y_PRED, average="weighted")


class AgainstTrellisEvalTest(unittest.TestCase):
    def test_same_as_trellis_eval(self):
        """On a model's predictions, full of ill-formed label sequences
        (IOB1 is not decoded constrained, and the labels mix IOB2 and
        BIOES prefixes), the span and per-label scores, accuracy and
        sentence accuracy are those `trellis eval` prints."""
        cmd = trellis_command()
        rng = random.Random(1)
        labels = ["O", "B-NP", "I-NP", "B-VP", "I-VP", "E-NP", "S-PP"]

        def sent(n):
            return [rng.choice(labels) for _ in range(n)]

        # Each token's attribute names a label, so the model mostly
        # predicts random sequences; the gold labels are other ones.
        y = [sent(rng.randint(1, 8)) for _ in range(300)]
        X = [[{"l": label} for label in ys] for ys in y]
        crf = trellis.CRF(c2=0.01, scheme="iob1", seed=1).fit(X, y)
        X, gold = X[:150], [sent(len(ys)) for ys in y[:150]]
        pred = crf.predict(X)
        with tempfile.TemporaryDirectory() as d:
            model, data = os.path.join(d, "m.model"), os.path.join(d, "eval.crfsuite")
            crf.save(model)
            with open(data, "w", encoding="utf-8") as f:
                for xseq, ys in zip(X, gold):
                    f.write("".join(crfsuite_line(g, flatten(x)) + "\n" for x, g in zip(xseq, ys)) + "\n")
            out = subprocess.run([cmd, "eval", "--model", model, "--json", data], check=True,
                                 capture_output=True, text=True).stdout
        want = json.loads(out)
        self.assertEqual(metrics.span_precision_recall_f1(gold, pred), (want["precision"], want["recall"], want["f1"]))
        self.assertGreater(want["pred_spans"], 100)
        report = metrics.span_classification_report(gold, pred, output_dict=True)
        for typ, w in want["per_type"].items():
            self.assertEqual((report[typ]["precision"], report[typ]["recall"], report[typ]["support"]),
                             (w["precision"], w["recall"], w["gold"]), typ)
            self.assertAlmostEqual(report[typ]["f1-score"], w["f1"], places=12)
        flat = metrics.flat_classification_report(gold, pred, output_dict=True, zero_division=0)
        for label, w in want["per_label"].items():
            self.assertEqual((flat[label]["precision"], flat[label]["recall"], flat[label]["support"]),
                             (w["precision"], w["recall"], w["gold"]), label)
        self.assertEqual(metrics.flat_accuracy_score(gold, pred), want["accuracy"])
        self.assertEqual(metrics.sequence_accuracy_score(gold, pred), want["sentence_accuracy"])


if __name__ == "__main__":
    unittest.main()
