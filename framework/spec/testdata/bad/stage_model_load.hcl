# Model stages whose model is unknown, or cannot label the corpus (a
# tokenizer labels characters).
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
  emission "p" {
    column  = "pred"
    offsets = [0]
  }
  transition "trans" {}
}

learner "perceptron" {
  type = "perceptron"
}

learner "unknown" {
  type = "perceptron"
  stage {
    model  = "en-xpso"
    column = "pred"
  }
}

learner "chars" {
  type = "perceptron"
  stage {
    model  = "en-tokenizer"
    column = "pred"
  }
}

evaluation {
  train = "train"
  test  = "train"
}
