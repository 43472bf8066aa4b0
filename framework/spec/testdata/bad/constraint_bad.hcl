# an empty constraint, a max below its min, a type constrained twice.
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
  constraint "NP" {}
  constraint "VP" {
    min = 2
    max = 1
  }
  constraint "PP" {
    max = 1
  }
  constraint "PP" {
    min = 1
  }
}

evaluation {
  train = "train"
  test  = "train"
}
