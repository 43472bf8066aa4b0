# The tiny chunking experiment with a tiny BiLSTM-CRF (word, character and
# POS embeddings), for the tests that take a model with a network
# (trellis-beam's).
experiment "chunk-neural" {
  seed = 3
}

corpus "train" {
  path    = "chunk-train.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}

corpus "test" {
  path    = "chunk-test.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}

labels {
  column = "chunk"
  scheme = "iob2"
}

features {
  transition "trans" {}
}

encoder "bilstm" {
  word_dim      = 8
  char_dim      = 4
  char_filters  = 4
  hidden        = 8
  columns       = { pos = 4 }
  epochs        = 6
  batch_size    = 4
  learning_rate = 0.01
}

learner "bilstm_crf" {
  type    = "crf"
  encoder = "bilstm"
}

evaluation {
  train = "train"
  test  = "test"
}
