// Command misbehave is a test plugin: it extracts "w=<word>" features like
// an emission template, or misbehaves as its config's mode says.
package main

import (
	"fmt"
	"math"
	"os"
	"time"

	"github.com/trellis-nlp/trellis/plugins/sdk"
)

// version is set with -ldflags "-X main.version=..." to test version checks.
var version = "1.0.0"

type config struct {
	Column string  `json:"column" trellis:"required"`
	Mode   string  `json:"mode" help:"ok, crash (panic), exit, hang, bad_utf8, bad_token, nan, print"`
	After  int     `json:"after" help:"misbehave after this many sentences"`
	Weight float64 `json:"weight"`
}

type plugin struct {
	cfg  config
	seen int
}

func init() {
	// Printing to stdout must not break the handshake.
	fmt.Println("hello from init")
}

func (p *plugin) Info() sdk.Info { return sdk.Info{Name: "misbehave", Version: version} }
func (p *plugin) Config() any    { return &p.cfg }

func (p *plugin) Setup(cols []string) ([]string, error) {
	switch p.cfg.Mode {
	case "", "ok", "crash", "exit", "hang", "bad_utf8", "bad_token", "nan", "print":
	default:
		return nil, sdk.Errorf("mode", "unknown mode %q", p.cfg.Mode)
	}
	sdk.Log().Warn("misbehave configured", "mode", p.cfg.Mode)
	return []string{p.cfg.Column}, nil
}

func (p *plugin) Extract(s *sdk.Sentence, f *sdk.Features) error {
	p.seen++
	bad := p.seen > p.cfg.After
	switch {
	case bad && p.cfg.Mode == "crash":
		panic("misbehave: crashing on purpose")
	case bad && p.cfg.Mode == "exit":
		os.Exit(3)
	case bad && p.cfg.Mode == "hang":
		time.Sleep(time.Hour)
	case bad && p.cfg.Mode == "print":
		fmt.Println("printed to stdout during extraction")
	}
	for i := 0; i < s.Len(); i++ {
		w := 1.0
		if p.cfg.Weight != 0 {
			w = p.cfg.Weight
		}
		f.Add(i, "w="+s.Value(i, 0), w)
	}
	switch {
	case bad && p.cfg.Mode == "bad_utf8":
		f.AddBytes(0, []byte{'x', 0xff, 0xfe}, 1)
	case bad && p.cfg.Mode == "bad_token":
		f.Set(s.Len()+3, "beyond")
	case bad && p.cfg.Mode == "nan":
		f.Add(0, "nan", math.NaN())
	}
	return nil
}

func main() { sdk.Serve(func() sdk.Plugin { return &plugin{} }) }
