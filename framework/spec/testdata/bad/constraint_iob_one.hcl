# a span constraint on iob1 labels.
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
}

features {
  emission "w" {
    column  = "word"
    offsets = [-1, 0, 1]
  }
  transition "trans" {}
}

learner "perceptron" {
  type = "perceptron"
  constraint "NP" {
    max = 3
  }
}

evaluation {
  train = "train"
  test  = "train"
}
