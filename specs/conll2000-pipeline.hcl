# CoNLL-2000 chunking from words alone: specs/conll2000-xpos.hcl's features
# (CRFsuite's baseline set) with the CRF, and a perceptron, trained on the POS
# tags the shipped tagger en-xpos gives the training words, not on the gold
# ones. The stage block runs en-xpos on every train and dev sentence (no
# jackknifing: en-xpos was trained on UD EWT and never saw them) into the
# column "xpos" the templates read; the corpus's gold POS column is named
# "gold_pos", which no template reads. Each model file carries en-xpos, so it
# tags raw text by itself:
#
#   go run ./cmd/trellis run specs/conll2000-pipeline.hcl
#   echo "Stocks fell 3% in New York on Monday." | go run ./cmd/trellis tag \
#     --model runs/conll2000-pipeline/models/crf.model --input text --output json
#
# c2 was picked on a held-out tenth of train, never on test:
#
#   go run ./cmd/trellis run specs/conll2000-pipeline.hcl --var train=train9 --var test=heldout \
#     --var c2=0.5 --learner crf                              # and c2=1, c2=2
#
# (docs/results.md, "Chunks and entities from raw words"). CoNLL-2000 (Wall
# Street Journal text) cannot ship: this spec builds the model.

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
  default     = 0.5
  description = "The CRF's L2 penalty."
}

experiment "conll2000-pipeline" {
  seed        = 1
  description = "CoNLL-2000 chunking (IOB2) from words: en-xpos's POS tags as a model stage, CRFsuite baseline features."
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
