# Cross-validation of the tiny chunking corpus (3 seeded folds).
experiment "chunk-cv" {
  seed = 3
}

corpus "train" {
  path    = "chunk-train.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}

labels {
  column = "chunk"
  scheme = "iob2"
}

features {
  emission "w" {
    column    = "word"
    lowercase = true
  }
  emission "pos" {
    column = "pos"
  }
  transition "trans" {}
}

learner "hmm" {
  type = "hmm"
}

learner "perceptron" {
  type   = "perceptron"
  epochs = 3
}

evaluation {
  train = "train"
  folds = 3
}
