# specs/conll2000.hcl's CRF with the POS column named "xpos", the column the
# shipped tagger en-xpos labels, so the two make a pipeline from raw text:
#
#   go run ./cmd/trellis run specs/conll2000-xpos.hcl
#   echo "Stocks fell 3% in New York on Monday." | go run ./cmd/trellis tag \
#     --model en-xpos --model runs/conll2000-xpos/models/crf.model --input text --output json
#
# CoNLL-2000 is Wall Street Journal text from the Penn Treebank, under no
# licence that lets a model trained on it ship with trellis: this spec builds
# it. It learns from gold POS tags and is given en-xpos's (trained on web
# text) in the pipeline, which costs F1 (docs/results.md, "Raw words to chunks").

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2000/ (relative to this spec)."
}

experiment "conll2000-xpos" {
  seed        = 1
  description = "CoNLL-2000 chunking (IOB2), CRFsuite baseline feature set."
}

corpus "train" {
  path    = "${var.data_dir}/conll2000/train.txt"
  format  = "conll"
  columns = ["word", "xpos", "chunk"]
}

corpus "test" {
  path    = "${var.data_dir}/conll2000/test.txt"
  format  = "conll"
  columns = ["word", "xpos", "chunk"]
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

learner "crf" {
  type = "crf"
  c2   = 1
}

evaluation {
  train = "train"
  test  = "test"
}
