# CoNLL-2000 chunking (IOB2), reranked: conll2000.hcl's CRFsuite baseline
# features, its CRF and averaged perceptron as first passes, each with a
# rerank block (framework/rerank, Collins & Koo 2005). The corpus has no
# document boundaries (each file is one document), so the jackknifing folds
# are of sentences (by = "sentence"): each first pass is trained on
# train.txt as in conll2000.hcl, then jackknifed over 10 folds of sentences;
# a reranker with global features (label n-grams, span types, lengths,
# shapes and words, the first pass's rank and score; not document
# consistency, which folds of sentences leave out) is trained on those
# 20-best lists, and tagging reranks the first pass's 20 best. The reranker
# settings are those the experiment of docs/results.md ("Reranking the
# k-best on CoNLL-2000") chose on held-out train folds (folds 0-1, trained
# on the lists of folds 2-9; perceptron 5/10/20 epochs, maxent c2
# 0.1/1/10/100): maxent with c2 = 1 for the CRF, maxent with c2 = 10 for
# the perceptron. The test corpus only scores. Builtin templates only.
#
#   go run ./cmd/trellis run specs/conll2000-rerank.hcl

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2000/ (relative to this spec)."
}

experiment "conll2000-rerank" {
  seed        = 1
  description = "CoNLL-2000 chunking (IOB2), CRFsuite baseline features, k-best reranking with folds of sentences."
}

corpus "train" {
  path    = "${var.data_dir}/conll2000/train.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}

corpus "test" {
  path    = "${var.data_dir}/conll2000/test.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}

labels {
  column = "chunk"
  scheme = "iob2"
}

features {
  emission "w" {
    column  = "word"
    offsets = [-2, -1, 0, 1, 2]
  }
  emission "w2" {
    column  = "word"
    offsets = [-1, 0]
    ngram   = 2
  }
  emission "pos" {
    column  = "pos"
    offsets = [-2, -1, 0, 1, 2]
  }
  emission "pos2" {
    column  = "pos"
    offsets = [-2, -1, 0, 1]
    ngram   = 2
  }
  emission "pos3" {
    column  = "pos"
    offsets = [-2, -1, 0]
    ngram   = 3
  }
  boundary "bound" {}
  transition "trans" {}
}

learner "crf" {
  type = "crf"
  c2   = 1
  rerank {
    k       = 20
    folds   = 10
    by      = "sentence"
    trainer = "maxent"
    c2      = 1
  }
}

learner "perceptron" {
  type   = "perceptron"
  epochs = 10
  rerank {
    k       = 20
    folds   = 10
    by      = "sentence"
    trainer = "maxent"
    c2      = 10
  }
}

evaluation {
  train = "train"
  test  = "test"
}
