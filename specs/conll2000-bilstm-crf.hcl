# CoNLL-2000 chunking with a learned encoder and no hand-made features:
# word embeddings (trained from scratch), a character CNN and POS
# embeddings feed a BiLSTM whose states give each token's label scores
# (Ma & Hovy 2016; Lample et al. 2016). The two learners differ only in
# the output layer: a CRF over the label lattice (bilstm_crf) or
# independent per-token decisions (bilstm_softmax). The only template is
# the transition template, which gives the CRF its label transitions.
#
# Training stops early on a held-out tenth of train (sentences 0, 10, 20,
# ...), which the learners never train on; test.txt is read only for the
# final table.
#
#   go run ./cmd/trellis run specs/conll2000-bilstm-crf.hcl --threads 2

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2000/ (relative to this spec)."
}

experiment "conll2000-bilstm-crf" {
  seed        = 1
  description = "CoNLL-2000 chunking (IOB2): BiLSTM-CNN encoder, CRF and softmax output layers."
}

corpus "train" {
  path    = "${var.data_dir}/conll2000/train.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
  split {
    folds = 10
    fold  = 0
    take  = "rest"
  }
}

corpus "dev" {
  path    = "${var.data_dir}/conll2000/train.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
  split {
    folds = 10
    fold  = 0
    take  = "fold"
  }
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
  transition "trans" {}
}

encoder "bilstm" {
  word_dim      = 100
  char          = "cnn"
  char_dim      = 30
  char_filters  = 30
  char_window   = 3
  columns       = { pos = 25 }
  layers        = 1
  hidden        = 100
  dropout       = 0.5
  optimizer     = "adam"
  learning_rate = 0.001
  batch_size    = 16
  epochs        = 30
  patience      = 5
}

learner "bilstm_crf" {
  type    = "crf"
  encoder = "bilstm"
}

learner "bilstm_softmax" {
  type    = "maxent"
  encoder = "bilstm"
}

evaluation {
  train = "train"
  dev   = "dev"
  test  = "test"
}
