# CoNLL-2003 English NER (IOB1 as distributed), reranked: conll2003.hcl's
# features, its CRF and averaged perceptron as first passes, each with a
# rerank block (framework/rerank, Collins & Koo 2005). Each first pass is
# trained on eng.train as in conll2003.hcl, then jackknifed over 10 folds of
# whole documents; a reranker with global features (label n-grams, span
# types, lengths, shapes and words, document consistency, the first pass's
# rank and score) is trained on those 20-best lists, and tagging reranks the
# first pass's 20 best. The reranker settings are those the experiment of
# docs/results.md ("Reranking the k-best on CoNLL-2003") chose on held-out
# train folds: the CRF with the perceptron trainer (20 epochs), the
# perceptron with maxent (c2 = 0.1). Builtin templates only.
#
#   go run ./cmd/trellis run specs/conll2003-rerank.hcl

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2003/ (relative to this spec)."
}

experiment "conll2003-rerank" {
  seed        = 1
  description = "CoNLL-2003 English NER, k-best reranking, tested on eng.testa."
}

corpus "train" {
  path    = "${var.data_dir}/conll2003/eng.train"
  format  = "conll"
  columns = ["word", "pos", "chunk", "ner"]
}

corpus "test" {
  path    = "${var.data_dir}/conll2003/eng.testa"
  format  = "conll"
  columns = ["word", "pos", "chunk", "ner"]
}

labels {
  column = "ner"
  scheme = "iob1"
}

features {
  emission "w" {
    column  = "word"
    offsets = [-2, -1, 0, 1, 2]
  }
  emission "wl" {
    column    = "word"
    offsets   = [-1, 0, 1]
    lowercase = true
  }
  emission "pos" {
    column  = "pos"
    offsets = [-1, 0, 1]
  }
  emission "chunk" {
    column  = "chunk"
    offsets = [0]
  }
  shape "shape" {
    column  = "word"
    offsets = [-1, 0, 1]
  }
  shape "shaped" {
    column  = "word"
    offsets = [-1, 0, 1]
    kind    = "compact"
  }
  prefix "pre" {
    column  = "word"
    lengths = [1, 2, 3, 4]
  }
  suffix "suf" {
    column  = "word"
    lengths = [1, 2, 3, 4]
  }
  digit "dig" {
    column = "word"
  }
  hyphen "hyph" {
    column = "word"
  }
  transition "trans" {}
}

learner "crf" {
  type = "crf"
  c2   = 1
  rerank {
    k       = 20
    folds   = 10
    trainer = "perceptron"
    epochs  = 20
  }
}

learner "perceptron" {
  type   = "perceptron"
  epochs = 10
  rerank {
    k       = 20
    folds   = 10
    trainer = "maxent"
    c2      = 0.1
  }
}

evaluation {
  train = "train"
  test  = "test"
}
