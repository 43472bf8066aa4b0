// network.go holds how a model file carries a neural encoder
// (Header.Encoder, Model.Network): its header in the JSON, its weights
// after the stage models.

package model

import (
	"fmt"

	"github.com/trellis-nlp/trellis/framework/neural"
)

// encodeNetwork records m's network in h and returns its weights, nil
// without a network.
func (m *Model) encodeNetwork(h *Header) ([]byte, error) {
	if m.Network == nil {
		h.Encoder = nil
		return nil, nil
	}
	if m.Network.Labels != m.Linear.NumLabels {
		return nil, fmt.Errorf("model: the network scores %d labels, the model has %d", m.Network.Labels, m.Linear.NumLabels)
	}
	enc := m.Network.Header
	h.Encoder = &enc
	return m.Network.Weights()
}

// decodeNetwork reads the network's weights that follow the stage
// models and builds the network h describes.
func decodeNetwork(r *reader, h *neural.Header) (*neural.Network, error) {
	n := r.count(1, "network")
	b := r.take(uint64(n), "network")
	if r.err != nil {
		return nil, r.err
	}
	// The header sizes the network; a corrupted one must not make this
	// reader allocate more than the weights that follow could fill.
	size, err := h.NumParams()
	if err != nil {
		return nil, fmt.Errorf("corrupted model: %w", err)
	}
	if size < 0 || size > int64(len(b))/4 {
		return nil, fmt.Errorf("corrupted model: the network's header asks for %d weights, the file has %d bytes of them", size, len(b))
	}
	net, err := neural.New(*h)
	if err != nil {
		return nil, fmt.Errorf("corrupted model: %w", err)
	}
	if err := net.ReadWeights(b); err != nil {
		return nil, fmt.Errorf("corrupted model: network weights: %w", err)
	}
	return net, nil
}
