# A chunker without an emission of the word at offset 0: its model file
# does not tell which words it saw, so eval's IV/OOV figures are null.
experiment "eval-novocab" {
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
  suffix "suf" {
    column  = "word"
    lengths = [1, 2, 3]
  }
  emission "prev" {
    column  = "word"
    offsets = [-1]
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
