package neural

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestCharSettings: "bilstm" takes char_hidden (25 by default), which the
// other character encoders refuse; an unknown char encoder is named.
func TestCharSettings(t *testing.T) {
	noRange := func(string) *hcl.Range { return nil }
	c := Config{Char: CharBiLSTM}
	if d := c.Resolve(noRange); d.HasErrors() || c.CharHidden != 25 {
		t.Fatalf("bilstm: %v, char_hidden %d", d, c.CharHidden)
	}
	c = Config{}
	if d := c.Resolve(noRange); d.HasErrors() || c.Char != CharCNN || c.CharHidden != 0 {
		t.Fatalf("default: %v, char %q, char_hidden %d (the CNN's headers must not gain char_hidden)", d, c.Char, c.CharHidden)
	}
	for _, bad := range []struct {
		c    Config
		want string
	}{
		{Config{Char: "lstm"}, `char is "cnn", "bilstm" or "none", got "lstm"`},
		{Config{CharHidden: 10}, `char_hidden sizes the character BiLSTM: it needs char = "bilstm"`},
		{Config{Char: CharBiLSTM, CharHidden: -1}, "char_hidden must be at least 1"},
	} {
		d := bad.c.Resolve(noRange)
		if !d.HasErrors() || !strings.Contains(d.Error(), bad.want) {
			t.Errorf("%+v: %v, want %q", bad.c, d, bad.want)
		}
	}
}
