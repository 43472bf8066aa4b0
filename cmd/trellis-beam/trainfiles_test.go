package main

// This file holds the tests of train's files: they read back what was
// written, and a damaged or truncated file is refused.

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn/crf"
	"github.com/trellis-nlp/trellis/framework/learn/online"
)

// TestTrainFilesRoundTrip writes a broadcast, a result and a shard's data
// and reads them back; then flips a byte of each, and cuts each short,
// and wants errBadFile.
func TestTrainFilesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	in := &online.ShardInput{W: []float64{1, -2.5, 3e-300}, U: []float64{0, 1, 2}, C: 17, State: []float64{0.5, 0.25, 1}}
	orders := [][]int{{4, 0, 2}, {1, 3}}
	res := &online.ShardResult{W: []float64{2, 3, 4}, U: []float64{5, 6, 7}, C: 20, Updates: 2, Errors: 5, Tokens: 11}
	d := feature.NewDataset()
	// Three sentences of 2, 1 and 2 tokens, with values.
	d.Attrs, d.Values = []int32{1, 2, 3, 4, 5, 6, 7}, []float64{1, 0.5, 1, 2, 1, 1, 3}
	d.TokenOff, d.SentOff, d.Labels = []int{0, 2, 3, 4, 6, 7}, []int{0, 2, 3, 5}, []int32{0, 1, 1, 0, 1}
	if err := writeBroadcast(filepath.Join(dir, "input.bin"), in, orders); err != nil {
		t.Fatal(err)
	}
	if err := writeResult(filepath.Join(dir, "r.result"), res); err != nil {
		t.Fatal(err)
	}
	if err := writeShardData(filepath.Join(dir, "s"), d, []int{2, 0}); err != nil {
		t.Fatal(err)
	}
	read := func() []error {
		b, err1 := readBroadcast(filepath.Join(dir, "input.bin"))
		if err1 == nil && (!slices.Equal(b.In.W, in.W) || !slices.Equal(b.In.U, in.U) || b.In.C != in.C || !slices.Equal(b.In.State, in.State) ||
			len(b.Orders) != 2 || !slices.Equal(b.Orders[0], orders[0]) || !slices.Equal(b.Orders[1], orders[1])) {
			t.Errorf("broadcast read back as %+v", b)
		}
		r, err2 := readResult(filepath.Join(dir, "r.result"), 3, 0)
		if err2 == nil && (!slices.Equal(r.W, res.W) || !slices.Equal(r.U, res.U) || r.C != 20 || r.Updates != 2 || r.Errors != 5 || r.Tokens != 11 || r.State != nil) {
			t.Errorf("result read back as %+v", r)
		}
		s, err3 := readShardData(filepath.Join(dir, "s"))
		if err3 == nil {
			defer s.Close()
			// Sentence 2 (tokens 3, 4: attributes 5 6 | 7) then sentence 0
			// (tokens 0, 1: attributes 1 2 | 3).
			want := feature.Dataset{Attrs: []int32{5, 6, 7, 1, 2, 3}, Values: []float64{1, 1, 3, 1, 0.5, 1},
				TokenOff: []int{0, 2, 3, 5, 6}, SentOff: []int{0, 2, 4}, Labels: []int32{0, 1, 0, 1}}
			got := s.Data
			if !slices.Equal(got.Attrs, want.Attrs) || !slices.Equal(got.Values, want.Values) || !slices.Equal(got.TokenOff, want.TokenOff) ||
				!slices.Equal(got.SentOff, want.SentOff) || !slices.Equal(got.Labels, want.Labels) || !slices.Equal(s.Sentences, []int{2, 0}) {
				t.Errorf("shard data read back as %+v %+v, want %+v", s.Sentences, *got, want)
			}
		}
		return []error{err1, err2, err3}
	}
	for _, err := range read() {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range []string{"input.bin", "r.result", "s/sentences.bin", "s/data/attrs.bin", "s/data/values.bin"} {
		path = filepath.Join(dir, path)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for name, damaged := range map[string][]byte{"flipped": flip(b, len(b)/2), "truncated": b[:len(b)-5]} {
			os.WriteFile(path, damaged, 0o644)
			bad := func(err error) bool { return errors.Is(err, errBadFile) || errors.Is(err, feature.ErrCorruptDataset) }
			if errs := read(); !slices.ContainsFunc(errs, bad) {
				t.Errorf("%s %s: read without errBadFile or ErrCorruptDataset: %v", name, path, errs)
			}
		}
		os.WriteFile(path, b, 0o644)
	}
}

