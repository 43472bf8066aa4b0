# A tune block cannot make a learner of a second-order spec a latent CRF.
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
  emission "pos" {
    column = "pos"
  }
  transition "trans" {
    order = 2
  }
}

learner "crf" {
  type = "crf"
}

tune "crf" {
  hidden_states = [0, 2]
}

evaluation {
  train = "train"
  dev   = "train"
  test  = "train"
}
