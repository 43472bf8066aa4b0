# CoNLL-2000 chunking with CRFsuite's baseline features and objective
# (specs/conll2000.hcl: c2 = 1, L-BFGS with CRFsuite's stopping rule, period
# 10 and delta 1e-5), trained for speed on two threads:
#
#   - warm_start_epochs = 10: ten SGD epochs on the same objective first
#     (specs/conll2000-warm.hcl), so that L-BFGS starts near the optimum;
#   - batch_size = 16: each SGD step takes 16 sentences, whose gradients are
#     taken at the same weights in two lanes that run side by side;
#   - memory = 10, history_precision = "float32": ten L-BFGS correction
#     pairs kept in float32, in the memory six take in float64, and fewer
#     iterations to the same stopping rule.
#
# Each is a change of arithmetic, so the model is not specs/conll2000.hcl's
# bytes; the optimum is the same up to the stopping rule (test F1 93.61
# against 93.62). The bytes do not depend on --threads. Measured against
# CRFsuite in docs/results.md ("Speed targets at a glance").
#
#   go run ./cmd/trellis run specs/conll2000-fast.hcl --threads 2

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2000/ (relative to this spec)."
}

experiment "conll2000-fast" {
  seed        = 1
  description = "CoNLL-2000 chunking (IOB2), CRFsuite baseline features, CRF trained for speed (SGD warm start in batches, float32 L-BFGS history)."
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
  batch_size        = 16
  memory            = 10
  history_precision = "float32"
}

evaluation {
  train = "train"
  test  = "test"
}
