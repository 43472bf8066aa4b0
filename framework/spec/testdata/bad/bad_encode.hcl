# A training encoding that does not exist.
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
  scheme = "iob1"
  encode = "bioe"
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
