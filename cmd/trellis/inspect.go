package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"text/tabwriter"

	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/plural"
	"github.com/trellis-nlp/trellis/framework/pretrained"
)

// inspection is what `trellis inspect` reports, also as JSON.
type inspection struct {
	File           string           `json:"file"`
	Bytes          int64            `json:"bytes"`
	Learner        model.Learner    `json:"learner"`
	Provenance     model.Provenance `json:"provenance"`
	Scheme         string           `json:"scheme"`
	OutputScheme   string           `json:"output_scheme,omitempty"`
	Labels         []string         `json:"labels"`
	Attributes     int              `json:"attributes"`
	Features       int              `json:"features"`
	ActiveFeatures int              `json:"active_features"`
	Transitions    bool             `json:"transitions"`
	// PairFeatures counts the input-conditioned transitions (templates
	// with labels = "bigram").
	PairFeatures int `json:"pair_features,omitempty"`
	// Trigrams counts a second-order model's label trigrams (transition
	// order = 2).
	Trigrams      int    `json:"trigrams,omitempty"`
	Normalization string `json:"normalization,omitempty"`
	// Stages are the first stages a second-stage model carries.
	Stages []model.Stage `json:"stages,omitempty"`
	// States name a latent model's hidden states ("B-NP#0"), which the
	// top features and transitions are listed by; empty otherwise.
	States      []string                  `json:"states,omitempty"`
	TopFeatures map[string][]weightedAttr `json:"top_features"`
	Trans       [][]float64               `json:"transitions_matrix,omitempty"`
	Start       []float64                 `json:"start,omitempty"`
	Stop        []float64                 `json:"stop,omitempty"`
}

type weightedAttr struct {
	Attribute string  `json:"attribute"`
	Weight    float64 `json:"weight"`
}

func inspectCommand() command {
	return command{
		Name:        "inspect",
		Usage:       []string{"MODEL [--top N] [--json]"},
		Summary:     "show a model's top features per label, transitions and statistics",
		Description: "Prints what MODEL was trained on and with (experiment, seed, trellis version, labels, scheme, templates), its size, the N heaviest features of every label and the transition matrix.",
		Run:         func(a *app, _ context.Context, args []string) error { return a.cmdInspect(args) },
	}
}

func (a *app) cmdInspect(args []string) error {
	fs := newFlagSet("inspect", a.stderr)
	top := fs.Int("top", 10, "`N` features to list per label")
	asJSON := fs.Bool("json", false, "print the inspection as JSON")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("inspect takes one model file")
	}
	if *top < 0 {
		return usagef("--top must be >= 0")
	}
	data, err := pretrained.ReadFile(pos[0]) // a file, or a shipped model's name
	if err != nil {
		return err
	}
	m, err := model.Decode(data)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	in := inspect(m, *top)
	in.File, in.Bytes = pos[0], int64(len(data))
	if *asJSON {
		b, err := json.MarshalIndent(in, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.stdout, "%s\n", b)
		return err
	}
	return writeInspection(a, in, *top)
}

func inspect(m *model.Model, top int) *inspection {
	lm := m.Linear
	l := lm.NumLabels
	in := &inspection{
		Learner: m.Learner, Provenance: m.Provenance, Scheme: m.Scheme, OutputScheme: m.OutputScheme, Labels: m.Labels,
		Attributes: lm.NumAttrs(), Features: lm.NumFeatures(), Transitions: lm.Transitions, PairFeatures: lm.NumPairs(), Trigrams: lm.NumTrigrams(),
		Normalization: m.Normalization, TopFeatures: map[string][]weightedAttr{}, Stages: m.Stages,
	}
	if lm.States() > 1 {
		for s := 0; s < l; s++ {
			in.States = append(in.States, m.StateName(s))
		}
	}
	perLabel := make([][]weightedAttr, l)
	for a := 0; a < lm.NumAttrs(); a++ {
		for f := lm.FeatOff[a]; f < lm.FeatOff[a+1]; f++ {
			w := lm.W[f]
			if w == 0 {
				continue
			}
			in.ActiveFeatures++
			y := lm.FeatLabel[f]
			perLabel[y] = append(perLabel[y], weightedAttr{m.Attrs[a], w})
		}
	}
	for y, list := range perLabel {
		// Largest weight first; ties by name so the listing is stable.
		sort.Slice(list, func(i, j int) bool {
			if list[i].Weight != list[j].Weight {
				return list[i].Weight > list[j].Weight
			}
			return list[i].Attribute < list[j].Attribute
		})
		if len(list) > top {
			list = list[:top]
		}
		in.TopFeatures[m.StateName(y)] = list
	}
	if lm.Transitions {
		tr := lm.Trans()
		for p := 0; p < l; p++ {
			in.Trans = append(in.Trans, append([]float64(nil), tr[p*l:(p+1)*l]...))
		}
		in.Start = append([]float64(nil), lm.Start()...)
		in.Stop = append([]float64(nil), lm.Stop()...)
	}
	return in
}

