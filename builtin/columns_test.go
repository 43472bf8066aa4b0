package builtin

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// TestReadColumns: every builtin template's extractor says which columns
// it reads (feature.ColumnReader), which is what lets a model whose
// templates read only the word column tag plain text. A template type
// registered without a case here fails.
func TestReadColumns(t *testing.T) {
	cols := feature.Columns{Names: []string{"word", "pos", "attributes", "label"}, Label: 3}
	words := filepath.Join(t.TempDir(), "words.txt") // the lexicon's list
	if err := os.WriteFile(words, []byte("a b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string][]struct {
		body string
		want []int // nil: reads none; the template has an extractor unless noExtractor
	}{
		"emission": {
			{`column = "pos"`, []int{1}},
			{"column = \"word\"\noffsets = [-1, 0]\nngram = 2", []int{0}},
			{`join = ["word[-1]", "pos[0]", "word[1]"]`, []int{0, 1}},
			{`format = "{word[-1]}/{pos[0]}"`, []int{0, 1}},
		},
		"prefix":      {{`column = "word"`, []int{0}}},
		"suffix":      {{`column = "pos"`, []int{1}}},
		"suffix_trie": {{`column = "pos"`, []int{1}}},
		"shape":       {{`column = "word"`, []int{0}}},
		"case":        {{`column = "pos"`, []int{1}}},
		"digit":       {{`column = "word"`, []int{0}}},
		"document":    {{`column = "pos"`, []int{1}}},
		"hyphen":      {{`column = "word"`, []int{0}}},
		"history":     {{"column = \"word\"\npredicted = \"pos\"", []int{0, 1}}},
		"clusters":    {{"column = \"pos\"\npath = \"clusters/testdata/small.clusters\"", []int{1}}},
		"embedding":   {{"column = \"pos\"\npath = \"embedding/testdata/tiny.txt\"", []int{1}}, {"path = \"embedding/testdata/tiny.txt\"", []int{0}}},
		"boundary":    {{``, nil}},
		"bias":        {{``, nil}},
		"attributes":  {{``, []int{2}}},
		"transition":  {{``, nil}},
		"decisions":   {{"previous = 2\nspan = true", nil}, {"document = true\ncolumn = \"pos\"", []int{1}}},
		"lexicon":     {{"column = \"pos\"\npath = " + strconv.Quote(words), []int{1}}},
	}
	reg, _ := Registries()
	for _, typ := range reg.Names() {
		tcs, ok := cases[typ]
		if !ok {
			t.Errorf("template type %q has no case here: add one with the columns it reads", typ)
			continue
		}
		for _, tc := range tcs {
			t.Run(typ+" "+tc.body, func(t *testing.T) {
				tmpl, _ := reg.NewTemplate(typ)
				if diags := decodeBody(tmpl, tc.body, "."); diags.HasErrors() {
					t.Fatal(diags)
				}
				x, err := tmpl.Compile("x", cols)
				if err != nil {
					t.Fatal(err)
				}
				if x == nil {
					if _, ok := tmpl.(feature.StructureTemplate); !ok {
						t.Fatalf("no extractor, and not a structure template")
					}
					return
				}
				cr, ok := x.(feature.ColumnReader)
				if !ok {
					t.Fatalf("%T does not implement feature.ColumnReader", x)
				}
				if got := cr.ReadColumns(); !reflect.DeepEqual(got, tc.want) && (len(got) != 0 || len(tc.want) != 0) {
					t.Errorf("ReadColumns() = %v, want %v", got, tc.want)
				}
			})
		}
	}
}

// decodeBody decodes a template block's body as the spec does
// (spec.DecodeTemplate), with dir as the spec's folder.
func decodeBody(tmpl feature.Template, body, dir string) hcl.Diagnostics {
	f, diags := hclsyntax.ParseConfig([]byte("t \"x\" {\n"+body+"\n}\n"), "test.hcl", hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return diags
	}
	content, diags := f.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "t", LabelNames: []string{"name"}}}})
	if diags.HasErrors() {
		return diags
	}
	return spec.DecodeTemplate(tmpl, content.Blocks[0], nil, dir)
}
