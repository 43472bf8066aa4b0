# CoNLL-2000 chunking: specs/conll2000-bioes.hcl (CRFsuite's baseline
# features, trained in BIOES) plus word/POS conjunctions at the token and its
# neighbours (w[0]|p[0], w[-1]|p[0], p[-1]|w[0], w[0]|p[1]). The conjunctions
# were chosen by 3-fold cross-validation on the training corpus with the
# perceptron (docs/results.md lists the candidates); c2 = 0.5 is the value
# specs/conll2000-bioes.hcl picks by 3-fold CV. The test corpus only scores.
#
#   go run ./cmd/trellis run specs/conll2000-rich.hcl

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2000/ (relative to this spec)."
}

experiment "conll2000-rich" {
  seed        = 1
  description = "CoNLL-2000 chunking, trained in BIOES, with word/POS conjunctions chosen by CV on train."
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

learner "perceptron" {
  type   = "perceptron"
  epochs = 10
}

learner "crf" {
  type = "crf"
}

# Two candidates: each costs three trainings on 2/3 of the corpus, and
# BIOES's 40 labels make a CRF iteration about 4 times dearer than IOB2's 22.
tune "crf" {
  c2    = [0.5, 1]
  folds = 3
}

evaluation {
  train = "train"
  test  = "test"
}
