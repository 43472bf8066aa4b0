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
	sd := &shardData{Sentences: []int{2, 0}, Data: subset(d, []int{2, 0})}
	paths := map[string]func() error{
		filepath.Join(dir, "input.bin"): func() error { return writeBroadcast(filepath.Join(dir, "input.bin"), in, orders) },
		filepath.Join(dir, "r.result"):  func() error { return writeResult(filepath.Join(dir, "r.result"), res) },
		filepath.Join(dir, "s.data"):    func() error { return writeShardData(filepath.Join(dir, "s.data"), sd) },
	}
	for _, write := range paths {
		if err := write(); err != nil {
			t.Fatal(err)
		}
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
		s, err3 := readShardData(filepath.Join(dir, "s.data"))
		if err3 == nil {
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
	for path := range paths {
		b, _ := os.ReadFile(path)
		for name, damaged := range map[string][]byte{"flipped": flip(b, len(b)/2), "truncated": b[:len(b)-5]} {
			os.WriteFile(path, damaged, 0o644)
			if errs := read(); !slices.ContainsFunc(errs, func(err error) bool { return errors.Is(err, errBadFile) }) {
				t.Errorf("%s %s: read without errBadFile: %v", name, filepath.Base(path), errs)
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
