# CoNLL-2000 text chunking with specs/conll2000.hcl's features (CRFsuite's
# baseline) and a second-order model: transition { order = 2 } gives every
# label trigram (y[i-2], y[i-1], y[i]) seen in training a weight (846 of
# them), and the lattice runs over the label pairs and trigrams seen in
# training. The learners' settings are conll2000.hcl's, fixed a priori (the
# HMM cannot train a second-order model); the test corpus only scores.
#
#   go run ./cmd/trellis run specs/conll2000-order2.hcl --out /tmp/c2k-o2
#   go run ./cmd/trellis run specs/conll2000.hcl --learner perceptron --learner crf --out /tmp/c2k-o1
#   go run ./cmd/trellis compare /tmp/c2k-o1 /tmp/c2k-o2
#
# Measured (docs/results.md, "Second-order models"): CRF test F1 93.59
# [93.23, 93.98] against 93.62 first order (p = 0.66), perceptron 93.48
# [93.10, 93.88] against 93.53 (p = 0.53): second order does not help here,
# nor on specs/conll2000-rich.hcl's features; a gradient evaluation costs
# 3.4 times the first-order one, a perceptron epoch 3.0 times.
#
variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2000/ (relative to this spec)."
}

experiment "conll2000-order2" {
  seed        = 1
  description = "CoNLL-2000 chunking (IOB2), CRFsuite baseline feature set, second-order model."
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
  transition "trans" {
    order = 2
  }
}

learner "perceptron" {
  type   = "perceptron"
  epochs = 10
}

learner "crf" {
  type = "crf"
  c2   = 1
}

evaluation {
  train = "train"
  test  = "test"
}
