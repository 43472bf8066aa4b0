# CoNLL-2003 English NER, specs/conll2003.hcl's features, with the learners
# trained and decoding in BIOES: the IOB1 gold labels of eng.train are
# re-encoded (B/I/E for multi-token entities, S for single tokens), and the
# predictions come back in IOB1 before they are written or scored against
# eng.testa. eng.testa is this spec's test corpus, so nothing is tuned on it:
# the CRF's c2 is picked by 3-fold cross-validation on eng.train.
#
#   go run ./cmd/trellis run specs/conll2003-bioes.hcl

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2003/ (relative to this spec)."
}

experiment "conll2003-bioes" {
  seed        = 1
  description = "CoNLL-2003 English NER trained in BIOES, c2 by 3-fold CV on eng.train, tested on eng.testa."
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
  transition "trans" {}
}

learner "perceptron" {
  type   = "perceptron"
  epochs = 10
}

learner "crf" {
  type = "crf"
}

tune "crf" {
  c2    = [0.5, 1, 2]
  folds = 3
}

evaluation {
  train = "train"
  test  = "test"
}
