# tnt reads only the word, its suffix path and a second-order transition
# template, and counts rare words with rare_frequency >= 1.
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
  emission "word" {
    column = "word"
  }
  suffix_trie "suffix" {
    column = "word"
  }
  shape "shape" {
    column = "word"
  }
  transition "trans" {
    order = 2
  }
}

learner "tnt" {
  type           = "tnt"
  rare_frequency = 0
}

evaluation {
  train = "train"
  test  = "train"
}
