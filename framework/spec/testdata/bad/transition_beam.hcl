# The transition learner's beam must be at least 1; it takes no decode, and
# update is for beams of 2 and more.
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
}

learner "zero" {
  type = "transition"
  beam = 0
}

learner "decoded" {
  type   = "transition"
  decode = "beam"
}

learner "greedy_update" {
  type   = "transition"
  update = "max_violation"
}

learner "beam_beta" {
  type = "transition"
  beam = 4
  beta = 0.5
}

evaluation {
  train = "train"
  test  = "train"
}
