# Reranking labels without spans: its features and oracle read spans.
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
  scheme = "none"
}

features {
  emission "w" {
    column  = "word"
    offsets = [-1, 0, 1]
  }
  transition "trans" {}
}

learner "crf" {
  type = "crf"
  rerank {
    trainer = "perceptron"
  }
}

evaluation {
  train = "train"
  test  = "train"
}
