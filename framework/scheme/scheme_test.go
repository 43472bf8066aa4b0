package scheme

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    Scheme
		wantErr bool
	}{
		{"", None, false},
		{"none", None, false},
		{"IOB1", IOB1, false},
		{"iob2", IOB2, false},
		{"BIO", IOB2, false},
		{"bioes", BIOES, false},
		{"IOBES", BIOES, false},
		{"bmes", BMES, false},
		{"Bi", BI, false},
		{"bilou", None, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Parse(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if err != nil {
				if !strings.Contains(err.Error(), "bioes") {
					t.Errorf("error %q does not list valid names", err)
				}
				return
			}
			if got != tt.want {
				t.Errorf("Parse(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestStringRoundTrip(t *testing.T) {
	for s := None; s <= BI; s++ {
		t.Run(s.String(), func(t *testing.T) {
			got, err := Parse(s.String())
			if err != nil || got != s {
				t.Fatalf("Parse(%q) = %v, %v", s.String(), got, err)
			}
			b, err := json.Marshal(struct{ S Scheme }{s})
			if err != nil {
				t.Fatal(err)
			}
			if want := `{"S":"` + s.String() + `"}`; string(b) != want {
				t.Errorf("json = %s, want %s", b, want)
			}
			var back struct{ S Scheme }
			if err := json.Unmarshal(b, &back); err != nil || back.S != s {
				t.Errorf("unmarshal = %v, %v", back.S, err)
			}
		})
	}
	if _, err := Scheme(42).MarshalText(); err == nil {
		t.Error("MarshalText of invalid scheme: want error")
	}
}

func TestSplit(t *testing.T) {
	tests := []struct{ in, prefix, typ string }{
		{"B-NP", "B", "NP"},
		{"O", "O", ""},
		{"I-B-X", "I", "B-X"},
		{"S", "S", ""},
		{"B_NP", "B_NP", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p, ty := Split(tt.in)
			if p != tt.prefix || ty != tt.typ {
				t.Errorf("Split(%q) = %q,%q want %q,%q", tt.in, p, ty, tt.prefix, tt.typ)
			}
		})
	}
}

func TestChunks(t *testing.T) {
	tests := []struct {
		name   string
		labels string
		want   []Chunk
	}{
		{"empty", "", nil},
		{"all O", "O O", nil},
		{"iob2", "B-NP I-NP O B-VP", []Chunk{{"NP", 0, 2}, {"VP", 3, 4}}},
		{"iob1 adjacent", "I-NP I-NP B-NP", []Chunk{{"NP", 0, 2}, {"NP", 2, 3}}},
		{"stray I after O", "O I-PER I-PER O", []Chunk{{"PER", 1, 3}}},
		{"stray I at start", "I-X", []Chunk{{"X", 0, 1}}},
		{"type switch", "B-NP I-VP", []Chunk{{"NP", 0, 1}, {"VP", 1, 2}}},
		{"B after B", "B-NP B-NP", []Chunk{{"NP", 0, 1}, {"NP", 1, 2}}},
		{"ends in chunk", "O B-NP I-NP", []Chunk{{"NP", 1, 3}}},
		{"bioes", "S-PER B-LOC I-LOC E-LOC O S-ORG", []Chunk{{"PER", 0, 1}, {"LOC", 1, 4}, {"ORG", 5, 6}}},
		{"bioes E E", "B-X E-X E-X", []Chunk{{"X", 0, 2}, {"X", 2, 3}}},
		{"bioes I after E", "E-X I-X E-X", []Chunk{{"X", 0, 1}, {"X", 1, 3}}},
		{"bioes S then I", "S-X I-X", []Chunk{{"X", 0, 1}, {"X", 1, 2}}},
		{"bioes B then S", "B-X S-X", []Chunk{{"X", 0, 1}, {"X", 1, 2}}},
		{"bioes unclosed B", "B-X I-X", []Chunk{{"X", 0, 2}}},
		{"untyped", "B I O B", []Chunk{{"", 0, 2}, {"", 3, 4}}},
		{"type change after S", "S-X E-Y", []Chunk{{"X", 0, 1}, {"Y", 1, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Chunks(nil, strings.Fields(tt.labels), IOB2)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Chunks(%q) = %v, want %v", tt.labels, got, tt.want)
			}
		})
	}
}

func TestConvert(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		from, to Scheme
		want     string
	}{
		{"iob1 to iob2", "I-NP I-NP B-NP O I-VP", IOB1, IOB2, "B-NP I-NP B-NP O B-VP"},
		{"iob2 to iob1", "B-NP I-NP B-NP B-VP O B-NP", IOB2, IOB1, "I-NP I-NP B-NP I-VP O I-NP"},
		{"iob2 to bioes", "B-NP I-NP I-NP B-NP O B-VP", IOB2, BIOES, "B-NP I-NP E-NP S-NP O S-VP"},
		{"bioes to iob2", "S-A B-A E-A", BIOES, IOB2, "B-A B-A I-A"},
		{"repairs stray I", "O I-X I-X", IOB2, IOB2, "O I-X I-X"},
		{"repairs stray I via bioes", "O I-X I-X", IOB2, BIOES, "O B-X E-X"},
		{"untyped", "B I O", IOB2, BIOES, "B E O"},
		{"non-span copies", "B M E", BMES, IOB2, "B M E"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := []string{"keep"}
			got := Convert(prefix, strings.Fields(tt.in), tt.from, tt.to)
			want := append([]string{"keep"}, strings.Fields(tt.want)...)
			if !slices.Equal(got, want) {
				t.Errorf("Convert = %v, want %v", got, want)
			}
		})
	}
}

// randomLabels draws arbitrary, often ill-formed, span labels so that the
// properties below also cover what a bad tagger emits.
func randomLabels(r *rand.Rand, n int) []string {
	prefixes := []string{"B", "I", "E", "S", "O", "O"}
	types := []string{"A", "B", ""}
	out := make([]string, n)
	for i := range out {
		p := prefixes[r.IntN(len(prefixes))]
		if p == "O" {
			out[i] = "O"
			continue
		}
		out[i] = label(p, types[r.IntN(len(types))])
	}
	return out
}

var spanSchemes = []Scheme{IOB1, IOB2, BIOES}

// checkConvert verifies that re-encoding preserves chunks and produces
// sequences Allowed accepts everywhere.
func checkConvert(t *testing.T, labels []string) {
	t.Helper()
	want := Chunks(nil, labels, IOB2)
	for _, from := range spanSchemes {
		for _, to := range spanSchemes {
			out := Convert(nil, labels, from, to)
			if got := Chunks(nil, out, to); !reflect.DeepEqual(got, want) {
				t.Fatalf("%v->%v %v => %v: chunks %v, want %v", from, to, labels, out, got, want)
			}
			back := Convert(nil, out, to, from)
			if got := Chunks(nil, back, from); !reflect.DeepEqual(got, want) {
				t.Fatalf("round trip %v->%v->%v %v => %v: chunks %v, want %v", from, to, from, labels, back, got, want)
			}
			if from != to {
				checkAllowed(t, out, to)
			}
		}
	}
}

func checkAllowed(t *testing.T, seq []string, s Scheme) {
	t.Helper()
	// Include labels the sequence does not use so that the index
	// arithmetic is exercised on a realistic label set.
	set := []string{"O", "B-A", "I-A", "E-A", "S-A", "B-B", "I-B", "E-B", "S-B", "B", "I", "E", "S"}
	idx := map[string]int{}
	for i, l := range set {
		idx[l] = i
	}
	trans, start, stop := Allowed(set, s)
	if len(seq) == 0 {
		return
	}
	if !start[idx[seq[0]]] {
		t.Fatalf("%v: %v may not start %v", s, seq[0], seq)
	}
	if !stop[idx[seq[len(seq)-1]]] {
		t.Fatalf("%v: %v may not stop %v", s, seq[len(seq)-1], seq)
	}
	for i := 1; i < len(seq); i++ {
		if !trans[idx[seq[i-1]]*len(set)+idx[seq[i]]] {
			t.Fatalf("%v: %v -> %v forbidden in %v", s, seq[i-1], seq[i], seq)
		}
	}
}

func TestConvertProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		checkConvert(t, randomLabels(r, r.IntN(12)))
		if t.Failed() {
			return
		}
	}
}

