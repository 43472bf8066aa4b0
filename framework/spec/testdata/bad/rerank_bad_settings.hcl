# A rerank block with bad values: k and folds below 2, an unknown trainer and feature group.
variable "data" {
  default = "../data/tiny.conll"
}

experiment "tiny" {
  seed = 7
}

corpus "train" {
  path    = var.data
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
    offsets = [-1, 0, 1]
  }
  transition "trans" {}
}

learner "crf" {
  type = "crf"
  rerank {
    k        = 1
    folds    = 1
    trainer  = "maxnet"
    features = ["ngram", "dok"]
  }
}

evaluation {
  train = "train"
  test  = "train"
}
