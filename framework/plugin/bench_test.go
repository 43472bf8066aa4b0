package plugin_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/plugin"
	"github.com/trellis-nlp/trellis/framework/spec"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// affixSpec is a spec whose only features are the affixes (%[2]s), on
// CoNLL-2003 eng.train (%[1]s).
const affixSpec = `experiment "bench" {}
corpus "train" {
  path    = %[1]q
  format  = "conll"
  columns = ["word", "pos", "chunk", "ner"]
}
labels {
  column = "ner"
  scheme = "iob1"
}
features {
%[2]s}
learner "hmm" {
  type = "hmm"
}
evaluation {
  train = "train"
  test  = "train"
}
`

// builtinAffixes are specs/conll2003.hcl's prefix and suffix blocks.
const builtinAffixes = `
  prefix "pre" {
    column  = "word"
    lengths = [1, 2, 3, 4]
  }
  suffix "suf" {
    column  = "word"
    lengths = [1, 2, 3, 4]
  }
`

const pluginAffixes = `
  plugin "pre" {
    binary = %[1]q
    config {
      column  = "word"
      lengths = [1, 2, 3, 4]
    }
  }
  plugin "suf" {
    binary = %[1]q
    config {
      column  = "word"
      suffix  = true
      lengths = [1, 2, 3, 4]
    }
  }
`

// BenchmarkEncodeConll2003 encodes CoNLL-2003 eng.train (read once, before
// the timer) the way a run does — batches of tagger.BatchSize sentences,
// the next one prefetched — with 1-4 character prefixes and suffixes
// computed by the builtin templates or by the affix test plugin, which
// emits the same attributes: alone ("affixes") and next to the rest of
// specs/conll2003.hcl's features ("conll2003"). The plugin's cost is the
// difference between the builtin and plugin variants.
func BenchmarkEncodeConll2003(b *testing.B) {
	data := filepath.Join("..", "..", "..", "shared", "data", "conll2003", "eng.train")
	if _, err := os.Stat(data); err != nil {
		b.Skip("../shared/data/conll2003/eng.train is absent (the public corpora are not on this machine)")
	}
	data, _ = filepath.Abs(data)
	for _, tc := range []struct {
		name         string
		rest, plugin bool
	}{
		{"affixes/builtin", false, false},
		{"affixes/plugin", false, true},
		{"conll2003/builtin", true, false},
		{"conll2003/plugin", true, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			h, _, reg := newHost(b, plugin.Options{Log: zerolog.Nop()})
			defer h.Close()
			// The affixes alone, or specs/conll2003.hcl itself; with the
			// plugin, its prefix and suffix blocks are swapped for the
			// plugin's.
			affixes := builtinAffixes
			if tc.plugin {
				affixes = fmt.Sprintf(pluginAffixes, filepath.Join(bin, "affix"))
			}
			src := fmt.Sprintf(affixSpec, data, affixes)
			if tc.rest {
				shipped, err := os.ReadFile("../../specs/conll2003.hcl")
				if err != nil {
					b.Fatal(err)
				}
				src = strings.Replace(string(shipped), `default     = "../../shared/data"`, fmt.Sprintf("default = %q", filepath.Dir(filepath.Dir(data))), 1)
				if !strings.Contains(src, builtinAffixes) {
					b.Fatal("specs/conll2003.hcl's prefix and suffix blocks are no longer builtinAffixes")
				}
				src = strings.Replace(src, builtinAffixes, affixes, 1)
			}
			specPath := filepath.Join(b.TempDir(), "bench.hcl")
			if err := os.WriteFile(specPath, []byte(src), 0o644); err != nil {
				b.Fatal(err)
			}
			s, diags := spec.LoadFile(specPath, nil, reg)
			if diags.HasErrors() {
				b.Fatal(diags.Error())
			}
			benchEncode(b, s)
		})
	}
}

// benchEncode encodes spec s's train corpus b.N times, the way a run does.
func benchEncode(b *testing.B, s *spec.Spec) {
	cols := feature.Columns{Names: []string{"word", "pos", "chunk", "ner"}, Label: 3}
	var xs []feature.Extractor
	for _, ti := range s.Features.Templates {
		x, err := ti.Template.Compile(ti.Name, cols)
		if err != nil {
			b.Fatal(err)
		}
		if x != nil { // the transition template extracts nothing
			xs = append(xs, x)
		}
	}
	sents := readAll(b, s.Corpus("train"))
	tokens := 0
	for _, st := range sents {
		tokens += st.Len()
	}
	b.ResetTimer()
	var attrs int
	for n := 0; n < b.N; n++ {
		e := feature.NewEncoder(feature.NewDictionary(), feature.NewDictionary(), feature.ModeTrain(), xs, 3)
		if err := e.EncodeAll(context.Background(), sents, tagger.BatchSize, nil); err != nil {
			b.Fatal(err)
		}
		attrs = e.Attrs.Len()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*tokens), "ns/token")
	b.ReportMetric(float64(attrs), "attributes")
}

