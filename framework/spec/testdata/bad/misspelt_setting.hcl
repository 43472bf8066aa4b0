# A misspelt setting: no learner takes it; the suggestion is the learner's own.
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

learner "arow" {
  type = "arow"
  epoch = 5
}

evaluation {
  train = "train"
  test  = "train"
}
