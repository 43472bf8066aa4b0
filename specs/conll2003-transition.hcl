# conll2003-transition: the features of conll2003.hcl plus a decisions
# template (the labels already assigned), decoded left to right by the
# transition learner: greedy (trained on DAgger-style roll-ins) and beam 4
# with early update.
# Epochs (and greedy's beta_decay) are chosen by 3-fold cross-validation on
# the training corpus (tune blocks): the spec has no dev corpus, and the
# test corpus never chooses. Compare with the first-order averaged
# perceptron of conll2003.hcl:
#
#   go run ./cmd/trellis run specs/conll2003-transition.hcl --out runs/conll2003-transition
#   go run ./cmd/trellis run specs/conll2003.hcl --learner perceptron --out runs/conll2003-perceptron
#   go run ./cmd/trellis compare runs/conll2003-transition runs/conll2003-perceptron

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2003/ (relative to this spec)."
}

experiment "conll2003-transition" {
  seed        = 1
  description = "CoNLL-2003 English NER, tested on eng.testa: the base features of conll2003.hcl plus the decision history (document included), labelled left to right by the transition learner."
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
  decisions "hist" {
    previous = 2
    span     = true
    document = true
  }
}

# Greedy search trained on DAgger-style roll-ins (in epoch e the history
# follows gold with probability beta_decay^(e-1)), and beam search of width 4
# with early update.
learner "greedy" {
  type   = "transition"
  epochs = 10
}

learner "beam4" {
  type   = "transition"
  epochs = 10
  beam   = 4
  update = "early"
}

# 27 trainings (18 for greedy, 9 for beam4) of seconds each on 2/3 of the
# training corpus.
tune "greedy" {
  epochs     = [5, 10, 20]
  beta_decay = [0.5, 1]
  folds      = 3
}

tune "beam4" {
  epochs = [5, 10, 20]
  folds  = 3
}

evaluation {
  train = "train"
  test  = "test"
}
