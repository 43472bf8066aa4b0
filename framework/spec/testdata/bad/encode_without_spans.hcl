# An encoding for labels without spans.
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
  scheme = "none"
  encode = "bioes"
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
