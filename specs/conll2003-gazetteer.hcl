# CoNLL-2003 English NER with a gazetteer plugin: specs/conll2003.hcl's
# features plus phrase-list features (begin/inside/type of the longest
# match). The lists are derived from the TRAINING corpus only (eng.train;
# never eng.testa), at run time: CoNLL-2003's licence does not allow
# redistributing them, so they are not in the repository.
#
#   go build -o bin/plugins/ ./plugins/...
#   bin/plugins/gazetteer build-lists -min-count 5 -word 0 -label 3 ../shared/data/conll2003/eng.train runs/gazetteer-conll2003
#   go run ./cmd/trellis run specs/conll2003-gazetteer.hcl
#
# (paths from the repository root; build-lists writes PER.txt, LOC.txt,
# ORG.txt and MISC.txt into the folder that gazetteer_dir names.)
#
# Lists of every training entity (-min-count 1) fire perfectly on the
# training data, a trap; `build-lists -folds 10` jackknifes them so that no
# training sentence sees a phrase only its own label listed (plugins/
# gazetteer/README.md; docs/results.md compares the two).

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2003/ (relative to this spec)."
}

variable "plugin_dir" {
  default     = "../bin/plugins"
  description = "Folder holding the plugin binaries (relative to this spec)."
}

variable "gazetteer_dir" {
  default     = "../runs/gazetteer-conll2003"
  description = "Folder holding the lists gazetteer build-lists made from eng.train (relative to this spec)."
}

experiment "conll2003-gazetteer" {
  seed        = 1
  description = "CoNLL-2003 English NER, tested on eng.testa, with gazetteer features from eng.train."
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
  plugin "gaz" {
    binary = "${var.plugin_dir}/gazetteer"
    config {
      column = "word"
      lists = {
        PER  = "${var.gazetteer_dir}/PER.txt"
        LOC  = "${var.gazetteer_dir}/LOC.txt"
        ORG  = "${var.gazetteer_dir}/ORG.txt"
        MISC = "${var.gazetteer_dir}/MISC.txt"
      }
    }
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
