# A dataset place that does not exist, and a budget that is no size and
# comes without dataset = "auto".
variable "data" {
  default = "../data/tiny.conll"
}

experiment "tiny" {
  seed = 1
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
  dataset = "ssd"
  memory_budget = "lots"
  emission "w" {
    column  = "word"
    offsets = [-1, 0, 1]
  }
  transition "trans" {}
}

learner "hmm" {
  type = "hmm"
}

evaluation {
  train = "train"
  test  = "train"
}
