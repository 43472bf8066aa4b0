package sdk_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/plugins/protocol"
	"github.com/trellis-nlp/trellis/plugins/sdk"
)

type upper struct {
	cfg struct {
		Column string            `json:"column" trellis:"required" help:"column to read"`
		Files  map[string]string `json:"files" trellis:"path"`
		Scale  float64           `json:"scale"`
		Skip   int               `json:"-"`
		hidden int
	}
}

func (p *upper) Info() sdk.Info { return sdk.Info{Name: "upper", Version: "1.0.0"} }
func (p *upper) Config() any    { return &p.cfg }
func (p *upper) Setup([]string) ([]string, error) {
	if p.cfg.Scale == 0 {
		return nil, sdk.Errorf("scale", "must not be 0")
	}
	return []string{p.cfg.Column}, nil
}
func (p *upper) Extract(s *sdk.Sentence, f *sdk.Features) error {
	for i := 0; i < s.Len(); i++ {
		if w := s.Value(i, 0); w != "" && strings.ToUpper(w) == w {
			f.Set(i, "upper")
			f.Add(i, "len", p.cfg.Scale*float64(len(w)))
		}
	}
	return nil
}

func TestSchema(t *testing.T) {
	got, err := sdk.Schema((&upper{}).Config())
	if err != nil {
		t.Fatal(err)
	}
	want := []protocol.Field{
		{Name: "column", Type: "string", Required: true, Description: "column to read"},
		{Name: "files", Type: "map(path)"},
		{Name: "scale", Type: "number"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("schema %+v, want %+v", got, want)
	}
}

func TestTry(t *testing.T) {
	got, err := sdk.Try(&upper{}, `{"column":"word","scale":0.5}`, []string{"word", "pos"}, [][]string{{"NASA", "NNP"}, {"flies", "VBZ"}, {"UK", "NNP"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []sdk.Feature{{0, "upper", 1}, {0, "len", 2}, {2, "upper", 1}, {2, "len", 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("features %v, want %v", got, want)
	}
	if _, err := sdk.Try(&upper{}, `{"column":"word"}`, []string{"word"}, nil); err == nil || err.Error() != "scale: must not be 0" {
		t.Errorf("Setup error: %v", err)
	}
}
