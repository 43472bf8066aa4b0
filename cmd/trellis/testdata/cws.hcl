# A tiny word segmentation experiment (chars format, BMES) for the tests of
# tagging raw text.
experiment "cws" {
  seed = 5
}

corpus "train" {
  path   = "cws-train.txt"
  format = "chars"
}

corpus "test" {
  path   = "cws-test.txt"
  format = "chars"
}

labels {
  column = "label"
  scheme = "bmes"
}

features {
  emission "c" {
    column  = "char"
    offsets = [-1, 0, 1]
  }
  emission "c2" {
    column  = "char"
    offsets = [-1, 0]
    ngram   = 2
  }
  transition "trans" {}
}

learner "hmm" {
  type = "hmm"
}

learner "perceptron" {
  type   = "perceptron"
  epochs = 5
}

learner "crf" {
  type           = "crf"
  max_iterations = 30
}

evaluation {
  train = "train"
  test  = "test"
}
