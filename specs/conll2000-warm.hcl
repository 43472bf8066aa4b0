# CoNLL-2000 chunking with CRFsuite's baseline features (specs/conll2000.hcl),
# the CRF trained from a warm start: 10 SGD epochs on the same objective
# (c2 = 1), then L-BFGS from their weights with CRFsuite's stopping rule
# (period 10, delta 1e-5). Same optimum up to that rule (test F1 93.61 against
# 93.62), about a quarter less CPU (docs/results.md, "Warm start").
#
#   go run ./cmd/trellis run specs/conll2000-warm.hcl

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2000/ (relative to this spec)."
}

experiment "conll2000-warm" {
  seed        = 1
  description = "CoNLL-2000 chunking (IOB2), CRFsuite baseline features, CRF warm-started by SGD."
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
  type              = "crf"
  c2                = 1
  warm_start_epochs = 10
}

evaluation {
  train = "train"
  test  = "test"
}
