// checkpoint.go saves and restores a joint training's state after an
// epoch (learn.Loop's Save and Restore), so that a resumed run ends with
// the bytes of an uninterrupted one.

package joint

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	"github.com/trellis-nlp/trellis/framework/learn"
)

// state is a checkpoint: everything later epochs depend on. The sentence
// order is not in it: each epoch draws it from the seed and its number.
type state struct {
	Epoch int           `json:"epoch"`
	Curve []learn.Point `json:"curve"`
	// Linear is the linear model's weights (float64 bits), Net the
	// network's (nn.Params.WriteExact); NetOpt and LinOpt the optimizers'
	// states (MarshalState).
	Linear, Net, NetOpt, LinOpt []byte
	// HasBest says whether a dev score was kept: then BestScore, BestAt,
	// BestW (float64 bits) and BestNet are the best epoch's.
	HasBest   bool    `json:"has_best"`
	BestScore float64 `json:"best_score,omitempty"`
	BestAt    int     `json:"best_at,omitempty"`
	BestW     []byte  `json:"best_w,omitempty"`
	BestNet   []byte  `json:"best_net,omitempty"`
	SinceBest int     `json:"since_best"`
}

// save encodes the state after epoch k.
func (t *trainer) save(k int, curve []learn.Point) ([]byte, error) {
	st := state{Epoch: k, Curve: curve, Linear: float64Bytes(t.m.W), SinceBest: t.sinceBest}
	var net bytes.Buffer
	if _, err := t.net.Enc.Params.WriteExact(&net); err != nil {
		return nil, err
	}
	st.Net = net.Bytes()
	var err error
	if st.NetOpt, err = t.netOpt.MarshalState(t.net.Enc.Params); err != nil {
		return nil, err
	}
	if st.LinOpt, err = t.linOpt.MarshalState(t.lin); err != nil {
		return nil, err
	}
	if t.best.W != nil {
		st.HasBest, st.BestScore, st.BestAt = true, t.best.Score, t.best.At
		st.BestW, st.BestNet = float64Bytes(t.best.W), t.bestNet
	}
	return json.Marshal(st)
}

// restore loads a state save encoded and returns its epoch and curve.
func (t *trainer) restore(data []byte) (int, []learn.Point, error) {
	var st state
	if err := json.Unmarshal(data, &st); err != nil {
		return 0, nil, fmt.Errorf("encoder checkpoint: %w", err)
	}
	if len(st.Linear) != 8*len(t.m.W) || st.HasBest && len(st.BestW) != 8*len(t.m.W) {
		return 0, nil, fmt.Errorf("encoder checkpoint: %d bytes of linear weights for a model of %d", len(st.Linear), len(t.m.W))
	}
	if _, err := t.net.Enc.Params.ReadExact(bytes.NewReader(st.Net)); err != nil {
		return 0, nil, fmt.Errorf("encoder checkpoint: %w", err)
	}
	if err := t.netOpt.UnmarshalState(t.net.Enc.Params, st.NetOpt); err != nil {
		return 0, nil, fmt.Errorf("encoder checkpoint: %w", err)
	}
	if err := t.linOpt.UnmarshalState(t.lin, st.LinOpt); err != nil {
		return 0, nil, fmt.Errorf("encoder checkpoint: %w", err)
	}
	readFloat64s(t.m.W, st.Linear)
	t.best, t.bestNet, t.sinceBest = learn.NewBest(), nil, st.SinceBest
	if st.HasBest {
		t.best.Score, t.best.At = st.BestScore, st.BestAt
		t.best.W = make([]float64, len(t.m.W))
		readFloat64s(t.best.W, st.BestW)
		t.bestNet = st.BestNet
	}
	return st.Epoch, st.Curve, nil
}

func float64Bytes(w []float64) []byte {
	b := make([]byte, 0, 8*len(w))
	for _, v := range w {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// readFloat64s fills dst from b, 8 bytes each (len(b) == 8·len(dst)).
func readFloat64s(dst []float64, b []byte) {
	for i := range dst {
		dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
}
