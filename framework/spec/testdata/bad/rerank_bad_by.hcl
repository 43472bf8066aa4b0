# A rerank block whose fold unit is misspelt.
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
    by      = "sentense"
  }
}

evaluation {
  train = "train"
  test  = "train"
}
