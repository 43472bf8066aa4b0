# labels takes "unigram" or "bigram".
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
    labels  = "bigrams"
  }
  transition "trans" {}
}

learner "crf" {
  type = "crf"
}

evaluation {
  train = "train"
  test  = "train"
}
