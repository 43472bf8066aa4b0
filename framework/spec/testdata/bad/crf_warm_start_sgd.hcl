# warm_start_epochs warms L-BFGS up with SGD: with algorithm = "sgd" it is refused.
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
  type              = "crf"
  algorithm         = "sgd"
  warm_start_epochs = 3
}

evaluation {
  train = "train"
  test  = "train"
}
