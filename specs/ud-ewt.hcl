# Universal POS tagging on UD English EWT 2.16 (train / dev / test).
#
#   go run ./cmd/trellis run specs/ud-ewt.hcl
#
# The CRF's c2 is picked on the dev corpus by the tune block below (every
# candidate and its dev accuracy land in tune/crf.json and the report); the
# test corpus is read only to score the picked model. (It used to be 0.3,
# picked by looking at test accuracies.)

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
}

tune "crf" {
  c2 = [0.1, 0.3, 1]
}

evaluation {
  train = "train"
  dev   = "dev"
  test  = "test"
}
