# UD English EWT UPOS, hybrid: the builtin features of specs/ud-ewt-rich.hcl
# (its input-conditioned transitions included) with a BiLSTM-CNN encoder
# beside them, trained jointly on the same CRF lattice (learner
# "hybrid"); learner "crf" is the sparse CRF alone on the same features,
# with the c2 that specs/ud-ewt-rich.hcl picks on dev (0.1), so the run's
# significance test compares the encoder's contribution. The hybrid stops
# early on the dev corpus, and trains the templates' weights alone first
# (sparse_first): chosen on dev, where the best epoch scored 95.16 with it
# and 95.01 without (docs/results.md, "Learned encoders").
#
#   go run ./cmd/trellis run specs/ud-ewt-hybrid.hcl --threads 2

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding ud-english-ewt/ (relative to this spec)."
}

experiment "ud-ewt-hybrid" {
  seed        = 1
  description = "UD English EWT UPOS: rich builtin features with and without a BiLSTM-CNN encoder."
}

corpus "train" {
  path   = "${var.data_dir}/ud-english-ewt/en_ewt-ud-train.conllu"
  format = "conllu"
}

corpus "dev" {
  path   = "${var.data_dir}/ud-english-ewt/en_ewt-ud-dev.conllu"
  format = "conllu"
}

corpus "test" {
  path   = "${var.data_dir}/ud-english-ewt/en_ewt-ud-test.conllu"
  format = "conllu"
}

labels {
  column = "upos"
  scheme = "none"
}

features {
  emission "w" {
    column    = "form"
    offsets   = [-2, -1, 0, 1, 2]
    lowercase = true
  }
  emission "form" {
    column = "form"
  }
  prefix "pre" {
    column  = "form"
    lengths = [1, 2, 3]
  }
  suffix "suf" {
    column  = "form"
    lengths = [1, 2, 3, 4]
  }
  shape "shape" {
    column  = "form"
    offsets = [-1, 0, 1]
    kind    = "compact"
  }
  case "case" {
    column = "form"
  }
  digit "dig" {
    column = "form"
  }
  hyphen "hyph" {
    column = "form"
  }
  emission "wb" {
    column    = "form"
    lowercase = true
    offsets   = [-1, 0]
    ngram     = 2
  }
  suffix "suf5" {
    column  = "form"
    lengths = [5, 6]
  }
  prefix "pre4" {
    column  = "form"
    lengths = [4, 5]
  }
  suffix "sufn" {
    column    = "form"
    offsets   = [-1, 1]
    lengths   = [2, 3]
    lowercase = true
  }
  shape "shf" {
    column = "form"
  }
  emission "wbg" {
    column    = "form"
    lowercase = true
    labels    = "bigram"
  }
  transition "trans" {}
}

encoder "bilstm" {
  column        = "form"
  word_dim      = 100
  char_dim      = 30
  char_filters  = 30
  char_window   = 3
  hidden        = 100
  dropout       = 0.5
  optimizer     = "adam"
  learning_rate = 0.001
  batch_size    = 16
  epochs        = 30
  patience      = 5
  sparse_first  = true
}

learner "crf" {
  type = "crf"
  c2   = 0.1
}

learner "hybrid" {
  type    = "crf"
  encoder = "bilstm"
  c2      = 0.1
}

evaluation {
  train = "train"
  dev   = "dev"
  test  = "test"
}
