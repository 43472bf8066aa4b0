// prune.go is `trellis prune`: a model rewritten without the features and
// attributes that cannot change a score (framework/prune).

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/trellis-nlp/trellis/framework/fileio"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/pretrained"
	"github.com/trellis-nlp/trellis/framework/prune"
)

func pruneCommand() command {
	return command{
		Name:    "prune",
		Usage:   []string{"--model MODEL --out FILE"},
		Summary: "write a smaller model that tags exactly as MODEL does",
		Description: "Writes FILE, MODEL without what can never change a score: every feature of weight 0 and, when no template's " +
			"unknown-value attribute has a weight (of the built-in learners, only the HMM gives them one), every attribute " +
			"whose weights are all 0. The attributes of the model's vocabulary (what eval's IV/OOV figures count) stay, and so do " +
			"a transition model's attribute names; first stages are pruned alike. Tagging, n-best lists, marginals, explanations " +
			"and eval give the same bytes with FILE as with MODEL. Prints the attributes, features and bytes before and after. " +
			"MODEL may be a shipped model's name. FILE must not exist; it is written whole or not at all. " +
			"The pruned model is for tagging: continue training (init_model) from the unpruned one.",
		Run: func(a *app, _ context.Context, args []string) error { return a.cmdPrune(args) },
	}
}

func (a *app) cmdPrune(args []string) error {
	fs := newFlagSet("prune", a.stderr)
	in := fs.String("model", "", "the model to prune: a `MODEL` file or shipped model name")
	out := fs.String("out", "", "the pruned model `FILE` to write (must not exist)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usagef("prune takes no arguments besides its flags (`trellis prune --model MODEL --out FILE`)")
	case *in == "":
		return usagef("prune needs --model MODEL")
	case *out == "":
		return usagef("prune needs --out FILE")
	}
	if _, err := os.Lstat(*out); err == nil {
		return usagef("%s already exists; remove it or choose another --out", *out)
	}
	data, err := pretrained.ReadFile(*in)
	if err != nil {
		return err
	}
	m, err := model.Decode(data)
	if err != nil {
		return fmt.Errorf("%s: %w", *in, err)
	}
	pm, r, err := prune.Model(m)
	if err != nil {
		return fmt.Errorf("%s: %w", *in, err)
	}
	var buf bytes.Buffer
	if err := pm.Encode(&buf); err != nil {
		return err
	}
	if err := fileio.WriteFile(*out, buf.Bytes()); err != nil {
		return err
	}
	writePruneReport(a.stdout, "", r)
	fmt.Fprintf(a.stdout, "bytes:         %d -> %d\n", len(data), buf.Len())
	return nil
}

// writePruneReport prints r, then its stages' reports, each line indented
// by indent.
func writePruneReport(w io.Writer, indent string, r prune.Report) {
	fmt.Fprintf(w, "%sattributes:    %d -> %d\n", indent, r.Before.Attributes, r.After.Attributes)
	fmt.Fprintf(w, "%sfeatures:      %d -> %d\n", indent, r.Before.Features, r.After.Features)
	if r.Before.PairFeatures > 0 {
		fmt.Fprintf(w, "%spair features: %d -> %d\n", indent, r.Before.PairFeatures, r.After.PairFeatures)
	}
	if r.Names != prune.NamesDropped {
		fmt.Fprintf(w, "%sattributes of weight 0: %s\n", indent, r.Names)
	}
	for _, s := range r.Stages {
		fmt.Fprintf(w, "%sstage %q:\n", indent, s.Column)
		writePruneReport(w, indent+"  ", s.Report)
	}
}
