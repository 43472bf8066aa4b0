# A history template whose predicted names no column: the error points at predicted.
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
  emission "p" {
    column  = "pred"
    offsets = [0]
  }
  history "h" {
    column    = "word"
    predicted = "prd"
  }
  transition "trans" {}
}

learner "perceptron" {
  type = "perceptron"
}

learner "second" {
  type = "perceptron"
  stage {
    from   = "perceptron"
    column = "pred"
  }
}

evaluation {
  train = "train"
  test  = "train"
}
