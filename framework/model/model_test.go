package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/linear"
)

func sampleModel() *Model {
	lm := linear.New(2, []int32{0, 2, 3}, []int32{0, 1, 1}, true)
	for i := range lm.W {
		lm.W[i] = float64(i) - 3.5
	}
	return &Model{
		Header: Header{
			Labels: []string{"B-NP", "O"}, Scheme: "iob2", Constrained: true,
			Format:       corpus.Config{Name: "conll", Columns: []string{"word", "chunk"}, Label: "chunk"},
			LabelColumn:  "chunk",
			Templates:    []feature.TemplateSpec{{Type: "emission", Name: "w", Config: []byte(`{"column":"word"}`)}},
			UnknownAttrs: []int32{1},
			Learner:      Learner{Name: "hmm", Type: "hmm", Config: []byte(`{}`)},
			Provenance:   Provenance{Experiment: "t", SpecHash: "abc", DataHashes: map[string]string{"train": "def"}, Seed: 7},
		},
		Attrs:  []string{"w[0]=the", "<unknown>/0"},
		Linear: lm,
	}
}

func encode(t *testing.T, m *Model) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := m.Encode(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	m := sampleModel()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.model")
	if err := Save(path, m); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Linear, m.Linear) || !reflect.DeepEqual(got.Attrs, m.Attrs) {
		t.Errorf("weights or attributes differ after round trip")
	}
	if got.Version != PlainVersion || got.Labels[1] != "O" || got.Provenance.Seed != 7 || got.Format.Label != "chunk" {
		t.Errorf("header differs: %+v", got.Header)
	}
	// Same model, same bytes.
	if !bytes.Equal(encode(t, m), encode(t, got)) {
		t.Errorf("re-encoding a loaded model changes its bytes")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

// TestLocalNormalization: a locally normalized model (an MEMM) is written
// as format version 2 with normalization = "local" and read back marked
// Local; every other model keeps version 1's bytes (no normalization
// field), so models written before version 2 existed are unchanged. A
// file whose version and normalization disagree is refused.
func TestLocalNormalization(t *testing.T) {
	plain := encode(t, sampleModel())
	if v := binary.LittleEndian.Uint32(plain[8:]); v != 1 || bytes.Contains(plain, []byte("normalization")) {
		t.Fatalf("a plain model is written as version %d (normalization field: %v), want version 1's bytes", v, bytes.Contains(plain, []byte("normalization")))
	}
	m := sampleModel()
	m.Linear.Local = true
	b := encode(t, m)
	if v := binary.LittleEndian.Uint32(b[8:]); v != 2 {
		t.Fatalf("a local model is written as version %d, want 2", v)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Linear.Local || got.Normalization != NormalizationLocal || got.Version != 2 {
		t.Fatalf("read back: local %v, normalization %q, version %d", got.Linear.Local, got.Normalization, got.Version)
	}
	if !bytes.Equal(encode(t, got), b) {
		t.Errorf("re-encoding a loaded local model changes its bytes")
	}
	// Version 1 claiming local normalization, version 2 without it, and
	// an unknown normalization: each resealed with a valid checksum.
	for name, edit := range map[string]func([]byte) []byte{
		"v1 local": func(b []byte) []byte {
			b = bytes.Replace(b, []byte(`"version":2`), []byte(`"version":1`), 1)
			binary.LittleEndian.PutUint32(b[8:], 1)
			return b
		},
		"v2 global": func(b []byte) []byte {
			b = bytes.Replace(b, []byte(`"normalization":"local"`), []byte(`"normalization":""     `), 1)
			return b
		},
		"unknown": func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"normalization":"local"`), []byte(`"normalization":"other"`), 1)
		},
	} {
		t.Run(name, func(t *testing.T) {
			c := edit(append([]byte(nil), b[:len(b)-32]...))
			sum := sha256.Sum256(c)
			if _, err := Decode(append(c, sum[:]...)); err == nil || !strings.Contains(err.Error(), "normalization") {
				t.Fatalf("got %v, want a normalization error", err)
			}
		})
	}
}

func TestCorruption(t *testing.T) {
	good := encode(t, sampleModel())
	cases := map[string][]byte{
		"empty":          {},
		"not a model":    []byte("hello world, this is text"),
		"truncated":      good[:len(good)/2],
		"one byte short": good[:len(good)-1],
		"flipped bit": func() []byte {
			b := append([]byte(nil), good...)
			b[len(b)/2] ^= 0x40
			return b
		}(),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := Decode(data); err == nil {
				t.Fatal("corrupted model decoded without error")
			}
		})
	}
	t.Run("newer version", func(t *testing.T) {
		b := append([]byte(nil), good...)
		binary.LittleEndian.PutUint32(b[8:], NewestVersion+1)
		_, err := Decode(b)
		if err == nil || !strings.Contains(err.Error(), "newer") {
			t.Fatalf("want a 'newer version' error, got %v", err)
		}
	})
}

// TestEncodingVersion checks that only a model trained in an encoding is
// written in format 2 (so an older trellis, which reads 1 only, refuses
// it), that it reads back with its output scheme, and that a header and
// file version that disagree about the encoding are refused.
func TestEncodingVersion(t *testing.T) {
	plain := encode(t, sampleModel())
	if v := binary.LittleEndian.Uint32(plain[8:]); v != PlainVersion {
		t.Fatalf("plain model written as version %d, want %d", v, PlainVersion)
	}
	m := sampleModel()
	m.Scheme, m.OutputScheme = "bioes", "iob1"
	data := encode(t, m)
	if v := binary.LittleEndian.Uint32(data[8:]); v != Version || Version != 2 {
		t.Fatalf("encoded model written as version %d, want 2", v)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.OutputScheme != "iob1" || got.Output() != "iob1" || got.Scheme != "bioes" || got.Version != 2 {
		t.Errorf("header after round trip: %+v", got.Header)
	}
	if s := sampleModel(); s.Output() != s.Scheme {
		t.Errorf("a plain model's output scheme is %q, want its scheme %q", s.Output(), s.Scheme)
	}
	// A version-1 file whose header claims an encoding: resealed, so only
	// the version check can catch it.
	b := append([]byte(nil), data[:len(data)-32]...)
	binary.LittleEndian.PutUint32(b[8:], PlainVersion)
	if _, err := Decode(withChecksum(b)); err == nil {
		t.Error("a version 1 file with a version 2 header decoded")
	}
}

// TestHugeLengthField makes sure a length field claiming billions of
// entries is refused before anything is allocated, even when the
// checksum is valid (a file crafted, not damaged).
func TestHugeLengthField(t *testing.T) {
	var b bytes.Buffer
	b.Write(magic[:])
	b.Write(binary.LittleEndian.AppendUint32(nil, Version))
	b.Write(binary.LittleEndian.AppendUint64(nil, 1<<62))
	b.WriteString("{}")
	data := withChecksum(b.Bytes())
	if _, err := Decode(data); err == nil || !strings.Contains(err.Error(), "claims") {
		t.Fatalf("want a length error, got %v", err)
	}
}

func TestRefusesNaN(t *testing.T) {
	m := sampleModel()
	m.Linear.W[0] = 0 / zero()
	if err := m.Encode(&bytes.Buffer{}); err == nil {
		t.Fatal("a NaN weight was written")
	}
}

func zero() float64 { return 0 }

func FuzzDecode(f *testing.F) {
	for _, m := range []*Model{sampleModel(), sampleSecondOrderModel()} {
		var b bytes.Buffer
		m.Encode(&b)
		f.Add(b.Bytes())
	}
	f.Add([]byte("TRELLISM"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// The checksum rejects random damage; fuzz the decoder behind it
		// by re-sealing whatever the fuzzer produced.
		for _, d := range [][]byte{data, withChecksum(data)} {
			m, err := Decode(d)
			if err == nil {
				if verr := m.Linear.Validate(); verr != nil {
					t.Fatalf("decoded an invalid model: %v", verr)
				}
			}
		}
	})
}

func withChecksum(body []byte) []byte {
	return append(append([]byte(nil), body...), sum(body)...)
}

// TestEncodeExactSize: the model's bytes are built in one buffer of their
// exact size (names whose length takes one, two and three varint bytes).
func TestEncodeExactSize(t *testing.T) {
	m := sampleModel()
	m.Attrs = []string{strings.Repeat("a", 127), strings.Repeat("é", 70_000)}
	b, err := m.encode()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != cap(b) {
		t.Errorf("encoded %d bytes into a buffer of %d", len(b), cap(b))
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Attrs, m.Attrs) {
		t.Error("attribute names differ after the round trip")
	}
}

// TestPairFeatures: a model with pair features (templates with labels =
// "bigram") is written as format version 2 with pair_features in the
// header and its pair structure after the state features', and reads back
// equal, bytes included; a plain model has no pair_features field (its
// version 1 bytes are unchanged); a header whose count disagrees with the
// file is refused.
func TestPairFeatures(t *testing.T) {
	if plain := encode(t, sampleModel()); bytes.Contains(plain, []byte("pair_features")) {
		t.Fatal("a plain model's header mentions pair_features")
	}
	m := sampleModel()
	m.Templates = append(m.Templates, feature.TemplateSpec{Type: "emission", Name: "wb", Config: []byte(`{"column":"word"}`), Labels: feature.LabelsBigram})
	m.Linear.PairOff = []int32{0, 2, 3}
	m.Linear.PairKey = []int32{1, 2, 3}
	m.Linear.W = append(m.Linear.W, 0.25, -0.5, 1.5)
	b := encode(t, m)
	if v := binary.LittleEndian.Uint32(b[8:]); v != 2 {
		t.Fatalf("a model with pair features is written as version %d, want 2", v)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Linear, m.Linear) || got.PairFeatures != 3 || got.Templates[1].Labels != feature.LabelsBigram {
		t.Fatalf("read back %+v (pair features %d, templates %+v)", got.Linear, got.PairFeatures, got.Templates)
	}
	if !bytes.Equal(encode(t, got), b) {
		t.Errorf("re-encoding a loaded model with pair features changes its bytes")
	}
	c := bytes.Replace(append([]byte(nil), b[:len(b)-32]...), []byte(`"pair_features":3`), []byte(`"pair_features":2`), 1)
	sum := sha256.Sum256(c)
	if _, err := Decode(append(c, sum[:]...)); err == nil || !strings.Contains(err.Error(), "pair features") {
		t.Fatalf("got %v, want a pair features error", err)
	}
}

// TestHiddenStates: a latent model (hidden states per label) is written as
// format version 2 with hidden_states and read back over len(Labels)·k
// states; a plain model has no hidden_states field. Headers that disagree
// with the weights or the version are refused.
func TestHiddenStates(t *testing.T) {
	if plain := encode(t, sampleModel()); bytes.Contains(plain, []byte("hidden_states")) {
		t.Fatal("a plain model's header has a hidden_states field")
	}
	m := sampleModel()
	lm := linear.New(4, []int32{0, 4, 6}, []int32{0, 1, 2, 3, 2, 3}, true)
	for i := range lm.W {
		lm.W[i] = float64(i) / 4
	}
	lm.HiddenStates = 2
	m.Linear = lm
	b := encode(t, m)
	if v := binary.LittleEndian.Uint32(b[8:]); v != 2 {
		t.Fatalf("a latent model is written as version %d, want 2", v)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.HiddenStates != 2 || got.Linear.HiddenStates != 2 || got.Linear.NumLabels != 4 || got.StateName(3) != "O#1" {
		t.Fatalf("read back: %d hidden states, %d states, state 3 %q", got.HiddenStates, got.Linear.NumLabels, got.StateName(3))
	}
	if !bytes.Equal(encode(t, got), b) {
		t.Errorf("re-encoding a loaded latent model changes its bytes")
	}
	for name, c := range map[string]struct {
		edit func([]byte) []byte
		want string
	}{
		"one state": {func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"hidden_states":2`), []byte(`"hidden_states":1`), 1)
		}, "1 hidden states"},
		"three states": {func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"hidden_states":2`), []byte(`"hidden_states":3`), 1)
		}, "corrupted model"},
		"v1": {func(b []byte) []byte {
			b = bytes.Replace(b, []byte(`"version":2`), []byte(`"version":1`), 1)
			binary.LittleEndian.PutUint32(b[8:], 1)
			return b
		}, "2 hidden states"},
	} {
		t.Run(name, func(t *testing.T) {
			e := c.edit(append([]byte(nil), b[:len(b)-32]...))
			sum := sha256.Sum256(e)
			if _, err := Decode(append(e, sum[:]...)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
		})
	}
	m.Labels = []string{"B-NP", "I-NP", "O"}
	if err := m.Encode(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "3 label names for 2 labels") {
		t.Fatalf("encoding 4 states as 3 labels of 2 states: %v", err)
	}
}
