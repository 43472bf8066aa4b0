# TnT (Brants 2000) on UD English EWT 2.16 UPOS (train / dev / test): a
# second-order HMM with deleted-interpolation transitions and a suffix
# model for unknown words, decoded exactly.
#
#   go run ./cmd/trellis run specs/ud-ewt-tnt.hcl
#
# Every setting is the paper's (suffixes up to 10 runes, from words seen
# at most 10 times); none was chosen on the test corpus, which only scores.
# The tnt learner reads exactly these templates: the word as written (no
# lowercase: TnT's lexicon is case-sensitive), its suffix path, and the
# second-order transition template.

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding ud-english-ewt/ (relative to this spec)."
}

experiment "ud-ewt-tnt" {
  seed        = 1
  description = "UD English EWT UPOS tagging with TnT."
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
  emission "word" {
    column = "form"
  }
  suffix_trie "suffix" {
    column     = "form"
    max_length = 10
  }
  transition "trans" {
    order = 2
  }
}

learner "tnt" {
  type           = "tnt"
  rare_frequency = 10
}

evaluation {
  train = "train"
  dev   = "dev"
  test  = "test"
}
