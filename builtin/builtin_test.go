package builtin

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/trellis-nlp/trellis/builtin/emission"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// recorder is a Sink that keeps attributes as strings per token.
type recorder struct{ tokens [][]string }

func (r *recorder) Add(i int, key []byte, value float64) {
	s := string(key)
	if value != 1 {
		s += fmt.Sprintf(":%g", value)
	}
	r.tokens[i] = append(r.tokens[i], s)
}

func sentence(rows ...string) *corpus.Sentence {
	s := &corpus.Sentence{}
	for _, r := range rows {
		s.Tokens = append(s.Tokens, strings.Fields(r))
	}
	return s
}

// extract decodes one template block's body, compiles it against columns
// word, pos, label and returns the attributes per token.
func extract(t *testing.T, typ, name, body string, s *corpus.Sentence) [][]string {
	t.Helper()
	reg, _ := Registries()
	tmpl, ok := reg.NewTemplate(typ)
	if !ok {
		t.Fatalf("no template type %q", typ)
	}
	f, diags := hclsyntax.ParseConfig([]byte(body), "test.hcl", hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if diags := gohcl.DecodeBody(f.Body, nil, tmpl.Config()); diags.HasErrors() {
		t.Fatal(diags)
	}
	if diags := tmpl.Validate(); diags.HasErrors() {
		t.Fatal(diags)
	}
	x, err := tmpl.Compile(name, feature.Columns{Names: []string{"word", "pos", "label"}, Label: 2})
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{tokens: make([][]string, s.Len())}
	if err := x.Extract(s, r); err != nil {
		t.Fatal(err)
	}
	return r.tokens
}

func TestTemplates(t *testing.T) {
	s := sentence("He PRP B-NP", "reckons VBZ B-VP", "the DT B-NP", "current-account JJ I-NP", "1,000 CD I-NP", "McDonald's NNP I-NP")
	cases := []struct {
		typ, name, body string
		want            [][]string
	}{
		{"emission", "w", `column = "word"
offsets = [-1, 1]`, [][]string{
			{"w[1]=reckons"}, {"w[-1]=He", "w[1]=the"}, {"w[-1]=reckons", "w[1]=current-account"},
			{"w[-1]=the", "w[1]=1,000"}, {"w[-1]=current-account", "w[1]=McDonald's"}, {"w[-1]=1,000"},
		}},
		{"emission", "pos3", `column = "pos"
offsets = [-2]
ngram = 3`, [][]string{
			nil, nil, {"pos3[-2]=PRP|VBZ|DT"}, {"pos3[-2]=VBZ|DT|JJ"}, {"pos3[-2]=DT|JJ|CD"}, {"pos3[-2]=JJ|CD|NNP"},
		}},
		{"emission", "wp", `join = ["word[-1]", "pos[0]"]
lowercase = true`, [][]string{
			nil, {"wp=he|vbz"}, {"wp=reckons|dt"}, {"wp=the|jj"}, {"wp=current-account|cd"}, {"wp=1,000|nnp"},
		}},
		{"emission", "U05", `format = "{word[-1]}/{word[0]}"`, [][]string{
			nil, {"U05=He/reckons"}, {"U05=reckons/the"}, {"U05=the/current-account"},
			{"U05=current-account/1,000"}, {"U05=1,000/McDonald's"},
		}},
		{"emission", "f", `format = "<{pos[-2]}{{x}}{word[2]}>"
pad = true
lowercase = true`, [][]string{
			{"f=<_B-2{x}the>"}, {"f=<_B-1{x}current-account>"}, {"f=<prp{x}1,000>"},
			{"f=<vbz{x}mcdonald's>"}, {"f=<dt{x}_B+1>"}, {"f=<jj{x}_B+2>"},
		}},
		{"emission", "P", `format = "{pos[-3]}/{pos[3]}"
pad = true`, [][]string{
			{"P=_B-3/JJ"}, {"P=_B-2/CD"}, {"P=_B-1/NNP"}, {"P=PRP/_B+1"}, {"P=VBZ/_B+2"}, {"P=DT/_B+3"},
		}},
		{"emission", "const", `format = "U"`, [][]string{
			{"const=U"}, {"const=U"}, {"const=U"}, {"const=U"}, {"const=U"}, {"const=U"},
		}},
		{"emission", "p", `column = "pos"
offsets = [-1]
pad = true`, [][]string{
			{"p[-1]=_B-1"}, {"p[-1]=PRP"}, {"p[-1]=VBZ"}, {"p[-1]=DT"}, {"p[-1]=JJ"}, {"p[-1]=CD"},
		}},
		{"prefix", "pre", `column = "word"
lengths = [1, 3]`, [][]string{
			{"pre[0]:1=H", "pre[0]:3=He"}, {"pre[0]:1=r", "pre[0]:3=rec"}, {"pre[0]:1=t", "pre[0]:3=the"},
			{"pre[0]:1=c", "pre[0]:3=cur"}, {"pre[0]:1=1", "pre[0]:3=1,0"}, {"pre[0]:1=M", "pre[0]:3=McD"},
		}},
		{"suffix", "suf", `column = "word"
lengths = [2]
lowercase = true`, [][]string{
			{"suf[0]:2=he"}, {"suf[0]:2=ns"}, {"suf[0]:2=he"}, {"suf[0]:2=nt"}, {"suf[0]:2=00"}, {"suf[0]:2='s"},
		}},
		{"shape", "sh", `column = "word"`, [][]string{
			{"sh[0]=Xx"}, {"sh[0]=xxxxxxx"}, {"sh[0]=xxx"}, {"sh[0]=xxxxxxx-xxxxxxx"}, {"sh[0]=d,ddd"}, {"sh[0]=XxXxxxxx'x"},
		}},
		{"shape", "sh", `column = "word"
kind = "compact"`, [][]string{
			{"sh[0]=Xx"}, {"sh[0]=x"}, {"sh[0]=x"}, {"sh[0]=x-x"}, {"sh[0]=d,d"}, {"sh[0]=XxXx'x"},
		}},
		{"case", "c", `column = "word"`, [][]string{
			{"c[0]=title"}, {"c[0]=lower"}, {"c[0]=lower"}, {"c[0]=lower"}, {"c[0]=none"}, {"c[0]=mixed"},
		}},
		{"digit", "d", `column = "word"`, [][]string{
			nil, nil, nil, nil, {"d[0]=has", "d[0]=num"}, nil,
		}},
		{"hyphen", "h", `column = "word"`, [][]string{
			nil, nil, nil, {"h[0]=yes"}, nil, nil,
		}},
		{"boundary", "b", ``, [][]string{{"b=BOS"}, nil, nil, nil, nil, {"b=EOS"}}},
		{"bias", "bias", ``, [][]string{{"bias"}, {"bias"}, {"bias"}, {"bias"}, {"bias"}, {"bias"}}},
	}
	for _, c := range cases {
		t.Run(c.typ+"/"+c.name, func(t *testing.T) {
			got := extract(t, c.typ, c.name, c.body, s)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestParseFormat(t *testing.T) {
	cases := []struct {
		in   string
		want emission.Format
	}{
		{"", emission.Format{Literals: []string{""}}},
		{"U", emission.Format{Literals: []string{"U"}}},
		{"{w[0]}", emission.Format{Literals: []string{"", ""}, Cells: []emission.Cell{{Column: "w", Offset: 0}}}},
		{"a{{b}}{w[-2]}/{p[3]}}}", emission.Format{Literals: []string{"a{b}", "/", "}"},
			Cells: []emission.Cell{{Column: "w", Offset: -2}, {Column: "p", Offset: 3}}}},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := emission.ParseFormat(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %#v, want %#v", got, c.want)
			}
		})
	}
	// EscapeLiteral's text parses back to itself.
	for _, lit := range []string{"{", "}}", "a{b}c", "%x[0,0]", ""} {
		f, err := emission.ParseFormat(emission.EscapeLiteral(lit))
		if err != nil || len(f.Cells) != 0 || f.Literals[0] != lit {
			t.Errorf("EscapeLiteral(%q) parses as %#v, %v", lit, f, err)
		}
	}
}

func TestDigitClasses(t *testing.T) {
	s := sentence("1999 CD O", "42 CD O", "B2B NN O", "3.5 CD O", "7 CD O")
	got := extract(t, "digit", "d", `column = "word"`, s)
	want := [][]string{
		{"d[0]=has", "d[0]=all", "d[0]=4d"}, {"d[0]=has", "d[0]=all", "d[0]=2d"},
		{"d[0]=has", "d[0]=alnum"}, {"d[0]=has", "d[0]=num"}, {"d[0]=has", "d[0]=all"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestAffixUnicode(t *testing.T) {
	s := sentence("Ärger NN O", "日本語 NN O")
	got := extract(t, "suffix", "s", `column = "word"
lengths = [2, 5]
lowercase = true`, s)
	want := [][]string{{"s[0]:2=er", "s[0]:5=ärger"}, {"s[0]:2=本語", "s[0]:5=日本語"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	got = extract(t, "prefix", "p", `column = "word"
lengths = [1]`, s)
	want = [][]string{{"p[0]:1=Ä"}, {"p[0]:1=日"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestValidateAndCompileErrors(t *testing.T) {
	reg, _ := Registries()
	cases := []struct {
		typ, body, want string
	}{
		{"emission", ``, "Missing column"},
		{"emission", `column = "word"
join = ["pos[0]"]`, "Conflicting"},
		{"emission", `join = ["pos0"]`, "Invalid join item"},
		{"emission", `join = ["pos[99999999999999999999]"]`, "Invalid join item"},
		{"emission", `format = "{pos[0]}"
join = ["pos[0]"]`, "Conflicting"},
		{"emission", `format = "{pos[0]}"
offsets = [1]`, "Conflicting"},
		{"emission", `format = "{pos0}"`, "Invalid format"},
		{"emission", `format = "a}b"`, "lone"},
		{"emission", `format = "{pos[0]"`, "no closing"},
		{"emission", `format = "{pos[-101]}"`, "Offset out of range"},
		{"emission", `column = "word"
offsets = [1000]`, "Offset out of range"},
		{"suffix", `column = "word"
lengths = [0]`, "Invalid length"},
		{"shape", `column = "word"
kind = "fancy"`, "Invalid shape kind"},
	}
	for _, c := range cases {
		t.Run(c.typ+"/"+c.want, func(t *testing.T) {
			tmpl, _ := reg.NewTemplate(c.typ)
			f, _ := hclsyntax.ParseConfig([]byte(c.body), "t.hcl", hcl.Pos{Line: 1, Column: 1})
			diags := gohcl.DecodeBody(f.Body, nil, tmpl.Config())
			diags = append(diags, tmpl.Validate()...)
			if !diags.HasErrors() || !strings.Contains(diags.Error(), c.want) {
				t.Errorf("diagnostics %q do not mention %q", diags.Error(), c.want)
			}
		})
	}
}

func TestCompileRejectsUnknownAndLabelColumns(t *testing.T) {
	reg, _ := Registries()
	cols := feature.Columns{Names: []string{"word", "pos", "label"}, Label: 2}
	for _, c := range []struct{ body, want string }{
		{`column = "wrod"`, `unknown column "wrod"`},
		{`column = "label"`, "label column"},
		{`join = ["word[0]", "lemma[1]"]`, `unknown column "lemma"`},
	} {
		tmpl, _ := reg.NewTemplate("emission")
		f, _ := hclsyntax.ParseConfig([]byte(c.body), "t.hcl", hcl.Pos{Line: 1, Column: 1})
		if d := gohcl.DecodeBody(f.Body, nil, tmpl.Config()); d.HasErrors() {
			t.Fatal(d)
		}
		if _, err := tmpl.Compile("x", cols); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v does not mention %q", c.body, err, c.want)
		}
	}
}

// TestCompileColumnErrorsAreTyped checks that a column a template cannot
// read comes back as a *feature.ColumnError, however the template wraps
// it: the spec places its diagnostic by that type, not by the message.
func TestCompileColumnErrorsAreTyped(t *testing.T) {
	reg, _ := Registries()
	cols := feature.Columns{Names: []string{"word", "pos", "label"}, Label: 2}
	tests := []struct {
		name, typ, body string
		column          string
		label           bool
	}{
		{"emission column", "emission", `column = "wrod"`, "wrod", false},
		{"emission join", "emission", `join = ["word[0]", "lemma[1]"]`, "lemma", false},
		{"label column", "suffix", `column = "label"`, "label", true},
		{"wrapped by attributes", "attributes", ``, "attributes", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tmpl, _ := reg.NewTemplate(tc.typ)
			f, _ := hclsyntax.ParseConfig([]byte(tc.body), "t.hcl", hcl.Pos{Line: 1, Column: 1})
			if d := gohcl.DecodeBody(f.Body, nil, tmpl.Config()); d.HasErrors() {
				t.Fatal(d)
			}
			_, err := tmpl.Compile("x", cols)
			var ce *feature.ColumnError
			if !errors.As(err, &ce) {
				t.Fatalf("Compile error %v is not a *feature.ColumnError", err)
			}
			if ce.Column != tc.column || ce.Label != tc.label {
				t.Errorf("ColumnError = %+v, want column %q, label %v", ce, tc.column, tc.label)
			}
		})
	}
}

func TestRegistries(t *testing.T) {
	templates, learners := Registries()
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"templates", templates.Names(), []string{"attributes", "bias", "boundary", "case", "clusters", "decisions", "digit", "document", "embedding", "emission",
			"history", "hyphen", "lexicon", "prefix", "shape", "suffix", "suffix_trie", "transition"}},
		{"learners", learners.Names(), []string{"arow", "crf", "hmm", "maxent", "memm", "pa", "perceptron", "tnt", "transition"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !slices.Equal(tc.got, tc.want) {
				t.Errorf("Names() = %q, want %q", tc.got, tc.want)
			}
		})
	}
	t.Run("every name makes a value", func(t *testing.T) {
		for _, n := range templates.Names() {
			if tmpl, ok := templates.NewTemplate(n); !ok || tmpl == nil || tmpl.Config() == nil {
				t.Errorf("template type %q: %v, %v", n, tmpl, ok)
			}
		}
		for _, n := range learners.Names() {
			if l, ok := learners.New(n); !ok || l == nil || l.Config() == nil {
				t.Errorf("learner type %q: %v, %v", n, l, ok)
			}
		}
	})
	t.Run("fresh on every call", func(t *testing.T) {
		// A plugin host registers into the registries it is given; another
		// caller's registries must not see that.
		templates.RegisterTemplate("plugin", func() feature.Template { return nil })
		again, _ := Registries()
		if _, ok := again.Lookup("plugin"); ok {
			t.Errorf("a second Registries() sees a template registered into the first")
		}
	})
}

// TestExtractionAllocatesNothing guards the hot path: extracting a
// sentence into a sink that does not retain keys allocates nothing.
func TestExtractionAllocatesNothing(t *testing.T) {
	s := sentence("He PRP B-NP", "reckons VBZ B-VP", "the DT B-NP", "current-account JJ I-NP", "1,000 CD I-NP")
	reg, _ := Registries()
	for _, c := range []struct{ typ, body string }{
		{"emission", `column = "word"
offsets = [-2, -1, 0, 1, 2]`},
		{"emission", `column = "word"
offsets = [-1, 0]
ngram = 2
lowercase = true`},
		{"emission", `format = "{word[-1]}/{pos[0]}//{word[1]}"
pad = true`},
		{"suffix", `column = "word"`},
		{"prefix", `column = "word"`},
		{"shape", `column = "word"`},
		{"case", `column = "word"`},
		{"digit", `column = "word"`},
		{"hyphen", `column = "word"`},
	} {
		tmpl, _ := reg.NewTemplate(c.typ)
		f, _ := hclsyntax.ParseConfig([]byte(c.body), "t.hcl", hcl.Pos{Line: 1, Column: 1})
		gohcl.DecodeBody(f.Body, nil, tmpl.Config())
		x, err := tmpl.Compile("x", feature.Columns{Names: []string{"word", "pos", "label"}, Label: 2})
		if err != nil {
			t.Fatal(err)
		}
		var sink discard
		x.Extract(s, sink) // warm up buffers
		if n := testing.AllocsPerRun(50, func() { x.Extract(s, sink) }); n != 0 {
			t.Errorf("%s: %v allocations per sentence", c.typ, n)
		}
	}
}

type discard struct{}

func (discard) Add(int, []byte, float64) {}
