# Universal POS tagging on UD English EWT 2.16 (train / dev / test).
#
#   go run ./cmd/trellis run specs/ud-ewt.hcl

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding ud-english-ewt/ (relative to this spec)."
}

experiment "ud-ewt" {
  seed        = 1
  description = "UD English EWT UPOS tagging."
}

corpus "train" {
  path   = "${var.data_dir}/ud-english-ewt/en_ewt-ud-train.conllu"
  format = "conllu"
}

corpus "dev" {
  path   = "${var.data_dir}/ud-english-ewt/en_ewt-ud-dev.conllu"
  format = "conllu"
}

corpus "test" {
  path   = "${var.data_dir}/ud-english-ewt/en_ewt-ud-test.conllu"
  format = "conllu"
}

labels {
  column = "upos"
  scheme = "none"
}

features {
  emission "w" {
    column    = "form"
    offsets   = [-2, -1, 0, 1, 2]
    lowercase = true
  }
  emission "form" {
    column = "form"
  }
  prefix "pre" {
    column  = "form"
    lengths = [1, 2, 3]
  }
  suffix "suf" {
    column  = "form"
    lengths = [1, 2, 3, 4]
  }
  shape "shape" {
    column  = "form"
    offsets = [-1, 0, 1]
    kind    = "compact"
  }
  case "case" {
    column = "form"
  }
  digit "dig" {
    column = "form"
  }
  hyphen "hyph" {
    column = "form"
  }
  transition "trans" {}
}

learner "hmm" {
  type = "hmm"
}

learner "perceptron" {
  type   = "perceptron"
  epochs = 10
}

learner "crf" {
  type = "crf"
  c2   = 0.3
}

evaluation {
  train = "train"
  dev   = "dev"
  test  = "test"
}