func FuzzConvert(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte("I-NP I-NP B-NP"))
	f.Fuzz(func(t *testing.T, data []byte) {
		all := []string{"O", "B-A", "I-A", "E-A", "S-A", "B-B", "I-B", "E-B", "S-B", "B", "I", "E", "S"}
		labels := make([]string, len(data))
		for i, b := range data {
			labels[i] = all[int(b)%len(all)]
		}
		checkConvert(t, labels)
	})
}

func TestAllowed(t *testing.T) {
	tests := []struct {
		name      string
		s         Scheme
		labels    string
		prev, cur string
		want      bool
	}{
		{"iob2 I after B", IOB2, "O B-X I-X B-Y I-Y", "B-X", "I-X", true},
		{"iob2 I after I", IOB2, "O B-X I-X", "I-X", "I-X", true},
		{"iob2 I after O", IOB2, "O B-X I-X", "O", "I-X", false},
		{"iob2 I wrong type", IOB2, "O B-X I-X B-Y I-Y", "B-Y", "I-X", false},
		{"iob2 B after I", IOB2, "O B-X I-X", "I-X", "B-X", true},
		{"iob1 all", IOB1, "O B-X I-X", "O", "B-X", true},
		{"bioes E after B", BIOES, "O B-X I-X E-X S-X", "B-X", "E-X", true},
		{"bioes O after B", BIOES, "O B-X I-X E-X S-X", "B-X", "O", false},
		{"bioes B after I", BIOES, "O B-X I-X E-X S-X", "I-X", "B-X", false},
		{"bioes S after E", BIOES, "O B-X I-X E-X S-X", "E-X", "S-X", true},
		{"bioes I after S", BIOES, "O B-X I-X E-X S-X", "S-X", "I-X", false},
		{"bmes M after B", BMES, "B M E S", "B", "M", true},
		{"bmes S after M", BMES, "B M E S", "M", "S", false},
		{"bmes B after E", BMES, "B M E S", "E", "B", true},
		{"bi I after B", BI, "B I", "B", "I", true},
		{"bi B after I", BI, "B I", "I", "B", true},
		{"unknown prefix", IOB2, "O I-X X-X", "X-X", "I-X", true},
		{"unknown prefix col", BIOES, "B-X X-X", "B-X", "X-X", true},
		{"none", None, "I-X O", "O", "I-X", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			labels := strings.Fields(tt.labels)
			trans, _, _ := Allowed(labels, tt.s)
			p, c := slices.Index(labels, tt.prev), slices.Index(labels, tt.cur)
			if got := trans[p*len(labels)+c]; got != tt.want {
				t.Errorf("%v %s -> %s = %v, want %v", tt.s, tt.prev, tt.cur, got, tt.want)
			}
		})
	}
}

