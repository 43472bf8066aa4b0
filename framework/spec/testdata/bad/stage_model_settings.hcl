# Model stages with wrong settings: from and model both, jackknifing
# settings, no column, neither from nor model, a corpus column.
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

learner "both" {
  type = "perceptron"
  stage {
    from   = "perceptron"
    model  = "en-xpos"
    column = "pred"
  }
}

learner "folds" {
  type = "perceptron"
  stage {
    model  = "en-xpos"
    column = "pred"
    folds  = 5
    by     = "sentence"
  }
}

learner "nocolumn" {
  type = "perceptron"
  stage {
    model = "en-xpos"
  }
}

learner "nosource" {
  type = "perceptron"
  stage {
    column = "pred"
  }
}

learner "clash" {
  type = "perceptron"
  stage {
    model  = "en-xpos"
    column = "pos"
  }
}

evaluation {
  train = "train"
  test  = "train"
}
