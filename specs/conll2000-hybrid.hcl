# CoNLL-2000 chunking, hybrid: the best sparse feature set
# (specs/conll2000-rich.hcl: the CRFsuite baseline plus word/POS
# conjunctions, trained in BIOES) with the BiLSTM-CNN encoder of
# specs/conll2000-bilstm-crf.hcl beside it. The encoder's label scores
# are added to the templates' state scores, and both are trained jointly
# on the same CRF lattice (learner "hybrid"); learner "crf" is the sparse
# CRF alone with the same features, c2 and training sentences, so the
# run's significance test compares exactly the encoder's contribution.
#
# Both train on nine tenths of train; the hybrid stops early on the
# held-out tenth (sentences 0, 10, 20, ...); test.txt is read only for the
# final table.
#
#   go run ./cmd/trellis run specs/conll2000-hybrid.hcl --threads 2
#
# The encoder's word table starts at random (test F1: crf 93.88, hybrid
# 94.21). With the skip-gram vectors of
# specs/conll2003-clusters-hybrid.hcl's header, --var
# vectors=../runs/w2v-100.txt starts it from them: hybrid 94.44, +0.56
# over the crf (p = 0.001) and +0.44 over specs/conll2000-rich.hcl's 94.01
# (p = 0.002). docs/results.md, "Hybrids over the best sparse specs".

variable "vectors" {
  default     = ""
  description = "Word vectors to start the encoder's word table from (relative to this spec); \"\" starts it at random."
}

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2000/ (relative to this spec)."
}

experiment "conll2000-hybrid" {
  seed        = 1
  description = "CoNLL-2000 chunking (IOB2, trained in BIOES): rich sparse features with and without a BiLSTM-CNN encoder."
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
  encode = "bioes"
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
  emission "wp" {
    join = ["word[0]", "pos[0]"]
  }
  emission "wp1" {
    join = ["word[-1]", "pos[0]"]
  }
  emission "wp2" {
    join = ["pos[-1]", "word[0]"]
  }
  emission "wp3" {
    join = ["word[0]", "pos[1]"]
  }
  boundary "bound" {}
  transition "trans" {}
}

encoder "bilstm" {
  word_dim      = 100
  vectors       = var.vectors
  char_dim      = 30
  char_filters  = 30
  char_window   = 3
  columns       = { pos = 25 }
  hidden        = 100
  dropout       = 0.5
  optimizer     = "adam"
  learning_rate = 0.001
  batch_size    = 16
  epochs        = 30
  patience      = 5
}

learner "crf" {
  type = "crf"
  c2   = 0.5
}

learner "hybrid" {
  type    = "crf"
  encoder = "bilstm"
  c2      = 0.5
}

evaluation {
  train = "train"
  dev   = "dev"
  test  = "test"
}
