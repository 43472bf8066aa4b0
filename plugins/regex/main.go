// Command regex is a trellis feature-extractor plugin: named regular
// expression classes of tokens (years, times, codes, URLs...), at chosen
// offsets, and optionally a real-valued length feature. It saves writing a
// template for each such class.
//
//	plugin "re" {
//	  binary = "${var.plugin_dir}/regex"
//	  config {
//	    column  = "form"
//	    classes = { year = "^(1[89]|20)[0-9][0-9]$", time = "^[0-9]{1,2}:[0-9]{2}$" }
//	    offsets = [-1, 0, 1]
//	    length  = true
//	  }
//	}
//
// A token matching class C at offset o of token i gives token i the
// feature "C[o]". With length = true every token also gets "len" with the
// value log(1 + number of characters): a real-valued feature.
package main

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/trellis-nlp/trellis/plugins/sdk"
)

const version = "1.0.0"

type config struct {
	Column  string            `json:"column" trellis:"required" help:"the column to match"`
	Classes map[string]string `json:"classes" trellis:"required" help:"class name => regular expression (RE2 syntax)"`
	Offsets []int             `json:"offsets" help:"token offsets to look at (default [0])"`
	Length  bool              `json:"length" help:"add the real-valued feature len = log(1 + characters)"`
}

type class struct {
	re   *regexp.Regexp
	keys []string // per offset
}

type plugin struct {
	cfg     config
	classes []class
}

func (p *plugin) Info() sdk.Info {
	return sdk.Info{Name: "regex", Version: version, Description: "regular-expression token classes at offsets, and a real-valued length"}
}

func (p *plugin) Config() any { return &p.cfg }

func (p *plugin) Setup([]string) ([]string, error) {
	if len(p.cfg.Offsets) == 0 {
		p.cfg.Offsets = []int{0}
	}
	for _, o := range p.cfg.Offsets {
		if o < -5 || o > 5 {
			return nil, sdk.Errorf("offsets", "offset %d is out of range -5..5", o)
		}
	}
	names := make([]string, 0, len(p.cfg.Classes))
	for n := range p.cfg.Classes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		re, err := regexp.Compile(p.cfg.Classes[n])
		if err != nil {
			return nil, sdk.Errorf("classes", "class %q: %v", n, err)
		}
		c := class{re: re}
		for _, o := range p.cfg.Offsets {
			c.keys = append(c.keys, n+"["+strconv.Itoa(o)+"]")
		}
		p.classes = append(p.classes, c)
	}
	return []string{p.cfg.Column}, nil
}

func (p *plugin) Extract(s *sdk.Sentence, f *sdk.Features) error {
	n := s.Len()
	for i := 0; i < n; i++ {
		for k, o := range p.cfg.Offsets {
			j := i + o
			if j < 0 || j >= n {
				continue
			}
			w := s.Value(j, 0)
			for _, c := range p.classes {
				if c.re.MatchString(w) {
					f.Set(i, c.keys[k])
				}
			}
		}
		if p.cfg.Length {
			f.Add(i, "len", math.Log1p(float64(utf8.RuneCountInString(s.Value(i, 0)))))
		}
	}
	return nil
}

func main() { sdk.Serve(func() sdk.Plugin { return &plugin{} }) }
