package plugin_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/plugin"
	"github.com/trellis-nlp/trellis/framework/spec"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// conll2003Features are specs/conll2003.hcl's templates without the
// affixes, which the benchmark adds as builtins or through the plugin.
const conll2003Features = `
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
    column = "chunk"
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
  digit "dig" {
    column = "word"
  }
  hyphen "hyph" {
    column = "word"
  }
`

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
			features := builtinAffixes
			if tc.plugin {
				features = fmt.Sprintf(pluginAffixes, filepath.Join(bin, "affix"))
			}
			if tc.rest {
				features = conll2003Features + features
			}
			src := fmt.Sprintf(`experiment "bench" {}
corpus "train" {
  path    = %q
  format  = "conll"
  columns = ["word", "pos", "chunk", "ner"]
}
labels {
  column = "ner"
  scheme = "iob1"
}
features {
%s}
learner "hmm" {
  type = "hmm"
}
evaluation {
  train = "train"
  test  = "train"
}
`, data, features)
			specPath := filepath.Join(b.TempDir(), "bench.hcl")
			if err := os.WriteFile(specPath, []byte(src), 0o644); err != nil {
				b.Fatal(err)
			}
			s, diags := spec.LoadFile(specPath, nil, reg)
			if diags.HasErrors() {
				b.Fatal(diags.Error())
			}
			cols := feature.Columns{Names: []string{"word", "pos", "chunk", "ner"}, Label: 3}
			var xs []feature.Extractor
			for _, ti := range s.Features.Templates {
				x, err := ti.Template.Compile(ti.Name, cols)
				if err != nil {
					b.Fatal(err)
				}
				xs = append(xs, x)
			}
			sents := readAll(b, s.Corpus("train"))
			tokens := 0
			for _, st := range sents {
				tokens += st.Len()
			}
			b.ResetTimer()
			var attrs int
			for n := 0; n < b.N; n++ {
				e := feature.NewEncoder(feature.NewDictionary(), feature.NewDictionary(), true, xs, 3)
				if err := e.EncodeAll(context.Background(), sents, tagger.BatchSize, nil); err != nil {
					b.Fatal(err)
				}
				attrs = e.Attrs.Len()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*tokens), "ns/token")
			b.ReportMetric(float64(attrs), "attributes")
		})
	}
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
