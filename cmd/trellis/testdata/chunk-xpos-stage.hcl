# The chunking experiment of chunk.hcl learning from the shipped en-xpos's
# tags (a model stage) instead of the corpus's gold POS, which is renamed
# so that no template reads it: the model tags from words alone.
experiment "chunk-xpos-stage" {
  seed = 3
}

corpus "train" {
  path    = "chunk-train.txt"
  format  = "conll"
  columns = ["word", "gold_pos", "chunk"]
}

corpus "test" {
  path    = "chunk-test.txt"
  format  = "conll"
  columns = ["word", "gold_pos", "chunk"]
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
    column  = "xpos"
    offsets = [-1, 0, 1]
  }
  transition "trans" {}
}

learner "perceptron" {
  type   = "perceptron"
  epochs = 5
  stage {
    model  = "en-xpos"
    column = "xpos"
  }
}

evaluation {
  train = "train"
  test  = "test"
}
