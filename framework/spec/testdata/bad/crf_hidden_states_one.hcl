# One hidden state per label is a plain CRF: hidden_states must be at least 2.
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

learner "latent" {
  type          = "crf"
  hidden_states = 1
}

evaluation {
  train = "train"
  test  = "train"
}
