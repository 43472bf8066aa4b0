package scheme

import (
	"reflect"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/lattice"
)

// TestConstraints: the constraints are Allowed's answer, and decoding
// under them keeps a sequence well-formed even where the state scores
// alone would break it.
func TestConstraints(t *testing.T) {
	tests := []struct {
		s      Scheme
		labels string
		// favourite is the label each token's state scores prefer; the
		// constrained decode must still satisfy the scheme.
		favourite string
	}{
		{IOB2, "O B-X I-X B-Y I-Y", "O I-X I-Y O"},
		{BIOES, "O B-X I-X E-X S-X", "I-X O E-X B-X"},
		{BMES, "B M E S", "M S M M"},
		{BI, "B I", "I I B I"},
		{IOB1, "O B-X I-X", "I-X O I-X"},
		{None, "O B-X I-X", "I-X I-X O"},
	}
	for _, tt := range tests {
		t.Run(tt.s.String(), func(t *testing.T) {
			labels := strings.Fields(tt.labels)
			c := Constraints(labels, tt.s)
			trans, start, stop := Allowed(labels, tt.s)
			if !reflect.DeepEqual(c, &lattice.Constraints{Trans: trans, Start: start, Stop: stop}) {
				t.Fatalf("Constraints %+v differ from Allowed", c)
			}
			l := len(labels)
			fav := strings.Fields(tt.favourite)
			s := &lattice.Scores{N: len(fav), L: l, State: make([]float64, len(fav)*l)}
			for i, name := range fav {
				for y, lab := range labels {
					if lab == name {
						s.State[i*l+y] = 5
					}
				}
			}
			zero := make([]float64, l)
			lattice.NewChain(make([]float64, l*l), zero, zero, c).Attach(s)
			path := make([]int32, len(fav))
			lattice.NewWorkspace(l).Viterbi(path, s)
			got := make([]string, len(path))
			for i, y := range path {
				got[i] = labels[y]
			}
			if err := wellFormed(got, labels, tt.s); err != "" {
				t.Fatalf("decoded %v: %s", got, err)
			}
		})
	}
}

func wellFormed(seq, labels []string, s Scheme) string {
	trans, start, stop := Allowed(labels, s)
	idx := map[string]int{}
	for i, l := range labels {
		idx[l] = i
	}
	if !start[idx[seq[0]]] || !stop[idx[seq[len(seq)-1]]] {
		return "ill-formed start or stop"
	}
	for i := 1; i < len(seq); i++ {
		if !trans[idx[seq[i-1]]*len(labels)+idx[seq[i]]] {
			return seq[i-1] + " -> " + seq[i] + " is ill-formed"
		}
	}
	return ""
}
