# Universal POS tagging on UD English EWT with richer features than
# specs/ud-ewt.hcl: word bigrams, longer prefixes and suffixes, the suffixes
# of the neighbouring words, the full word shape, and input-conditioned
# transitions on the word (labels = "bigram"). Every feature was added by its
# dev accuracy (perceptron, docs/results.md lists the candidates); the
# perceptron's best epoch and the CRF's c2 are picked on the dev corpus; the
# test corpus is read only to score.
#
#   go run ./cmd/trellis run specs/ud-ewt-rich.hcl

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding ud-english-ewt/ (relative to this spec)."
}

experiment "ud-ewt-rich" {
  seed        = 1
  description = "UD English EWT UPOS tagging, richer features chosen on dev."
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