func flip(b []byte, i int) []byte {
	c := slices.Clone(b)
	c[i] ^= 0x40
	return c
}

// TestCRFFilesRoundTrip writes a CRF SGD broadcast and result, an
// evaluation's point and a shard's gradient result, and reads them back
// bit for bit; a flipped byte or a cut file is refused with errBadFile,
// as is a gradient of the wrong length.
func TestCRFFilesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	v := []float64{1, -2.5, 3e-300}
	in := []crf.SGDShardInput{{V: v, Scale: 0.75, T: 12, Order: []int{4, 0, 2}}, {V: v, Scale: 0.75, T: 9, Order: []int{1, 3}}}
	res := &crf.SGDShardResult{V: []float64{2, 3, 4}, Scale: 0.5, T: 15, Loss: 6.25}
	grad := []float64{0.125, -7, 1e-10}
	files := map[string]func(string) error{
		"input.bin": func(p string) error { return writeSGDBroadcast(p, in) },
		"r.result":  func(p string) error { return writeSGDResult(p, res) },
		"x.bin":     func(p string) error { return writeFloats(p, v) },
		"g.result":  func(p string) error { return writeGradientResult(p, 41.5, grad) },
	}
	for name, write := range files {
		if err := write(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	read := func() []error {
		b, err1 := readSGDBroadcast(filepath.Join(dir, "input.bin"))
		if err1 == nil && (!slices.Equal(b.V, v) || b.Scale != 0.75 || !slices.Equal(b.Clocks, []float64{12, 9}) ||
			len(b.Orders) != 2 || !slices.Equal(b.Orders[0], in[0].Order) || !slices.Equal(b.Orders[1], in[1].Order)) {
			t.Errorf("SGD broadcast read back as %+v", b)
		}
		r, err2 := readSGDResult(filepath.Join(dir, "r.result"), 3)
		if err2 == nil && (!slices.Equal(r.V, res.V) || r.Scale != res.Scale || r.T != res.T || r.Loss != res.Loss) {
			t.Errorf("SGD result read back as %+v", r)
		}
		x, err3 := readFloats(filepath.Join(dir, "x.bin"))
		if err3 == nil && !slices.Equal(x, v) {
			t.Errorf("point read back as %v", x)
		}
		g := make([]float64, 3)
		loss, err4 := readGradientResult(filepath.Join(dir, "g.result"), g)
		if err4 == nil && (loss != 41.5 || !slices.Equal(g, grad)) {
			t.Errorf("gradient result read back as %v, %v", loss, g)
		}
		return []error{err1, err2, err3, err4}
	}
	for _, err := range read() {
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := readGradientResult(filepath.Join(dir, "g.result"), make([]float64, 4)); !errors.Is(err, errBadFile) {
		t.Errorf("a gradient of 3 weights read into 4: %v, want errBadFile", err)
	}
	for name := range files {
		path := filepath.Join(dir, name)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for how, damaged := range map[string][]byte{"flipped": flip(b, len(b)/2), "truncated": b[:len(b)-5]} {
			os.WriteFile(path, damaged, 0o644)
			if errs := read(); !slices.ContainsFunc(errs, func(err error) bool { return errors.Is(err, errBadFile) }) {
				t.Errorf("%s %s: read without errBadFile: %v", how, name, errs)
			}
		}
		os.WriteFile(path, b, 0o644)
	}
}
