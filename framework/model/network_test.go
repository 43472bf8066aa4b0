package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/neural"
)

// TestNetworkRoundTrip writes a model with a network and reads it back
// (format 4, the same bytes again); a header that asks for a network
// larger than the weights that follow, or of an absurd size, is refused
// as corrupted, never allocated.
func TestNetworkRoundTrip(t *testing.T) {
	m := sampleModel()
	zero := 0.0
	cfg := neural.Config{WordDim: 3, Char: neural.CharNone, Hidden: 2, Layers: 1, Dropout: &zero, Transition: neural.Plain}
	net, err := neural.New(neural.Header{Config: cfg, Vocab: &neural.Vocab{Words: []string{"", "a", "b"}}, WordColumn: "word", Labels: m.Linear.NumLabels})
	if err != nil {
		t.Fatal(err)
	}
	net.Init(1)
	m.Network = net
	b := encode(t, m)
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != NeuralVersion || got.Network == nil || !bytes.Equal(encode(t, got), b) {
		t.Fatalf("format %d, network %v: the model does not read back to the same bytes", got.Version, got.Network != nil)
	}
	for _, c := range []struct{ from, to string }{
		{`"hidden":2`, `"hidden":9000`},
		{`"hidden":2`, `"hidden":99999999`},
		{`"word_dim":3`, `"word_dim":-3`},
	} {
		bad := reseal(t, b, c.from, c.to)
		if _, err := Decode(bad); err == nil || !strings.Contains(err.Error(), "corrupted") {
			t.Errorf("%s: %v, want a corrupted-model error", c.to, err)
		}
	}
}

// reseal replaces from with to in a model file's header (the header's
// length and the checksum fixed up).
func reseal(t *testing.T, b []byte, from, to string) []byte {
	t.Helper()
	i := bytes.Index(b, []byte(from))
	if i < 0 {
		t.Fatalf("%q not in the model file", from)
	}
	out := append(append(append([]byte(nil), b[:i]...), to...), b[i+len(from):len(b)-sha256.Size]...)
	// The header's length (a uint64 after the magic and the version)
	// changes with it.
	at := len(magic) + 4
	binary.LittleEndian.PutUint64(out[at:], binary.LittleEndian.Uint64(out[at:])+uint64(len(to)-len(from)))
	sum := sha256.Sum256(out)
	return append(out, sum[:]...)
}
