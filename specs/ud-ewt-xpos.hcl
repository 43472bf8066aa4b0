# Penn Treebank part-of-speech tags (the XPOS column) on UD English EWT, with
# the features of specs/ud-ewt.hcl (UPOS). Its perceptron is the shipped
# model en-xpos (framework/pretrained): the tags a CoNLL-2000 chunker reads.
#
#   go run ./cmd/trellis run specs/ud-ewt-xpos.hcl
#
# The data is CC BY-SA 4.0 (see ud-english-ewt/LICENSE.txt); so is a model
# trained on it.

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding ud-english-ewt/ (relative to this spec)."
}

experiment "ud-ewt-xpos" {
  seed        = 1
  description = "UD English EWT XPOS (Penn Treebank) tagging."
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
  column = "xpos"
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

learner "perceptron" {
  type   = "perceptron"
  epochs = 10
}

evaluation {
  train = "train"
  dev   = "dev"
  test  = "test"
}
