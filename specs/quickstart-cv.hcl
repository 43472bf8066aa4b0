# Cross-validation of the quickstart: the same features and learners, each
# trained and tested on 5 seeded folds of the shipped UD English EWT sample's
# training file (specs/data/ud-ewt-sample, CC BY-SA 4.0); the table shows the
# mean and standard deviation over the folds.
#
#   go run ./cmd/trellis run specs/quickstart-cv.hcl

variable "sample_dir" {
  default     = "data/ud-ewt-sample"
  description = "Folder with train/dev/test .conllu files (relative to this spec)."
}

experiment "quickstart-cv" {
  seed        = 1
  description = "UPOS tagging on the UD English EWT sample: 5-fold cross-validation."
}

corpus "train" {
  path   = "${var.sample_dir}/train.conllu"
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
  folds = 5
}
