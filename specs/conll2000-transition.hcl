# conll2000-transition: the features of conll2000.hcl plus a decisions
# template (the labels already assigned), decoded left to right by the
# transition learner: greedy (trained on DAgger-style roll-ins) and beam 4
# with early update.
# Epochs (and greedy's beta_decay) are chosen by 3-fold cross-validation on
# the training corpus (tune blocks): the spec has no dev corpus, and the
# test corpus never chooses. Compare with the first-order averaged
# perceptron of conll2000.hcl:
#
#   go run ./cmd/trellis run specs/conll2000-transition.hcl --out runs/conll2000-transition
#   go run ./cmd/trellis run specs/conll2000.hcl --learner perceptron --out runs/conll2000-perceptron
#   go run ./cmd/trellis compare runs/conll2000-transition runs/conll2000-perceptron

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2000/ (relative to this spec)."
}

experiment "conll2000-transition" {
  seed        = 1
  description = "CoNLL-2000 chunking (IOB2), CRFsuite baseline features plus the decision history, labelled left to right by the transition learner."
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
  decisions "hist" {
    previous = 2
    span     = true
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
