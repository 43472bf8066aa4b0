# Plugin demo: the quickstart's UPOS tagging on the shipped UD English EWT
# sample, plus two feature-extractor plugins that run as separate processes:
# a gazetteer (phrase lists in data/gazetteer) and regular-expression token
# classes with a real-valued length feature. Build the plugins first:
#
#   go build -o bin/plugins/ ./plugins/...
#   go run ./cmd/trellis run specs/plugin-demo.hcl
#
# `trellis plugins specs/plugin-demo.hcl` lists the plugins with their
# versions and checksums; add sha256 = "..." to a plugin block to pin one.

variable "sample_dir" {
  default     = "data/ud-ewt-sample"
  description = "Folder with train/dev/test .conllu files (relative to this spec)."
}

variable "plugin_dir" {
  default     = "../bin/plugins"
  description = "Folder holding the plugin binaries (relative to this spec)."
}

experiment "plugin-demo" {
  seed        = 1
  description = "UPOS tagging on the UD English EWT sample with gazetteer and regex plugins."
}

corpus "train" {
  path   = "${var.sample_dir}/train.conllu"
  format = "conllu"
}

corpus "dev" {
  path   = "${var.sample_dir}/dev.conllu"
  format = "conllu"
}

corpus "test" {
  path   = "${var.sample_dir}/test.conllu"
  format = "conllu"
}

labels {
  column = "upos"
  scheme = "none"
}

features {
  emission "w" {
    column    = "form"
    lowercase = true
  }
  suffix "suf" {
    column  = "form"
    lengths = [1, 2, 3]
  }
  case "case" {
    column = "form"
  }
  digit "dig" {
    column = "form"
  }
  hyphen "hyph" {
    column = "form"
  }
  plugin "gaz" {
    binary = "${var.plugin_dir}/gazetteer"
    config {
      column = "form"
      lists = {
        COUNTRY = "data/gazetteer/countries.txt"
        CITY    = "data/gazetteer/cities.txt"
        ORG     = "data/gazetteer/organizations.txt"
      }
    }
  }
  plugin "re" {
    binary = "${var.plugin_dir}/regex"
    config {
      column = "form"
      classes = {
        number  = "^[0-9]+([.,][0-9]+)*$"
        year    = "^(1[89]|20)[0-9][0-9]$"
        time    = "^[0-9]{1,2}:[0-9]{2}$"
        url     = "^(https?://|www\\.)"
        email   = "^[^@ ]+@[^@ ]+\\.[a-z]+$"
        allcaps = "^[A-Z][A-Z]+$"
        initcap = "^[A-Z][a-z]"
        punct   = "^[[:punct:]]+$"
      }
      offsets = [-1, 0, 1]
      length  = true
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
  c2   = 0.1
}

evaluation {
  train = "train"
  dev   = "dev"
  test  = "test"
}
