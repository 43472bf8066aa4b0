# A spec has at most one decisions template.
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
  decisions "spans" {
    span = true
  }
}

learner "left_to_right" {
  type = "transition"
}

evaluation {
  train = "train"
  test  = "train"
}
