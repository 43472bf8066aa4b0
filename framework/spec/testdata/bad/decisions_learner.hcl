# A decisions template reads the labels already assigned: only the
# transition learner can use it.
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
    column = "word"
  }
  transition "trans" {}
  decisions "hist" {
    previous = 2
  }
}

learner "perceptron" {
  type = "perceptron"
}

learner "left_to_right" {
  type = "transition"
}

learner "crf" {
  type = "crf"
}

evaluation {
  train = "train"
  test  = "train"
}
