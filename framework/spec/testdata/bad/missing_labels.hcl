# A spec without its labels block.
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
