# CoNLL-2003 English NER from words alone: specs/conll2003-doc.hcl's
# features (builtin templates, eng.train only) without the chunk column, and
# with the POS column the shipped tagger en-xpos gives the words instead of
# the corpus's own. The stage block runs en-xpos on every sentence (no
# jackknifing: it was trained on UD EWT and never saw them) into the column
# "xpos" the templates read; the corpus's POS and chunk columns are named
# gold_pos and gold_chunk, which no template reads. The model file carries
# en-xpos, so it tags raw text by itself, one command:
#
#   go run ./cmd/trellis run specs/conll2003-xpos.hcl
#   echo "John Smith flew from London to Paris on Monday." | go run ./cmd/trellis tag \
#     --model runs/conll2003-xpos/models/crf.model --input text --output json
#
# No setting was picked by looking at eng.testa: the learners' and the
# templates' are conll2003-doc.hcl's. CoNLL-2003 (Reuters text) cannot ship:
# this spec builds the model (docs/results.md, "Chunks and entities from raw
# words").

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2003/ (relative to this spec)."
}

experiment "conll2003-xpos" {
  seed        = 1
  description = "CoNLL-2003 English NER from words: en-xpos's POS tags as a model stage, document features, tested on eng.testa."
}

corpus "train" {
  path    = "${var.data_dir}/conll2003/eng.train"
  format  = "conll"
  columns = ["word", "gold_pos", "gold_chunk", "ner"]
}

corpus "test" {
  path    = "${var.data_dir}/conll2003/eng.testa"
  format  = "conll"
  columns = ["word", "gold_pos", "gold_chunk", "ner"]
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
    column  = "xpos"
    offsets = [-1, 0, 1]
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
  document "doc" {
    column       = "word"
    context_case = true
  }
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
  c2   = 1
  stage {
    model  = "en-xpos"
    column = "xpos"
  }
}

evaluation {
  train = "train"
  test  = "test"
}
