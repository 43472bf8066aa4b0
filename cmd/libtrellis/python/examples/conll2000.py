"""CoNLL-2000 chunking with sklearn-crfsuite's tutorial features, timed.

    go build -buildmode=c-shared -o /tmp/libtrellis.so ./cmd/libtrellis
    TRELLIS_LIB=/tmp/libtrellis.so python3 cmd/libtrellis/python/examples/conll2000.py [DATA_DIR] [ITERATIONS]

DATA_DIR holds conll2000/train.txt and test.txt (default ../shared/data
from the repository root). Prints the time of each phase: building the
sentence buffer in Python, fit (L-BFGS, c1 = c2 = 0.1, one thread;
buffer building included), predict on the test set, and token accuracy.
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import trellis  # noqa: E402
from trellis import _features  # noqa: E402


def read(path):
    sents, cur = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if not fields:
                if cur:
                    sents.append(cur)
                    cur = []
                continue
            cur.append(fields)
    if cur:
        sents.append(cur)
    return sents


def word2features(sent, i):
    word, postag = sent[i][0], sent[i][1]
    f = {"bias": 1.0, "word.lower()": word.lower(), "word[-3:]": word[-3:], "word[-2:]": word[-2:],
         "word.isupper()": word.isupper(), "word.istitle()": word.istitle(), "word.isdigit()": word.isdigit(),
         "postag": postag, "postag[:2]": postag[:2]}
    if i > 0:
        w, p = sent[i - 1][0], sent[i - 1][1]
        f.update({"-1:word.lower()": w.lower(), "-1:word.istitle()": w.istitle(), "-1:word.isupper()": w.isupper(),
                  "-1:postag": p, "-1:postag[:2]": p[:2]})
    else:
        f["BOS"] = True
    if i < len(sent) - 1:
        w, p = sent[i + 1][0], sent[i + 1][1]
        f.update({"+1:word.lower()": w.lower(), "+1:word.istitle()": w.istitle(), "+1:word.isupper()": w.isupper(),
                  "+1:postag": p, "+1:postag[:2]": p[:2]})
    else:
        f["EOS"] = True
    return f


def main():
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
    data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "..", "shared", "data")
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    train = read(os.path.join(data, "conll2000", "train.txt"))
    test = read(os.path.join(data, "conll2000", "test.txt"))
    X = [[word2features(s, i) for i in range(len(s))] for s in train]
    y = [[t[2] for t in s] for s in train]
    Xt = [[word2features(s, i) for i in range(len(s))] for s in test]
    yt = [[t[2] for t in s] for s in test]
    print("train: %d sentences, %d tokens, %d attributes"
          % (len(X), sum(map(len, X)), sum(len(t) for s in X for t in s)))
    t0 = time.perf_counter()
    buf, _ = _features.encode(X, y)
    print("sentence buffer: %.1f MB in %.2fs" % (len(buf) / 1e6, time.perf_counter() - t0))
    crf = trellis.CRF(algorithm="lbfgs", c1=0.1, c2=0.1, max_iterations=iterations, threads=1)
    t0 = time.perf_counter()
    crf.fit(X, y)
    print("fit (lbfgs, %d iterations, 1 thread): %.1fs" % (iterations, time.perf_counter() - t0))
    t0 = time.perf_counter()
    crf.predict(Xt)
    print("predict (%d test sentences): %.2fs" % (len(Xt), time.perf_counter() - t0))
    print("token accuracy: %.4f" % crf.score(Xt, yt))


if __name__ == "__main__":
    main()
