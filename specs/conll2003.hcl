# CoNLL-2003 English NER (IOB1 as distributed): train on eng.train, test on
# eng.testa (the official dev set; eng.testb is not shared). Features follow
# CRFsuite's NER example: words in a window, lowercase words, shape (full and
# compact), 1-4 character prefixes and suffixes, digit classes, hyphen, plus
# the POS and chunk columns the corpus ships. Builtin templates only.
#
#   go run ./cmd/trellis run specs/conll2003.hcl

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2003/ (relative to this spec)."
}

experiment "conll2003" {
  seed        = 1
  description = "CoNLL-2003 English NER, tested on eng.testa."
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
