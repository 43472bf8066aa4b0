# The first-order HMM of specs/ud-ewt.hcl alone (its templates, naive
# Bayes over all of them), the baseline of specs/ud-ewt-tnt.hcl: TnT needs
# order = 2 on the transition template, which this HMM refuses, so the two
# are separate runs, compared with `trellis compare` (docs/results.md,
# "TnT (issue 11, item 2)").
#
#   go run ./cmd/trellis run specs/ud-ewt-hmm.hcl

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding ud-english-ewt/ (relative to this spec)."
}

experiment "ud-ewt-hmm" {
  seed        = 1
  description = "UD English EWT UPOS tagging, first-order HMM."
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

evaluation {
  train = "train"
  dev   = "dev"
  test  = "test"
}
