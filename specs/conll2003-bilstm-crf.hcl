# CoNLL-2003 English NER with a learned encoder and no hand-made features:
# word embeddings (trained from scratch), a character CNN and embeddings
# of the POS and chunk columns feed a BiLSTM whose states give each
# token's label scores (Ma & Hovy 2016; Lample et al. 2016). The two learners differ only in
# the output layer: a CRF over the label lattice (bilstm_crf) or
# independent per-token decisions (bilstm_softmax). The only template is
# the transition template, which gives the CRF its label transitions.
#
# Training stops early on a held-out tenth of eng.train (sentences 0, 10,
# 20, ...), which the learners never train on; eng.testa, the benchmark's
# test corpus here (eng.testb is not shipped), is read only for the final
# table. Labels are IOB1 in the corpus and trained and decoded in BIOES
# (Lample et al.).
#
#   go run ./cmd/trellis run specs/conll2003-bilstm-crf.hcl --threads 2
#
# The word table starts at random (bilstm_crf 90.24). --var
# vectors=../runs/w2v-100.txt starts it from the skip-gram vectors of
# specs/conll2003-clusters-hybrid.hcl's header: bilstm_crf 91.11
# (docs/results.md, "Hybrids over the best sparse specs").

variable "vectors" {
  default     = ""
  description = "Word vectors to start the encoder's word table from (relative to this spec); \"\" starts it at random."
}

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2003/ (relative to this spec)."
}

experiment "conll2003-bilstm-crf" {
  seed        = 1
  description = "CoNLL-2003 English NER (IOB1, trained in BIOES), tested on eng.testa: BiLSTM-CNN encoder, CRF and softmax output layers."
}

corpus "train" {
  path    = "${var.data_dir}/conll2003/eng.train"
  format  = "conll"
  columns = ["word", "pos", "chunk", "ner"]
  split {
    folds = 10
    fold  = 0
    take  = "rest"
  }
}

corpus "dev" {
  path    = "${var.data_dir}/conll2003/eng.train"
  format  = "conll"
  columns = ["word", "pos", "chunk", "ner"]
  split {
    folds = 10
    fold  = 0
    take  = "fold"
  }
}

corpus "test" {
  path    = "${var.data_dir}/conll2003/eng.testa"
  format  = "conll"
  columns = ["word", "pos", "chunk", "ner"]
}

labels {
  column = "ner"
  scheme = "iob1"
  encode = "bioes"
}

features {
  transition "trans" {}
}

encoder "bilstm" {
  word_dim      = 100
  vectors       = var.vectors
  char          = "cnn"
  char_dim      = 30
  char_filters  = 30
  char_window   = 3
  columns       = { pos = 25, chunk = 10 }
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
