# Choosing the latent CRF's settings without the test set: CoNLL-2000 has
# no dev set, so this spec holds out every tenth sentence of train (fold 0
# of 10; the rest trains) and scores the candidates on it, with a dev
# curve every 5 iterations. The features are specs/conll2000.hcl's
# (CRFsuite's baseline chunking features), as in
# specs/conll2000-learners.hcl, whose latent block takes the pick.
#
#   go run ./cmd/trellis run specs/conll2000-latent-dev.hcl
#
# docs/results.md ("The latent-variable CRF on CoNLL-2000") has the table.

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2000/ (relative to this spec)."
}

experiment "conll2000-latent-dev" {
  seed        = 1
  description = "CoNLL-2000 chunking, train split 9:1: the latent CRF's settings scored on the held-out tenth."
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
  boundary "bound" {}
  transition "trans" {}
}


learner "crf" {
  type = "crf"
  c2   = 1
}

# Two states per label, split from the plain CRF (hidden_init = "split",
# the default), the L2 penalty centred on the split, 100 iterations after
# it; the variants change one thing each.
learner "latent" {
  type              = "crf"
  c2                = 1
  hidden_states     = 2
  prior             = "split"
  hidden_iterations = 100
  dev_every         = 5
}

learner "latent_c05" {
  type              = "crf"
  c2                = 0.5
  hidden_states     = 2
  prior             = "split"
  hidden_iterations = 100
  dev_every         = 5
}

learner "latent_c2" {
  type              = "crf"
  c2                = 2
  hidden_states     = 2
  prior             = "split"
  hidden_iterations = 100
  dev_every         = 5
}

learner "latent_k3" {
  type              = "crf"
  c2                = 1
  hidden_states     = 3
  prior             = "split"
  hidden_iterations = 100
  dev_every         = 5
}

learner "latent_k3_c05" {
  type              = "crf"
  c2                = 0.5
  hidden_states     = 3
  prior             = "split"
  hidden_iterations = 100
  dev_every         = 5
}

evaluation {
  train = "train"
  dev   = "dev"
  test  = "test"
}