func TestAllowedStartStop(t *testing.T) {
	tests := []struct {
		s      Scheme
		labels string
		start  string // '1' where allowed
		stop   string
	}{
		{IOB2, "O B-X I-X", "110", "111"},
		{IOB1, "O B-X I-X", "111", "111"},
		{BIOES, "O B-X I-X E-X S-X X-X", "110011", "100111"},
		{BMES, "B M E S", "1001", "0011"},
		{BI, "B I", "10", "11"},
		{None, "B I", "11", "11"},
	}
	bits := func(b []bool) string {
		var sb strings.Builder
		for _, v := range b {
			if v {
				sb.WriteByte('1')
			} else {
				sb.WriteByte('0')
			}
		}
		return sb.String()
	}
	for _, tt := range tests {
		t.Run(tt.s.String(), func(t *testing.T) {
			_, start, stop := Allowed(strings.Fields(tt.labels), tt.s)
			if bits(start) != tt.start || bits(stop) != tt.stop {
				t.Errorf("start %s stop %s, want %s %s", bits(start), bits(stop), tt.start, tt.stop)
			}
		})
	}
}

func BenchmarkChunks(b *testing.B) {
	labels := randomLabels(rand.New(rand.NewPCG(3, 4)), 40)
	var dst []Chunk
	for b.Loop() {
		dst = Chunks(dst[:0], labels, IOB2)
	}
}
