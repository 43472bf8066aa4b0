# CoNLL-2003 English NER with global decoding: the features and data of
# specs/conll2003.hcl, each learner twice, decoded sentence by sentence and
# with document consistency by dual decomposition (a consistency block: the
# tagger decodes each -DOCSTART- document jointly so that every occurrence of
# a repeated capitalized word takes one type, at a cost of `penalty` per
# occurrence that differs; docs/results.md, "Global decoding on CoNLL-2003").
# The pairs share their model (same settings, same seed: the same bytes), so
# the run's significance tests compare the decoding alone.
#
# The consistency settings were chosen by 5-fold cross-validation over whole
# documents of eng.train (eng.testa not read): match, words and penalty for
# each learner type, whose scores have their own scale.
#
#   go run ./cmd/trellis run specs/conll2003-global.hcl

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2003/ (relative to this spec)."
}

experiment "conll2003-global" {
  seed        = 1
  description = "CoNLL-2003 English NER, tested on eng.testa: sentence-by-sentence Viterbi against document consistency by dual decomposition."
}

corpus "train" {
  path    = "${var.data_dir}/conll2003/eng.train"
  format  = "conll"
  columns = ["word", "pos", "chunk", "ner"]
}

corpus "test" {
  path    = "${var.data_dir}/conll2003/eng.testa"
  format  = "conll"
  columns = ["word", "pos", "chunk", "ner"]
}

labels {
  column = "ner"
  scheme = "iob1"
}

features {
  emission "w" {
    column  = "word"
    offsets = [-2, -1, 0, 1, 2]
  }
  emission "wl" {
    column    = "word"
    offsets   = [-1, 0, 1]
    lowercase = true
  }
  emission "pos" {
    column  = "pos"
    offsets = [-1, 0, 1]
  }
  emission "chunk" {
    column  = "chunk"
    offsets = [0]
  }
  shape "shape" {
    column  = "word"
    offsets = [-1, 0, 1]
  }
  shape "shaped" {
    column  = "word"
    offsets = [-1, 0, 1]
    kind    = "compact"
  }
  prefix "pre" {
    column  = "word"
    lengths = [1, 2, 3, 4]
  }
  suffix "suf" {
    column  = "word"
    lengths = [1, 2, 3, 4]
  }
  digit "dig" {
    column = "word"
  }
  hyphen "hyph" {
    column = "word"
  }
  transition "trans" {}
}

learner "perceptron" {
  type   = "perceptron"
  epochs = 10
}

learner "perceptron-dd" {
  type   = "perceptron"
  epochs = 10
  consistency {
    match   = "token"
    words   = "capitalized"
    penalty = 20
  }
}

learner "crf" {
  type = "crf"
  c2   = 1
}

learner "crf-dd" {
  type = "crf"
  c2   = 1
  consistency {
    match   = "token"
    words   = "capitalized"
    penalty = 2
  }
}

evaluation {
  train = "train"
  test  = "test"
}
