# Quickstart: universal part-of-speech tagging on a small slice of UD English EWT
# that ships with trellis (specs/data/ud-ewt-sample, CC BY-SA 4.0).
#
#   go run ./cmd/trellis run specs/quickstart.hcl

variable "sample_dir" {
  default     = "data/ud-ewt-sample"
  description = "Folder with train/dev/test .conllu files (relative to this spec)."
}

experiment "quickstart" {
  seed        = 1
  description = "UPOS tagging on a 1,500-sentence slice of UD English EWT: learner comparison."
}

corpus "train" {
  path   = "${var.sample_dir}/train.conllu"
  format = "conllu"
}

corpus "dev" {
  path   = "${var.sample_dir}/dev.conllu"
  format = "conllu"
}

corpus "test" {
  path   = "${var.sample_dir}/test.conllu"
  format = "conllu"
}

labels {
  column = "upos"
  scheme = "none"
}

features {
  emission "w" {
    column    = "form"
    lowercase = true
  }
  suffix "suf" {
    column  = "form"
    lengths = [1, 2, 3]
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
  c2   = 0.1
}

evaluation {
  train = "train"
  dev   = "dev"
  test  = "test"
}
