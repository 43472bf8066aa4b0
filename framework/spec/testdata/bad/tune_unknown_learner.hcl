# A tune block for a learner the spec does not declare.
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
  column = "chunk"
  scheme = "iob2"
}

features {
  emission "w" {
    column  = "word"
    offsets = [-1, 0, 1]
  }
  transition "trans" {}
}

learner "hmm" {
  type = "hmm"
}

evaluation {
  train = "train"
  test  = "train"
}

learner "crf" {
  type = "crf"
}

tune "cfr" {
  c2 = [0.1, 1]
}
