# Held-out selection for specs/conll2000-latent-rich.hcl: trains on 9/10 of
# CoNLL-2000 train and scores the held-out tenth (sentences 0, 10, 20, ...);
# the test set is not read. Features: CRFsuite's baseline chunking features
# plus the word/POS conjunctions of specs/conll2000-rich.hcl, in IOB2. The
# CRF's c2 = 0.5 is specs/conll2000-rich.hcl's cross-validated value; the
# latent rows vary the states per label and c2, all with the penalty
# centred on the split and 100 iterations after it.
#
#   go run ./cmd/trellis run specs/conll2000-latent-rich-dev.hcl --threads 2

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2000/ (relative to this spec)."
}

experiment "conll2000-latent-rich-dev" {
  seed        = 1
  description = "CoNLL-2000 chunking, train split 9:1, baseline features plus word/POS conjunctions: latent CRF settings scored on the held-out tenth."
}

corpus "train" {
  path    = "${var.data_dir}/conll2000/train.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
  split {
    folds = 10
    fold  = 0
    take  = "rest"
  }
}

corpus "dev" {
  path    = "${var.data_dir}/conll2000/train.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
  split {
    folds = 10
    fold  = 0
    take  = "fold"
  }
}

# The same held-out tenth again as the test corpus, for the final table
# (this spec never reads test.txt).
corpus "test" {
  path    = "${var.data_dir}/conll2000/train.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
  split {
    folds = 10
    fold  = 0
    take  = "fold"
  }
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
    column  = "pos"
    offsets = [-2, -1, 0, 1, 2]
  }
  emission "pos2" {
    column  = "pos"
    offsets = [-2, -1, 0, 1]
    ngram   = 2
  }
  emission "pos3" {
    column  = "pos"
    offsets = [-2, -1, 0]
    ngram   = 3
  }
  emission "wp" {
    join = ["word[0]", "pos[0]"]
  }
  emission "wp1" {
    join = ["word[-1]", "pos[0]"]
  }
  emission "wp2" {
    join = ["pos[-1]", "word[0]"]
  }
  emission "wp3" {
    join = ["word[0]", "pos[1]"]
  }
  boundary "bound" {}
  transition "trans" {}
}


learner "crf" {
  type = "crf"
  c2   = 0.5
}

learner "latent_k2" {
  type              = "crf"
  c2                = 0.5
  hidden_states     = 2
  prior             = "split"
  hidden_iterations = 100
  dev_every         = 20
}

learner "latent_k3" {
  type              = "crf"
  c2                = 0.5
  hidden_states     = 3
  prior             = "split"
  hidden_iterations = 100
  dev_every         = 20
  decode            = "labelpath"
}

learner "latent_k4" {
  type              = "crf"
  c2                = 0.5
  hidden_states     = 4
  prior             = "split"
  hidden_iterations = 100
  dev_every         = 20
  decode            = "labelpath"
}

learner "latent_k3_c1" {
  type              = "crf"
  c2                = 1
  hidden_states     = 3
  prior             = "split"
  hidden_iterations = 100
  dev_every         = 20
  decode            = "labelpath"
}

learner "latent_k3_c025" {
  type              = "crf"
  c2                = 0.25
  hidden_states     = 3
  prior             = "split"
  hidden_iterations = 100
  dev_every         = 20
  decode            = "labelpath"
}

evaluation {
  train = "train"
  dev   = "dev"
  test  = "test"
}
