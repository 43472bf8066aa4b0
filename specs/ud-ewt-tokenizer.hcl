# A tokenizer and sentence splitter for English, learned from UD English EWT:
# a CRF over the characters of each document's raw text (its sentences' "# text"
# joined by single spaces), labelled B-W/I-W for a token, B-F/I-F for a token
# that ends its sentence, and O for white space (the rawtext format). This is
# the route of Evang et al. (2013) and UDPipe's tokenizer.
#
#   go run ./cmd/trellis run specs/ud-ewt-tokenizer.hcl
#   go run ./cmd/trellis tokenize --tokenizer runs/ud-ewt-tokenizer/models/crf.model \
#     --score ../shared/data/ud-english-ewt/en_ewt-ud-test.conllu
#
# The shipped model en-tokenizer (framework/pretrained) is this spec's crf
# model, gzipped: gzip -9n < runs/ud-ewt-tokenizer/models/crf.model >
# framework/pretrained/models/en-tokenizer.model.gz
#
# The data is CC BY-SA 4.0 (see ud-english-ewt/LICENSE.txt); so is a model
# trained on it.

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding ud-english-ewt/ (relative to this spec)."
}

experiment "ud-ewt-tokenizer" {
  seed        = 1
  description = "English tokenization and sentence splitting on UD EWT, as character labeling."
}

corpus "train" {
  path   = "${var.data_dir}/ud-english-ewt/en_ewt-ud-train.conllu"
  format = "rawtext"
}

corpus "dev" {
  path   = "${var.data_dir}/ud-english-ewt/en_ewt-ud-dev.conllu"
  format = "rawtext"
}

corpus "test" {
  path   = "${var.data_dir}/ud-english-ewt/en_ewt-ud-test.conllu"
  format = "rawtext"
}

labels {
  column = "label"
  scheme = "bio"
}

# Character trigrams and class 5-grams were dropped on dev: without them the
# dev scores are level (token F1 -0.07, boundary F1 +0.17) and tokenizing is
# twice as fast (docs/results.md, "Tokenizer and sentence splitter").
features {
  emission "c" {
    column  = "char"
    offsets = [-3, -2, -1, 0, 1, 2, 3]
  }
  emission "c2" {
    column  = "char"
    offsets = [-3, -2, -1, 0, 1, 2]
    ngram   = 2
  }
  emission "k3" {
    column  = "class"
    offsets = [-3, -2, -1, 0, 1, 2]
    ngram   = 3
  }
  emission "chunk" {
    column    = "chunk"
    offsets   = [-2, 0, 2]
    lowercase = true
  }
  transition "trans" {}
}

# c1 (L1) keeps a quarter of the features at the same dev scores, so the
# shipped model is small; 400 L-BFGS iterations is where the dev scores had
# settled (docs/results.md, "Tokenizer and sentence splitter").
learner "crf" {
  type           = "crf"
  c1             = 0.05
  c2             = 1
  max_iterations = 400
}

evaluation {
  train = "train"
  dev   = "dev"
  test  = "test"
}
