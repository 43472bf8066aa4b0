// Tests of DecodeConfig and ConfigSchema against gohcl on a flat struct.

package learn

import (
	"reflect"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

type Shared struct {
	Epochs *int   `hcl:"epochs,optional" json:"epochs,omitempty"`
	Mix    string `hcl:"mix,optional" json:"mix,omitempty"`
}

type Inner struct {
	Rate float64 `hcl:"rate,optional" json:"rate,omitempty"`
}

type More struct {
	Inner
	Name string `hcl:"name" json:"name"`
}

// composed embeds a struct, a pointer to one and a struct that embeds
// one (exported types: the fields are reached by reflection); flat
// declares the same fields itself.
type composed struct {
	Own *bool `hcl:"own,optional" json:"own,omitempty"`
	Shared
	*More
}

type flat struct {
	Own    *bool   `hcl:"own,optional" json:"own,omitempty"`
	Epochs *int    `hcl:"epochs,optional" json:"epochs,omitempty"`
	Mix    string  `hcl:"mix,optional" json:"mix,omitempty"`
	Rate   float64 `hcl:"rate,optional" json:"rate,omitempty"`
	Name   string  `hcl:"name" json:"name"`
}

func parseBody(t *testing.T, src string) hcl.Body {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "t.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return f.Body
}

// TestGohclSkipsEmbedded pins why DecodeConfig exists: gohcl neither
// decodes an embedded struct nor lists its attributes. If this fails,
// gohcl has learnt to, and DecodeConfig and ConfigSchema can go.
func TestGohclSkipsEmbedded(t *testing.T) {
	var c struct {
		Shared
		X int `hcl:"x,optional"`
	}
	diags := gohcl.DecodeBody(parseBody(t, "epochs = 3\nx = 1\n"), nil, &c)
	schema, _ := gohcl.ImpliedBodySchema(&c)
	if !diags.HasErrors() || c.Epochs != nil || len(schema.Attributes) != 1 {
		t.Fatalf("gohcl decoded the embedded struct (diags %v, epochs %v, schema %v)", diags, c.Epochs, schema.Attributes)
	}
}

// TestDecodeConfigAsFlat: the schema, the values and the diagnostics are
// gohcl's for the flat struct, for good and bad blocks.
func TestDecodeConfigAsFlat(t *testing.T) {
	want, _ := gohcl.ImpliedBodySchema(&flat{})
	if got := ConfigSchema(&composed{More: &More{}}); !reflect.DeepEqual(got, want) {
		t.Fatalf("schema %+v, want %+v", got, want)
	}
	for _, src := range []string{
		"own = true\nepochs = 3\nmix = \"m\"\nrate = 0.5\nname = \"n\"\n",
		"name = \"n\"\n",
		"epochs = \"x\"\nname = \"n\"\n",
		"epoch = 3\nname = 1\nfoo {}\n",
		"mix = null\nrate = 2\n",
	} {
		c := composed{More: &More{}}
		var f flat
		got, want := DecodeConfig(parseBody(t, src), nil, &c), gohcl.DecodeBody(parseBody(t, src), nil, &f)
		if !reflect.DeepEqual(texts(got), texts(want)) {
			t.Errorf("%q: diagnostics\n%v\nwant\n%v", src, got, want)
		}
		back := flat{Own: c.Own, Epochs: c.Epochs, Mix: c.Mix, Rate: c.Rate, Name: c.Name}
		if !reflect.DeepEqual(back, f) {
			t.Errorf("%q: decoded %+v, want %+v", src, back, f)
		}
	}
}

// texts renders each diagnostic with its place.
func texts(diags hcl.Diagnostics) []string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Error())
	}
	return out
}

func TestConfigSchemaRefusesTwice(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a setting declared twice was accepted")
		}
	}()
	ConfigSchema(&struct {
		Shared
		Mix string `hcl:"mix,optional"`
	}{})
}
