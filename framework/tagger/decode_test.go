package tagger_test

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// TestDecodeMethods tags the same sentences with every decoding method:
// each gives labels the IOB2 constraints allow, a beam as wide as the
// label set gives Viterbi's labels, replicas decode alike, and the detailed path (--marginals)
// reports the method's own path, not Viterbi's.
func TestDecodeMethods(t *testing.T) {
	m := tinyModel(t)
	reg, _ := builtin.Registries()
	constrained := true
	input := "the DT\nbird NN\nflew VBD\n\nzebra NN\n\nsat VBD\nthe DT\nmat NN\nthe DT\n"
	read := func(f corpus.Format) []*corpus.Sentence {
		r := f.NewReader(strings.NewReader(input), "in", corpus.ReadOptions{LabelOptional: true})
		var out []*corpus.Sentence
		for {
			s, err := r.Read()
			if err == io.EOF {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
	}
	tagWith := func(opt tagger.Options) ([][]string, []tagger.Decoded) {
		opt.Constrained = &constrained
		tg, err := tagger.New(m, reg, opt)
		if err != nil {
			t.Fatal(err)
		}
		defer tg.Close()
		pred, err := tg.Tag(read(tg.Format))
		if err != nil {
			t.Fatal(err)
		}
		det, err := tg.TagDetailed(read(tg.Format), 1)
		if err != nil {
			t.Fatal(err)
		}
		// A replica decodes the way its tagger does.
		rep, err := tg.Replica(reg)
		if err != nil {
			t.Fatal(err)
		}
		defer rep.Close()
		again, err := rep.Tag(read(tg.Format))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(pred, again, slices.Equal) {
			t.Errorf("replica tagged %v, tagger %v", again, pred)
		}
		return pred, det
	}
	viterbi, _ := tagWith(tagger.Options{})
	for _, c := range []struct {
		name string
		opt  tagger.Options
	}{
		{"greedy", tagger.Options{Decode: lattice.DecodeGreedy}},
		{"beam-1", tagger.Options{Decode: lattice.DecodeBeam, Beam: 1}},
		{"beam-L", tagger.Options{Decode: lattice.DecodeBeam, Beam: len(m.Labels)}},
		{"posterior", tagger.Options{Decode: lattice.DecodePosterior}},
	} {
		t.Run(c.name, func(t *testing.T) {
			pred, det := tagWith(c.opt)
			for k, labels := range pred {
				if c, bad := scheme.Forbidden(labels, scheme.IOB2); bad {
					t.Errorf("sentence %d: %v is ill-formed: %+v", k, labels, c)
				}
				if !slices.Equal(det[k].Paths[0], labels) {
					t.Errorf("sentence %d: detailed path %v, Tag %v", k, det[k].Paths[0], labels)
				}
				if c.name == "beam-L" && !slices.Equal(labels, viterbi[k]) {
					t.Errorf("sentence %d: beam %d %v, Viterbi %v", k, len(m.Labels), labels, viterbi[k])
				}
			}
			if c.name == "greedy" && !slices.Equal(pred[0], []string{"B-NP", "I-NP", "O"}) {
				t.Errorf("greedy tagged %v, want [B-NP I-NP O]", pred[0])
			}
		})
	}
	if _, err := tagger.New(m, reg, tagger.Options{Decode: lattice.DecodeBeam}); err == nil {
		t.Error("beam decoding without a width was accepted")
	}
}
