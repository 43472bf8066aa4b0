package tagger_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// TestNewRefusesUnknownConfigKey: the tagger rebuilds its templates from
// the model file strictly, so a template config with a key the template
// does not know (a model from a newer trellis, an edited file) is refused
// with the key and the template named, not tagged with a different
// template than the one trained.
func TestNewRefusesUnknownConfigKey(t *testing.T) {
	tests := []struct {
		name     string
		template int
		config   string
		want     string
	}{
		{"as written", -1, "", ""},
		{"extra key", 0, `{"column":"word","offsets":[-1,0],"stride":2}`, `template "w": config: json: unknown field "stride"`},
		{"extra key in an empty config", 2, `{"width":3}`, `template "b": config: json: unknown field "width"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tinyModel(t)
			if tc.template >= 0 {
				m.Templates = append([]feature.TemplateSpec(nil), m.Templates...)
				m.Templates[tc.template].Config = []byte(tc.config)
			}
			path := filepath.Join(t.TempDir(), "m.model")
			if err := model.Save(path, m); err != nil {
				t.Fatal(err)
			}
			loaded, err := model.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			reg, _ := builtin.Registries()
			tg, err := tagger.New(loaded, reg, tagger.Options{})
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				tg.Close()
				return
			}
			if err == nil {
				tg.Close()
				t.Fatalf("a model whose template %q has an unknown config key was loaded", m.Templates[tc.template].Name)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want one containing %q", err, tc.want)
			}
		})
	}
}
