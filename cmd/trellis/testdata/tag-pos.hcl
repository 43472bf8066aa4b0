# A chunker whose templates read the POS and word columns: plain text,
# which has only words, is refused.
experiment "tag-pos" {
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
    column = "word"
  }
  emission "wp" {
    join = ["word[0]", "pos[-1]"]
  }
  transition "trans" {}
}

learner "hmm" {
  type = "hmm"
}

evaluation {
  train = "train"
  test  = "test"
}
