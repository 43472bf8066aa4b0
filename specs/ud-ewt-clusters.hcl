# Universal POS tagging on UD English EWT: specs/ud-ewt-rich.hcl plus Brown
# clusters of 6.5M tokens of unlabeled English (the cluster file of
# specs/conll2003-clusters.hcl; no dev or test text in it). The clusters were
# added by their dev accuracy (perceptron: 94.74 without, 94.96 with); the
# CRF's c2 is picked on dev; the test corpus only scores. Build the cluster
# file as specs/conll2003-clusters.hcl's header says (builtin/clusters/
# README.md), then, from the repository root:
#
#   go run ./cmd/trellis run specs/ud-ewt-clusters.hcl

variable "clusters" {
  default     = "../runs/brown-320.txt"
  description = "Brown cluster file that `trellis clusters` wrote (relative to this spec)."
}

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding ud-english-ewt/ (relative to this spec)."
}

experiment "ud-ewt-clusters" {
  seed        = 1
  description = "UD English EWT UPOS tagging, richer features and Brown clusters chosen on dev."
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
  emission "wb" {
    column    = "form"
    lowercase = true
    offsets   = [-1, 0]
    ngram     = 2
  }
  suffix "suf5" {
    column  = "form"
    lengths = [5, 6]
  }
  prefix "pre4" {
    column  = "form"
    lengths = [4, 5]
  }
  suffix "sufn" {
    column    = "form"
    offsets   = [-1, 1]
    lengths   = [2, 3]
    lowercase = true
  }
  shape "shf" {
    column = "form"
  }
  emission "wbg" {
    column    = "form"
    lowercase = true
    labels    = "bigram"
  }
  clusters "bc" {
    column        = "form"
    path          = var.clusters
    offsets       = [-1, 0, 1]
    case_fallback = true
  }
  transition "trans" {}
}

learner "perceptron" {
  type   = "perceptron"
  epochs = 10
}

learner "crf" {
  type = "crf"
}

tune "crf" {
  c2 = [0.1, 0.3]
}

evaluation {
  train = "train"
  dev   = "dev"
  test  = "test"
}
