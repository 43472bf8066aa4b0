# a negative penalty, no iterations, a zero step.
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

learner "perceptron" {
  type = "perceptron"
  consistency {
    penalty    = -1
    iterations = 0
    step       = 0
  }
}

evaluation {
  train = "train"
  test  = "train"
}
