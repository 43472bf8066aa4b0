# A setting the learner does not take: c1 is a CRF (and maxent, memm) setting.
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

learner "pa" {
  type = "pa"
  c1 = 0.1
}

evaluation {
  train = "train"
  test  = "train"
}
