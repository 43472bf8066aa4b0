# memory_budget with the training set in memory.
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
  dataset = "memory"
  memory_budget = "2GiB"
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
