package sdk

import (
	"encoding/json"
	"fmt"

	"github.com/trellis-nlp/trellis/plugins/protocol"
)

// Feature is one feature of a token, as Try returns them.
type Feature struct {
	Token int
	Key   string
	Value float64
}

// Try configures p as trellis would (config is the JSON of the config
// block; paths must already be absolute or relative to the working
// folder) and extracts the features of one sentence, given as rows of
// corpus columns. It is for testing a plugin in-process, without trellis.
func Try(p Plugin, config string, columns []string, sentence [][]string) ([]Feature, error) {
	if config == "" {
		config = "{}"
	}
	if err := json.Unmarshal([]byte(config), p.Config()); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	read, err := p.Setup(columns)
	if err != nil {
		return nil, err
	}
	var values []string
	for _, tok := range sentence {
		for _, name := range read {
			c := -1
			for i, n := range columns {
				if n == name {
					c = i
				}
			}
			if c < 0 || c >= len(tok) {
				return nil, fmt.Errorf("the sentence lacks column %q, which Setup asks for", name)
			}
			values = append(values, tok[c])
		}
	}
	rb := protocol.NewResponseBuilder()
	s := &Sentence{values: values, width: len(read)}
	if len(read) == 0 {
		s.values, s.width = make([]string, len(sentence)), 1
	}
	if err := p.Extract(s, &Features{b: rb}); err != nil {
		return nil, err
	}
	rb.EndSentence(len(sentence))
	var out []Feature
	err = protocol.Visit(rb.Response(), []uint32{uint32(len(sentence))}, &protocol.HostKeys{}, func(_, i int, key []byte, v float64) {
		out = append(out, Feature{Token: i, Key: string(key), Value: v})
	})
	return out, err
}
