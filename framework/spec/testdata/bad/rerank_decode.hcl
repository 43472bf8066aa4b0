# Reranking reads n-best viterbi lists: another decode is refused.
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

learner "crf" {
  type   = "crf"
  decode = "greedy"
  rerank {
    trainer = "maxent"
  }
}

evaluation {
  train = "train"
  test  = "train"
}
