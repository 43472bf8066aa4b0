// Command affix is a test plugin that emits the same prefix or suffix
// features as the builtin prefix and suffix templates, to measure what the
// process boundary costs (see the plugin README section).
package main

import (
	"strconv"
	"unicode/utf8"

	"github.com/trellis-nlp/trellis/plugins/sdk"
)

type config struct {
	Column  string `json:"column" trellis:"required"`
	Suffix  bool   `json:"suffix"`
	Lengths []int  `json:"lengths"`
}

type plugin struct {
	cfg  config
	keys [][]byte
	buf  []byte
}

func (p *plugin) Info() sdk.Info { return sdk.Info{Name: "affix", Version: "1.0.0"} }
func (p *plugin) Config() any    { return &p.cfg }

func (p *plugin) Setup([]string) ([]string, error) {
	if len(p.cfg.Lengths) == 0 {
		p.cfg.Lengths = []int{1, 2, 3, 4}
	}
	for _, n := range p.cfg.Lengths {
		p.keys = append(p.keys, []byte("[0]:"+strconv.Itoa(n)+"="))
	}
	return []string{p.cfg.Column}, nil
}

func (p *plugin) Extract(s *sdk.Sentence, f *sdk.Features) error {
	for i := 0; i < s.Len(); i++ {
		v := s.Value(i, 0)
		for l, n := range p.cfg.Lengths {
			p.buf = append(append(p.buf[:0], p.keys[l]...), affix(v, n, p.cfg.Suffix)...)
			f.AddBytes(i, p.buf, 1)
		}
	}
	return nil
}

func affix(v string, n int, suffix bool) string {
	if !suffix {
		for i := range v {
			if n == 0 {
				return v[:i]
			}
			n--
		}
		return v
	}
	end := len(v)
	for end > 0 && n > 0 {
		_, size := utf8.DecodeLastRuneInString(v[:end])
		end -= size
		n--
	}
	return v[end:]
}

func main() { sdk.Serve(func() sdk.Plugin { return &plugin{} }) }
