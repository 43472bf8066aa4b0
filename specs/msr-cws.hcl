# Chinese word segmentation on SIGHAN 2005 MSR. The MSR training corpus is not
# in the shared data, so the gold test file is split deterministically by
# sentence index: sentence k (0-based, in file order) goes to the test part
# when k mod 10 == 0, and to the training part otherwise (3,586 / 399 sentences).
# Report results as such: this is not the official MSR setup.
#
#   go run ./cmd/trellis run specs/msr-cws.hcl

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding sighan2005-msr/ (relative to this spec)."
}

experiment "msr-cws" {
  seed        = 1
  description = "MSR word segmentation (BMES character tagging), 9/10 of the gold test file for training, 1/10 for testing."
}

corpus "train" {
  path   = "${var.data_dir}/sighan2005-msr/msr_test_gold.utf8"
  format = "chars"
  split {
    folds = 10
    fold  = 0
    take  = "rest"
  }
}

corpus "test" {
  path   = "${var.data_dir}/sighan2005-msr/msr_test_gold.utf8"
  format = "chars"
  split {
    folds = 10
    fold  = 0
    take  = "fold"
  }
}

labels {
  column = "label"
  scheme = "bmes"
}

features {
  emission "c" {
    column  = "char"
    offsets = [-2, -1, 0, 1, 2]
  }
  emission "c2" {
    column  = "char"
    offsets = [-2, -1, 0, 1]
    ngram   = 2
  }
  digit "dig" {
    column = "char"
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
  c2   = 1
}

evaluation {
  train = "train"
  test  = "test"
}