func writeInspection(a *app, in *inspection, top int) error {
	w := a.stdout
	fmt.Fprintf(w, "model:        %s (%.2f MB)\n", in.File, float64(in.Bytes)/(1<<20))
	fmt.Fprintf(w, "learner:      %s (type %s)\n", in.Learner.Name, in.Learner.Type)
	pruned := ""
	if in.Provenance.Pruned {
		pruned = "; pruned (trellis prune)"
	}
	fmt.Fprintf(w, "experiment:   %s, seed %d, trellis %s%s\n", in.Provenance.Experiment, in.Provenance.Seed, in.Provenance.Trellis, pruned)
	if in.OutputScheme != "" {
		fmt.Fprintf(w, "labels:       %d (trained in %s; predictions converted to %s)\n", len(in.Labels), in.Scheme, in.OutputScheme)
	} else {
		fmt.Fprintf(w, "labels:       %d (scheme %s)\n", len(in.Labels), in.Scheme)
	}
	fmt.Fprintf(w, "attributes:   %d\n", in.Attributes)
	fmt.Fprintf(w, "features:     %d (%d with a non-zero weight)\n", in.Features, in.ActiveFeatures)
	fmt.Fprintf(w, "transitions:  %v\n", in.Transitions)
	if in.Trigrams > 0 {
		fmt.Fprintf(w, "trigrams:     %d (second order: the label trigrams the model scores)\n", in.Trigrams)
	}
	if in.PairFeatures > 0 {
		fmt.Fprintf(w, "pair features: %d (input-conditioned transitions: attributes × label bigrams)\n", in.PairFeatures)
	}
	if in.Normalization != "" {
		fmt.Fprintf(w, "normalization: %s (scores are log P(y_i | y_i-1, x): sequence scores are log probabilities)\n", in.Normalization)
	}
	for _, st := range in.Stages {
		if st.Fed() {
			fmt.Fprintf(w, "stage:        column %q from model %s (learner %s, type %s), carried in the file (%.2f MB, sha256 %s); run on every sentence, no jackknifing\n",
				st.Column, st.Model, st.Learner, st.Type, float64(st.Bytes)/(1<<20), st.SHA256)
			continue
		}
		fmt.Fprintf(w, "stage:        column %q from learner %s (type %s), carried in the file (%.2f MB, sha256 %s); trained on %d jackknifing folds by %s, seed %d\n",
			st.Column, st.Learner, st.Type, float64(st.Bytes)/(1<<20), st.SHA256, st.Folds, st.By, st.Seed)
	}
	names, per := in.Labels, "label"
	if in.States != nil {
		names, per = in.States, "hidden state"
		fmt.Fprintf(w, "hidden states: %d per label\n", len(in.States)/len(in.Labels))
	}
	if top > 0 {
		fmt.Fprintf(w, "\ntop %s per %s:\n", plural.Count(top, "feature"), per)
		for _, y := range names {
			fmt.Fprintf(w, "  %s\n", y)
			for _, f := range in.TopFeatures[y] {
				fmt.Fprintf(w, "    %10.4f  %s\n", f.Weight, f.Attribute)
			}
		}
	}
	if in.Trans != nil {
		fmt.Fprintf(w, "\ntransition weights (row: previous %s, column: next %s):\n", per, per)
		tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "\t")
		for _, y := range names {
			fmt.Fprintf(tw, "%s\t", y)
		}
		fmt.Fprint(tw, "\n")
		row := func(name string, v []float64) {
			fmt.Fprintf(tw, "%s\t", name)
			for _, x := range v {
				if math.IsInf(x, -1) {
					fmt.Fprint(tw, "-inf\t")
				} else {
					fmt.Fprintf(tw, "%.3f\t", x)
				}
			}
			fmt.Fprint(tw, "\n")
		}
		row("<start>", in.Start)
		for p, y := range names {
			row(y, in.Trans[p])
		}
		row("<stop>", in.Stop)
		return tw.Flush()
	}
	return nil
}
