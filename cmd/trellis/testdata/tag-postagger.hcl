# A POS tagger on the chunk sample's words: its label column is "pos", the
# column testdata/tag-pos.hcl's chunker reads, so the two make a pipeline.

experiment "tag-postagger" {
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
  column = "pos"
  scheme = "none"
}

features {
  emission "w" {
    column  = "word"
    offsets = [-1, 0, 1]
  }
  suffix "suf" {
    column  = "word"
    lengths = [1, 2, 3]
  }
  transition "trans" {}
}

learner "perceptron" {
  type   = "perceptron"
  epochs = 5
}

evaluation {
  train = "train"
  test  = "test"
}
