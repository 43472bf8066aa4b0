# The HMM, maxent, the MEMM and the latent CRF cannot train bigram templates.
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
    labels = "bigram"
  }
  transition "trans" {}
}

learner "hmm" {
  type = "hmm"
}

learner "crf" {
  type = "crf"
}

learner "memm" {
  type = "memm"
}

learner "latent" {
  type          = "crf"
  hidden_states = 2
}

evaluation {
  train = "train"
  test  = "train"
}
