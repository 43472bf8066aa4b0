# CoNLL-2000 text chunking with exactly the baseline features of CRFsuite's
# chunking example (example/chunking.py): words and POS tags at offsets -2..2,
# word bigrams w[-1]|w[0] and w[0]|w[1], POS bigrams and trigrams across the
# window, plus __BOS__/__EOS__; n-grams that reach outside the sentence are
# not generated, as in CRFsuite.
#
#   go run ./cmd/trellis run specs/conll2000.hcl

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2000/ (relative to this spec)."
}

experiment "conll2000" {
  seed        = 1
  description = "CoNLL-2000 chunking (IOB2), CRFsuite baseline feature set."
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
}

learner "hmm" {
  type = "hmm"
}

learner "perceptron" {
  type   = "perceptron"
  epochs = 10
}

learner "crf" {
  type = "crf"
  c2   = 1
}

evaluation {
  train = "train"
  test  = "test"
}
