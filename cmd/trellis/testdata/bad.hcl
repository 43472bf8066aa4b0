# chunk.hcl with a misspelt learner type, for the exit-code tests.
experiment "chunk" {
  seed = 3
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
    lowercase = true
  }
  transition "trans" {}
}

learner "hmm" {
  type = "hmn"
}

evaluation {
  train = "train"
  test  = "test"
}
