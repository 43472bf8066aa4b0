# A setting of the other trainer, and a negative c2.
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
    trainer = "perceptron"
    c2      = -1
  }
}

evaluation {
  train = "train"
  test  = "train"
}
