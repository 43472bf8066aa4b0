# CoNLL-2003 English NER, hybrid: the builtin features of
# specs/conll2003-doc.hcl (document context included) with the BiLSTM-CNN
# encoder of specs/conll2003-bilstm-crf.hcl beside them, trained jointly on
# the same CRF lattice (learner "hybrid"); learner "crf" is the sparse CRF
# alone on the same features, c2 and training sentences, so the run's
# significance test compares the encoder's contribution.
#
# Training stops early on a held-out tenth of eng.train (sentences 0, 10,
# 20, ...), which the learners never train on; eng.testa, the benchmark's
# test corpus here (eng.testb is not shipped), is read only for the final
# table. Labels are IOB1 in the corpus and trained and decoded in BIOES
# (Lample et al.).
#
#   go run ./cmd/trellis run specs/conll2003-hybrid.hcl --threads 2

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2003/ (relative to this spec)."
}

experiment "conll2003-hybrid" {
  seed        = 1
  description = "CoNLL-2003 English NER (IOB1, trained in BIOES), tested on eng.testa: document features with and without a BiLSTM-CNN encoder."
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
  document "doc" {
    column       = "word"
    context_case = true
  }
  transition "trans" {}
}

encoder "bilstm" {
  word_dim      = 100
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

learner "crf" {
  type = "crf"
  c2   = 1
}

learner "hybrid" {
  type    = "crf"
  encoder = "bilstm"
  c2      = 1
}

evaluation {
  train = "train"
  dev   = "dev"
  test  = "test"
}
