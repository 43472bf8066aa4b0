# CoNLL-2000 text chunking, specs/conll2000.hcl's features (CRFsuite's
# baseline set), with the learners trained and decoding in BIOES: the IOB2
# gold labels are re-encoded for training (B/I/E for multi-token chunks, S
# for single tokens), and every prediction comes back in IOB2 before it is
# written or scored. The CRF's c2 is picked by 3-fold cross-validation on
# the training corpus (CoNLL-2000 has no dev set); the test corpus is read
# only to score the picked model.
#
#   go run ./cmd/trellis run specs/conll2000-bioes.hcl

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2000/ (relative to this spec)."
}

experiment "conll2000-bioes" {
  seed        = 1
  description = "CoNLL-2000 chunking, trained in BIOES, c2 by 3-fold CV on train."
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
