package scheme

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		s      Scheme
		labels string
		index  int // -1: no contradiction
		reason string
	}{
		{"iob2 well formed", IOB2, "O B-PER I-PER O B-LOC", -1, ""},
		{"iob2 I after O", IOB2, "O I-PER I-PER", 1, `"I-PER" follows "O"`},
		{"iob2 I opens the sentence", IOB2, "I-PER O", 0, `"I-PER" begins the sentence`},
		{"iob2 I of another type", IOB2, "B-PER I-LOC", 1, `"I-LOC" follows "B-PER"`},
		{"iob2 foreign prefix", IOB2, "O S-PER", 1, `"S-PER" has none of the iob2 prefixes (B-, I-, O)`},
		{"iob2 bare type", IOB2, "O PER", 1, `"PER" has none of the iob2 prefixes (B-, I-, O)`},
		{"iob1 as distributed", IOB1, "I-PER I-PER B-PER O I-LOC", -1, ""},
		{"iob1 stray B is tolerated", IOB1, "O B-MISC O", -1, ""},
		{"iob1 foreign prefix", IOB1, "O E-PER", 1, `"E-PER" has none of the iob1 prefixes (B-, I-, O)`},
		{"bioes well formed", BIOES, "S-PER O B-LOC I-LOC E-LOC", -1, ""},
		{"bioes O after B", BIOES, "B-LOC O", 1, `"O" follows "B-LOC"`},
		{"bioes open at the end", BIOES, "O B-LOC I-LOC", 2, `"I-LOC" ends the sentence`},
		{"bioes E opens", BIOES, "E-LOC", 0, `"E-LOC" begins the sentence`},
		{"bmes well formed", BMES, "B M E S B E", -1, ""},
		{"bmes O is foreign", BMES, "S O", 1, `"O" has none of the bmes prefixes (B-, M-, E-, S-)`},
		{"bmes open at the end", BMES, "S B", 1, `"B" ends the sentence`},
		{"bi I opens", BI, "I B", 0, `"I" begins the sentence`},
		{"none has no rules", None, "I-X anything O", -1, ""},
		{"empty sentence", IOB2, "", -1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, bad := Check(strings.Fields(tc.labels), tc.s)
			if !bad {
				if tc.index >= 0 {
					t.Fatalf("no contradiction, want one at %d (%s)", tc.index, tc.reason)
				}
				return
			}
			if c.Index != tc.index || c.Reason != tc.reason {
				t.Errorf("contradiction at %d (%s), want at %d (%s)", c.Index, c.Reason, tc.index, tc.reason)
			}
		})
	}
}

// TestCheckAgreesWithAllowed checks, over every sequence of up to four
// labels, that Check accepts exactly the sequences whose labels all carry
// the scheme's prefixes and that a decoder constrained by Allowed can
// produce: a gold sequence Check accepts is never forbidden in decoding.
func TestCheckAgreesWithAllowed(t *testing.T) {
	labels := []string{"O", "B-A", "I-A", "E-A", "S-A", "M-A", "B-B", "I-B", "B", "I", "M", "E", "S"}
	for _, s := range []Scheme{IOB1, IOB2, BIOES, BMES, BI} {
		trans, start, stop := Allowed(labels, s)
		n := len(labels)
		var walk func(seq []int)
		walk = func(seq []int) {
			if len(seq) > 0 {
				words := make([]string, len(seq))
				decodable, prefixed := start[seq[0]] && stop[seq[len(seq)-1]], true
				for i, y := range seq {
					words[i] = labels[y]
					p, _ := Split(labels[y])
					prefixed = prefixed && len(p) == 1 && strings.Contains(letters(s), p)
					if i > 0 {
						decodable = decodable && trans[seq[i-1]*n+y]
					}
				}
				c, bad := Check(words, s)
				if want := !(prefixed && decodable); bad != want {
					t.Fatalf("%s %v: Check says contradiction=%v (%+v), want %v", s, words, bad, c, want)
				}
				if c, bad := Forbidden(words, s); bad != !decodable {
					t.Fatalf("%s %v: Forbidden says %v (%+v), Allowed says decodable=%v", s, words, bad, c, decodable)
				}
			}
			if len(seq) == 4 {
				return
			}
			for y := range n {
				walk(append(seq, y))
			}
		}
		walk(nil)
	}
}

func TestFitSuggest(t *testing.T) {
	tests := []struct {
		name     string
		declared Scheme
		corpus   []string
		want     Scheme // None: no suggestion
	}{
		{"iob1 data declared iob2", IOB2, []string{"I-PER I-PER O", "O I-LOC B-LOC"}, IOB1},
		{"iob2 data declared iob2", IOB2, []string{"B-PER I-PER O", "O B-LOC"}, None},
		{"bioes data declared iob2", IOB2, []string{"S-PER O B-LOC E-LOC"}, BIOES},
		{"iob2 data declared bioes", BIOES, []string{"B-PER O", "B-LOC I-LOC O"}, IOB2},
		{"iob2 data declared iob1", IOB1, []string{"B-NP I-NP B-VP", "O B-PP"}, IOB2},
		{"iob1 data declared iob1", IOB1, []string{"I-PER O", "I-LOC B-LOC"}, None},
		{"iob1 data without B declared iob1", IOB1, []string{"I-PER O"}, None},
		{"bi data declared bmes", BMES, []string{"B I B", "B B I I"}, BI},
		{"bmes data declared bi", BI, []string{"B M E S", "S S"}, BMES},
		{"labels no scheme fits", IOB2, []string{"PER O LOC"}, None},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var f Fit
			for _, s := range tc.corpus {
				f.Add(strings.Fields(s))
			}
			got, ok := f.Suggest(tc.declared)
			if !ok {
				got = None
			}
			if got != tc.want {
				t.Errorf("Suggest(%s) = %s, want %s", tc.declared, got, tc.want)
			}
			if f.Sentences() != len(tc.corpus) {
				t.Errorf("Sentences() = %d, want %d", f.Sentences(), len(tc.corpus))
			}
		})
	}
}

// FuzzCheck checks that Convert's output always passes Check in the
// scheme it was converted to, and that a reported contradiction points at
// a token of the sequence.
func FuzzCheck(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte("I-NP I-NP B-NP"))
	f.Fuzz(func(t *testing.T, data []byte) {
		all := []string{"O", "B-A", "I-A", "E-A", "S-A", "B-B", "I-B", "E-B", "S-B", "M-A", "B", "I", "E", "S", "X"}
		labels := make([]string, len(data))
		for i, b := range data {
			labels[i] = all[int(b)%len(all)]
		}
		for _, s := range []Scheme{None, IOB1, IOB2, BIOES, BMES, BI} {
			if c, bad := Check(labels, s); bad && (c.Index < 0 || c.Index >= len(labels) || c.Reason == "") {
				t.Fatalf("%s %v: contradiction %+v is not at a token", s, labels, c)
			}
		}
		for _, from := range []Scheme{IOB1, IOB2, BIOES} {
			for _, to := range []Scheme{IOB1, IOB2, BIOES} {
				if from == to {
					continue
				}
				out := Convert(nil, labels, from, to)
				if c, bad := Check(out, to); bad {
					t.Fatalf("Convert(%v, %s→%s) = %v contradicts %s: %+v", labels, from, to, out, to, c)
				}
			}
		}
	})
}
