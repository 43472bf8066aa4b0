package online

import (
	"context"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn"
)

// TestRestoreChecksOrder: a checkpoint whose sentence order is not a
// permutation of the training sentences is refused with an error naming
// the bad entry, before a step could index out of range; the intact
// checkpoint resumes.
func TestRestoreChecksOrder(t *testing.T) {
	d := feature.NewDataset()
	for s := 0; s < 5; s++ {
		for i := 0; i < 3; i++ {
			d.Attrs = append(d.Attrs, int32((s+i)%3))
			d.TokenOff = append(d.TokenOff, len(d.Attrs))
			d.Labels = append(d.Labels, int32((s*i)%2))
		}
		d.SentOff = append(d.SentOff, len(d.Labels))
	}
	problem := func() *learn.Problem {
		return &learn.Problem{Train: d, NumAttrs: 3, NumLabels: 2, Transitions: true, Seed: 1, Threads: 1, Log: zerolog.Nop()}
	}
	cfg := &Config{Epochs: new(3)}
	var saved []byte
	p := problem()
	p.Checkpoints = &learn.Checkpoints{Every: 1, Save: func(b []byte) error {
		saved = append([]byte(nil), b...)
		return nil
	}}
	if _, err := Train(context.Background(), p, "delta", cfg, deltaRule{}); err != nil {
		t.Fatal(err)
	}
	var st state
	if err := learn.DecodeState(saved, &st); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		order []int
		want  string // "" for no error
	}{
		{"intact", st.Order, ""},
		{"too large", []int{0, 1, 2, 3, 5}, "has 5 at position 4, outside [0, 5)"},
		{"negative", []int{0, -1, 2, 3, 4}, "has -1 at position 1"},
		{"repeated", []int{0, 1, 2, 1, 4}, "has 1 twice (again at position 3)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := st
			bad.Order = tc.order
			b, err := learn.EncodeState(&bad)
			if err != nil {
				t.Fatal(err)
			}
			p := problem()
			p.Checkpoints = &learn.Checkpoints{Every: 1, Save: func([]byte) error { return nil }, Resume: b}
			_, err = Train(context.Background(), p, "delta", cfg, deltaRule{})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("intact checkpoint refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "delta: the checkpoint is damaged")):
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}
