# A tune block with a value the learner refuses, and a text setting.
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

learner "hmm" {
  type = "hmm"
}

evaluation {
  train = "train"
  test  = "train"
}

learner "crf" {
  type = "crf"
}

tune "crf" {
  c2        = [0.1, -1]
  algorithm = [1]
}
