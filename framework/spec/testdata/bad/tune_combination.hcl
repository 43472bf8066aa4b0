# Each value of a tune block is valid alone, but one combination is not:
# warm_start_epochs needs c1 = 0.
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
}

tune "crf" {
  c1                = [0, 0.5]
  warm_start_epochs = [0, 2]
}

evaluation {
  train = "train"
  dev   = "train"
  test  = "train"
}
