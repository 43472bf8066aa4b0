# Word-only features (plain text can be tagged) with every learner, for
# the tests of `trellis tag --input text|tokens`.
experiment "tag-learners" {
  seed = 5
}

corpus "train" {
  path    = "chunk-train.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}

corpus "test" {
  path    = "chunk-test.txt"
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
    offsets   = [-1, 0, 1]
    lowercase = true
  }
  suffix "suf" {
    column  = "word"
    lengths = [1, 2]
  }
  shape "shape" {
    column = "word"
  }
  bias "bias" {}
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
