package corpus

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestCRFsuiteNew(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		wantLabel int
		wantErr   string // substring
	}{
		{"label", Config{Name: "crfsuite", Label: "label"}, 0, ""},
		// "" means no label column, as for every other format.
		{"no label", Config{Name: "crfsuite"}, -1, ""},
		{"columns ignored", Config{Name: "crfsuite", Columns: []string{"a", "b", "c"}, Label: "label"}, 0, ""},
		{"attributes is not a label", Config{Name: "crfsuite", Label: "attributes"}, 0, `the label is the first field, column "label"`},
		{"unknown label", Config{Name: "crfsuite", Label: "tag"}, 0, `label column "tag" is not one of the columns (label attributes)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := New(tt.cfg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.Name() != NameCRFsuite {
				t.Errorf("Name() = %q", f.Name())
			}
			if got := strings.Join(f.Columns(), " "); got != "label attributes" {
				t.Errorf("Columns() = %q", got)
			}
			if f.LabelColumn() != tt.wantLabel {
				t.Errorf("LabelColumn() = %d, want %d", f.LabelColumn(), tt.wantLabel)
			}
		})
	}
}

func TestCRFsuiteRead(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		noLabel bool // Config.Label ""
		opts    ReadOptions
		want    []string // summaries
		wantErr string
	}{
		{
			name:  "two sentences",
			input: "B-NP\tw=He\tpos=PRP\nB-VP\tw=reckons\n\nO\tw=.\n",
			want:  []string{"1: B-NP|w=He|pos=PRP B-VP|w=reckons", "4: O|w=."},
		},
		{
			// Fields stay raw: escapes and values are the template's business.
			name:  "raw fields",
			input: "O\tw=\\:\tlen:3\ta\\\\b:0.5\tx:y\n",
			want:  []string{"1: O|w=\\:|len:3|a\\\\b:0.5|x:y"},
		},
		{
			name:  "no attributes is a row of two",
			input: "O\nB\tw=x\n",
			want:  []string{"1: O| B|w=x"},
		},
		{
			name:  "empty fields are skipped",
			input: "O\t\tw=a\t\t\tw=b\t\n",
			want:  []string{"1: O|w=a|w=b"},
		},
		{
			name:  "spaces belong to fields",
			input: "O\tw=a b\t c \n",
			want:  []string{"1: O|w=a b| c "},
		},
		{
			name:  "blank lines, CRLF, BOM, no final newline",
			input: "\ufeff\r\n\r\nO\tw=a\r\n \t \r\nB\tw=b",
			want:  []string{"3: O|w=a", "5: B|w=b"},
		},
		{
			name:  "empty label when optional",
			input: "\tw=a\nB\tw=b\n",
			opts:  ReadOptions{LabelOptional: true},
			want:  []string{"1: |w=a B|w=b"},
		},
		{
			name:    "empty label without a label column",
			input:   "\tw=a\n",
			noLabel: true,
			want:    []string{"1: |w=a"},
		},
		{
			name:    "empty label when required",
			input:   "O\tw=a\n\tw=b\n",
			wantErr: `in.txt:2: the label is empty in "\tw=b" (the line starts with a tab); every token line starts with its label, then a tab before each attribute`,
		},
		{
			name:    "invalid UTF-8",
			input:   "O\tw=a\n\nO\tw=\xff\n",
			want:    []string{"1: O|w=a"},
			wantErr: `in.txt:3: invalid UTF-8 at byte 5 of "O\tw=\xff"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Name: "crfsuite", Label: "label"}
			if tt.noLabel {
				cfg.Label = ""
			}
			sents, err := readString(mustNew(t, cfg), tt.input, tt.opts)
			checkErr(t, err, tt.wantErr)
			if got := summaries(sents); !slices.Equal(got, tt.want) {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCRFsuiteReadSentence(t *testing.T) {
	f := mustNew(t, Config{Name: "crfsuite", Label: "label"})
	sents, err := readString(f, "x\n\nO\tw=a\n\nB\tw=b\tp=c\nI\n", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := sents[2]
	if s.File != "in.txt" || s.Line != 5 || !slices.Equal(s.TokenLineNo, []int{5, 6}) || !slices.Equal(s.TokenLine, []int{0, 1}) {
		t.Errorf("sentence at %s:%d, TokenLineNo %v, TokenLine %v", s.File, s.Line, s.TokenLineNo, s.TokenLine)
	}
	if !slices.Equal(s.Lines, []string{"B\tw=b\tp=c", "I"}) {
		t.Errorf("Lines = %q", s.Lines)
	}
	// Rows must not share capacity: appending to one must not clobber the next.
	_ = append(s.Tokens[0], "extra")
	if s.Tokens[1][0] != "I" {
		t.Errorf("rows share capacity: %q", s.Tokens[1])
	}
}

func TestCRFsuiteWrite(t *testing.T) {
	path := filepath.Join("testdata", "crfsuite", "chunk.txt")
	f := mustNew(t, Config{Name: "crfsuite", Label: "label"})
	sents, err := ReadAll(f, path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := writeString(t, f, sents, 0)
	golden := path + ".golden"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("output differs from %s\n got %q\nwant %q", golden, got, want)
	}
	// The output is the input with one more field per token: the label.
	again, err := readString(f, got, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for k, s := range sents {
		for i, row := range s.Tokens {
			if want := append(slices.Clone(row), row[0]); !slices.Equal(again[k].Tokens[i], want) {
				t.Errorf("sentence %d token %d reads back as %q, want %q", k, i, again[k].Tokens[i], want)
			}
		}
	}
}

func TestAppendCRFsuiteAttribute(t *testing.T) {
	tests := []struct {
		field     string
		wantName  string
		wantValue float64
		wantErr   string
	}{
		{"w[0]=He", "w[0]=He", 1, ""},
		{"len:3", "len", 3, ""},
		{"score:-0.25", "score", -0.25, ""},
		{"x:1e-3", "x", 1e-3, ""},
		{"x: 2 ", "x", 2, ""},
		{"x:0", "x", 0, ""},
		{"a:b:4", "a:b", 4, ""}, // the last colon separates
		{"a:", "a", 1, ""},      // nothing after the colon: value 1, as in CRFsuite
		{":2", "", 2, ""},
		{"", "", 1, ""},
		// Not a number after the colon: the whole field is the name.
		{"a:xyz", "a:xyz", 1, ""},
		{"url=http://x", "url=http://x", 1, ""},
		{"t=12:30pm", "t=12:30pm", 1, ""},
		// Escapes.
		{`w=\:`, "w=:", 1, ""},
		{`w=\::2`, "w=:", 2, ""},
		{`a\:1`, "a:1", 1, ""},
		{`a\\:1`, `a\`, 1, ""},
		{`a\\\:1`, `a\:1`, 1, ""},
		{`p=C\\tmp\:x:0.5`, `p=C\tmp:x`, 0.5, ""},
		{`a\b`, `a\b`, 1, ""}, // a backslash before anything else is itself
		{`a\`, `a\`, 1, ""},
		// Values that would poison training.
		{"x:NaN", "", 0, `attribute "x:NaN": value "NaN" is not a finite number`},
		{"x:-inf", "", 0, `attribute "x:-inf": value "-inf" is not a finite number`},
		{"x:1e999", "", 0, `attribute "x:1e999": value "1e999" is not a finite number`},
		{"x:+nan", "", 0, `attribute "x:+nan": value "+nan" is not a finite number`},
		{"x:Infinity", "", 0, `attribute "x:Infinity": value "Infinity" is not a finite number`},
		{"x:1e-400", "x", 0, ""}, // underflow is only imprecise
		{"x:-.5e+3", "x", -500, ""},
		{"x:5.", "x", 5, ""},
		// Go's extra number syntax is not a number to CRFsuite files.
		{"x:0x10", "x:0x10", 1, ""},
		{"x:1_000", "x:1_000", 1, ""},
		{"x:.", "x:.", 1, ""},
		{"x:1e", "x:1e", 1, ""},
		{"x:Nope", "x:Nope", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			name, value, err := AppendCRFsuiteAttribute([]byte("pre/"), tt.field)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(name) != "pre/"+tt.wantName || value != tt.wantValue {
				t.Errorf("got (%q, %v), want (%q, %v)", name, value, "pre/"+tt.wantName, tt.wantValue)
			}
		})
	}
}

func TestAppendCRFsuiteAttributeAllocs(t *testing.T) {
	buf := make([]byte, 0, 64)
	fields := []string{"w[0]=He", `w=\::2.5`, "len:3", "a:xyz", "b:1abc", "c:NOPE"}
	allocs := testing.AllocsPerRun(100, func() {
		for _, f := range fields {
			buf, _, _ = AppendCRFsuiteAttribute(buf[:0], f)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run, want 0", allocs)
	}
}

func TestEscapeCRFsuiteName(t *testing.T) {
	for _, name := range []string{"", "w=a", "a:b", `a\b`, `\:`, `::\\`, "x:1"} {
		t.Run(name, func(t *testing.T) {
			esc := EscapeCRFsuiteName(name)
			for _, suffix := range []string{"", ":0.5"} {
				got, v, err := AppendCRFsuiteAttribute(nil, esc+suffix)
				want := 1.0
				if suffix != "" {
					want = 0.5
				}
				if err != nil || string(got) != name || v != want {
					t.Errorf("%q reads as (%q, %v, %v), want (%q, %v)", esc+suffix, got, v, err, name, want)
				}
			}
		})
	}
}

// FuzzReadCRFsuite checks that the reader never panics, fails only with
// sticky *Error values inside the input, keeps every non-empty field, and
// that its output reads back as the input plus the prediction.
//
// Run with: go test -run=XXX -fuzz=FuzzReadCRFsuite -fuzztime=20s ./framework/corpus/
func FuzzReadCRFsuite(f *testing.F) {
	for _, seed := range []string{
		"B-NP\tw[0]=He\tlen:2\nB-VP\tw[0]=reckons\n\nO\tw=.",
		"\ufeffO\tw=\\:\ta\\\\b:0.5\r\n\r\n\t\tw=x\t\n",
		"O\n \t \nB\n\n\n",
		"\tw=a\nO\tw=\xff\n",
		"O\tx:NaN\ty:1e999\tz:\t:\n",
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, input string, labelOptional bool) {
		format := mustNew(t, Config{Name: "crfsuite", Label: "label"})
		opts := ReadOptions{LabelOptional: labelOptional}
		lines := strings.Count(input, "\n") + 1
		r := format.NewReader(strings.NewReader(input), "fuzz", opts)
		var sents []*Sentence
		for {
			s, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("error %v is a %T, not *Error", err, err)
				}
				if e.File != "fuzz" || e.Line < 1 || e.Line > lines {
					t.Fatalf("error %v is outside the %d-line input", err, lines)
				}
				if _, err2 := r.Read(); err2 != err {
					t.Fatalf("error not sticky: %v then %v", err, err2)
				}
				return
			}
			if s.Len() == 0 || len(s.Lines) != s.Len() || len(s.TokenLine) != s.Len() || len(s.TokenLineNo) != s.Len() {
				t.Fatalf("malformed sentence %+v", s)
			}
			for i, row := range s.Tokens {
				if len(row) < 2 {
					t.Fatalf("row %q shorter than the two columns", row)
				}
				if s.TokenLine[i] != i || s.TokenLineNo[i] < s.Line || s.TokenLineNo[i] > lines {
					t.Fatalf("token %d: TokenLine %v, TokenLineNo %v", i, s.TokenLine, s.TokenLineNo)
				}
				if !labelOptional && row[0] == "" {
					t.Fatalf("empty label read without LabelOptional at line %d", s.TokenLineNo[i])
				}
				// Every non-empty field is kept, in order.
				fields := strings.Split(s.Lines[i], "\t")
				want := slices.DeleteFunc(fields[1:], func(f string) bool { return f == "" })
				got := slices.DeleteFunc(slices.Clone(row[1:]), func(f string) bool { return f == "" })
				if row[0] != fields[0] || !slices.Equal(got, want) {
					t.Fatalf("line %q reads as %q", s.Lines[i], row)
				}
				for _, field := range row[1:] {
					name, v, err := AppendCRFsuiteAttribute(nil, field)
					if err == nil && (math.IsNaN(v) || math.IsInf(v, 0) || len(name) > len(field)) {
						t.Fatalf("%q parses as (%q, %v)", field, name, v)
					}
				}
			}
			sents = append(sents, s)
		}
		out := fuzzWrite(t, format, sents, constLabels)
		if strings.HasPrefix(out, "\ufeff") {
			return // a BOM that was data would be stripped on reading the output
		}
		again, err := readString(format, out, opts)
		if err != nil {
			t.Fatalf("reading the output: %v\noutput %q", err, out)
		}
		var want []string
		for _, s := range sents {
			for _, row := range s.Tokens {
				fields := slices.DeleteFunc(slices.Clone(row[1:]), func(f string) bool { return f == "" })
				want = append(want, strings.Join(append(append([]string{row[0]}, fields...), "P"), "\x00"))
			}
		}
		if got := rowsOf(again); !slices.Equal(got, want) {
			t.Fatalf("output reads back differently\n got %q\nwant %q\noutput %q", got, want, out)
		}
	})
}

// FuzzCRFsuiteAttribute checks that any name survives escaping, with or
// without a value, and that parsing never panics or yields a non-finite
// value.
func FuzzCRFsuiteAttribute(f *testing.F) {
	f.Add("w=a", 0.5)
	f.Add(`a\:b\\`, -2.0)
	f.Add("x:1e999", 1e300)
	f.Fuzz(func(t *testing.T, name string, value float64) {
		if _, v, err := AppendCRFsuiteAttribute(nil, name); err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("%q parses to %v", name, v)
		}
		if math.IsNaN(value) || math.IsInf(value, 0) {
			return
		}
		esc := EscapeCRFsuiteName(name)
		if got, v, err := AppendCRFsuiteAttribute(nil, esc); err != nil || string(got) != name || v != 1 {
			t.Fatalf("%q reads as (%q, %v, %v), want (%q, 1)", esc, got, v, err, name)
		}
		field := esc + ":" + strconv.FormatFloat(value, 'g', -1, 64)
		if got, v, err := AppendCRFsuiteAttribute(nil, field); err != nil || string(got) != name || v != value {
			t.Fatalf("%q reads as (%q, %v, %v), want (%q, %v)", field, got, v, err, name, value)
		}
	})
}
