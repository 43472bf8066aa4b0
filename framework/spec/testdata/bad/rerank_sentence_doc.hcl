# Folds of sentences with the doc feature group, whose features would echo the sentence's gold labels in training.
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
    trainer  = "maxent"
    by       = "sentence"
    features = ["ngram", "doc", "rank"]
  }
}

evaluation {
  train = "train"
  test  = "train"
}