// BenchmarkEncodeKnowledge encodes CoNLL-2003 eng.train with
// specs/conll2003.hcl (builtin templates only) and with
// specs/conll2003-knowledge.hcl (the same plus the gazetteer and wordnet
// plugins). It needs the lists `gazetteer import` built, in the folder
// TRELLIS_BENCH_LISTS names, and WordNet in /usr/share/wordnet. With
// TRELLIS_BENCH_CLUSTERS naming a cluster file (`trellis clusters`), it
// also encodes with specs/conll2003-clusters.hcl (knowledge plus the
// builtin clusters template).
func BenchmarkEncodeKnowledge(b *testing.B) {
	data, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "data"))
	if _, err := os.Stat(filepath.Join(data, "conll2003", "eng.train")); err != nil {
		b.Skip("../shared/data/conll2003/eng.train is absent (the public corpora are not on this machine)")
	}
	lists := os.Getenv("TRELLIS_BENCH_LISTS")
	if lists == "" {
		b.Skip("set TRELLIS_BENCH_LISTS to the folder gazetteer import wrote (see specs/conll2003-knowledge.hcl)")
	}
	if _, err := os.Stat("/usr/share/wordnet/data.noun"); err != nil {
		b.Skip("no WordNet in /usr/share/wordnet (apt-get install wordnet-base)")
	}
	vars := map[string]string{"data_dir": data, "plugin_dir": bin, "lists_dir": lists, "wordnet_dict": "/usr/share/wordnet"}
	for _, tc := range []struct{ name, spec string }{
		{"builtin", "conll2003.hcl"},
		{"knowledge", "conll2003-knowledge.hcl"},
		{"builtin+clusters", "conll2003.hcl"},
		{"clusters", "conll2003-clusters.hcl"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			specPath := filepath.Join("../../specs", tc.spec)
			v := vars
			switch tc.name {
			case "builtin":
				v = map[string]string{"data_dir": data}
			case "builtin+clusters", "clusters":
				clusters := os.Getenv("TRELLIS_BENCH_CLUSTERS")
				if clusters == "" {
					b.Skip("set TRELLIS_BENCH_CLUSTERS to a cluster file (see specs/conll2003-clusters.hcl)")
				}
				v = map[string]string{"clusters": clusters}
				for k, x := range vars {
					v[k] = x
				}
				if tc.name == "builtin+clusters" {
					// specs/conll2003.hcl plus the clusters block of
					// specs/conll2003-clusters.hcl: the template's own cost.
					specPath = builtinWithClusters(b, data, clusters)
					v = nil
				}
			}
			h, _, reg := newHost(b, plugin.Options{Log: zerolog.Nop()})
			defer h.Close()
			s, diags := spec.LoadFile(specPath, v, reg)
			if diags.HasErrors() {
				b.Fatal(diags.Error())
			}
			benchEncode(b, s)
		})
	}
}

// builtinWithClusters writes specs/conll2003.hcl with a clusters block
// (offsets -1, 0, 1, as specs/conll2003-clusters.hcl) and absolute paths.
func builtinWithClusters(b *testing.B, data, clusters string) string {
	src, err := os.ReadFile("../../specs/conll2003.hcl")
	if err != nil {
		b.Fatal(err)
	}
	block := "clusters \"bc\" {\n    column  = \"word\"\n    path    = \"" + clusters + "\"\n    offsets = [-1, 0, 1]\n  }\n  transition \"trans\" {}"
	text := strings.Replace(string(src), `transition "trans" {}`, block, 1)
	text = strings.Replace(text, `default     = "../../shared/data"`, `default     = "`+data+`"`, 1)
	if !strings.Contains(text, block) || !strings.Contains(text, data) {
		b.Fatal("specs/conll2003.hcl no longer has the transition block or the data_dir default this benchmark edits")
	}
	path := filepath.Join(b.TempDir(), "builtin-clusters.hcl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

func readAll(b *testing.B, c *spec.Corpus) []*corpus.Sentence {
	b.Helper()
	f, err := corpus.New(c.Format)
	if err != nil {
		b.Fatal(err)
	}
	fh, err := os.Open(c.Path)
	if err != nil {
		b.Fatal(err)
	}
	defer fh.Close()
	r := f.NewReader(fh, c.Path, corpus.ReadOptions{})
	var out []*corpus.Sentence
	for {
		s, err := r.Read()
		if err != nil {
			if err != io.EOF {
				b.Fatal(err)
			}
			return out
		}
		out = append(out, s)
	}
}
