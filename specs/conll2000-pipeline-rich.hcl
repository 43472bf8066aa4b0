# CoNLL-2000 chunking from words alone, richer features:
# specs/conll2000-rich.hcl's (CRFsuite's baseline set plus word/POS
# conjunctions, trained in BIOES) and the word's own shape, case, 1-4
# character suffixes, 1-3 character prefixes and lowercased neighbours, which
# do not depend on the POS tags. As in specs/conll2000-pipeline.hcl, the
# learners train on the POS tags the shipped tagger en-xpos gives the training
# words (a model stage into the column "xpos"; the gold POS column,
# "gold_pos", is read by no template), and each model file carries en-xpos,
# so it tags raw text alone:
#
#   go run ./cmd/trellis run specs/conll2000-pipeline-rich.hcl
#   echo "Stocks fell 3% in New York on Monday." | go run ./cmd/trellis tag \
#     --model runs/conll2000-pipeline-rich/models/perceptron.model --input text --output json
#
# The word features, c2 and the learner (the perceptron) were picked on a
# held-out tenth of train, never on test:
#
#   go run ./cmd/trellis run specs/conll2000-pipeline-rich.hcl --var train=train9 --var test=heldout \
#     --var c2=0.5                                            # and c2=1 --learner crf
#
# (docs/results.md, "Chunks and entities from raw words"). CoNLL-2000 cannot
# ship: this spec builds the model.

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2000/ (relative to this spec)."
}

variable "train" {
  default     = "train"
  description = "The corpus trained on: train, or train9 (9/10 of it) for picking settings."
}

variable "test" {
  default     = "test"
  description = "The corpus tested on: test, or heldout (the tenth train9 leaves out)."
}

variable "c2" {
  default     = 1
  description = "The CRF's L2 penalty."
}

experiment "conll2000-pipeline-rich" {
  seed        = 1
  description = "CoNLL-2000 chunking from words, trained in BIOES: en-xpos's POS tags as a model stage, word/POS conjunctions."
}

corpus "train" {
  path    = "${var.data_dir}/conll2000/train.txt"
  format  = "conll"
  columns = ["word", "gold_pos", "chunk"]
}

corpus "train9" {
  path    = "${var.data_dir}/conll2000/train.txt"
  format  = "conll"
  columns = ["word", "gold_pos", "chunk"]
  split {
    folds = 10
    fold  = 0
    take  = "rest"
  }
}

corpus "heldout" {
  path    = "${var.data_dir}/conll2000/train.txt"
  format  = "conll"
  columns = ["word", "gold_pos", "chunk"]
  split {
    folds = 10
    fold  = 0
    take  = "fold"
  }
}

corpus "test" {
  path    = "${var.data_dir}/conll2000/test.txt"
  format  = "conll"
  columns = ["word", "gold_pos", "chunk"]
}

labels {
  column = "chunk"
  scheme = "iob2"
  encode = "bioes"
}

features {
  emission "w" {
    column  = "word"
    offsets = [-2, -1, 0, 1, 2]
  }
  emission "w2" {
    column  = "word"
    offsets = [-1, 0]
    ngram   = 2
  }
  emission "pos" {
    column  = "xpos"
    offsets = [-2, -1, 0, 1, 2]
  }
  emission "pos2" {
    column  = "xpos"
    offsets = [-2, -1, 0, 1]
    ngram   = 2
  }
  emission "pos3" {
    column  = "xpos"
    offsets = [-2, -1, 0]
    ngram   = 3
  }
  emission "wp" {
    join = ["word[0]", "xpos[0]"]
  }
  emission "wp1" {
    join = ["word[-1]", "xpos[0]"]
  }
  emission "wp2" {
    join = ["xpos[-1]", "word[0]"]
  }
  emission "wp3" {
    join = ["word[0]", "xpos[1]"]
  }
  suffix "suf" {
    column  = "word"
    lengths = [1, 2, 3, 4]
  }
  prefix "pre" {
    column  = "word"
    lengths = [1, 2, 3]
  }
  shape "shape" {
    column  = "word"
    offsets = [-1, 0, 1]
    kind    = "compact"
  }
  shape "shapef" {
    column  = "word"
    offsets = [-1, 0, 1]
  }
  case "case" {
    column = "word"
  }
  emission "wl" {
    column    = "word"
    offsets   = [-2, -1, 0, 1, 2]
    lowercase = true
  }
  boundary "bound" {}
  transition "trans" {}
}

learner "perceptron" {
  type   = "perceptron"
  epochs = 10
  stage {
    model  = "en-xpos"
    column = "xpos"
  }
}

learner "crf" {
  type = "crf"
  c2   = var.c2
  stage {
    model  = "en-xpos"
    column = "xpos"
  }
}

evaluation {
  train = var.train
  test  = var.test
}
