# tnt reads every word's attributes: min_count pruning is refused, in the
# features block and as a tune candidate.
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
  column = "pos"
  scheme = "none"
}

features {
  min_count = 2
  emission "word" {
    column = "word"
  }
  suffix_trie "suffix" {
    column = "word"
  }
  transition "trans" {
    order = 2
  }
}

learner "tnt" {
  type           = "tnt"
}

tune "tnt" {
  min_count = [1, 3]
}

evaluation {
  train = "train"
  dev   = "train"
  test  = "train"
}
