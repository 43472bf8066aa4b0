package main

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/trellis"
)

// chunkSentences are two small chunking sentences, one token with
// real values.
func chunkSentences() []trellis.AttributeSentence {
	return []trellis.AttributeSentence{
		{Tokens: [][]trellis.Attribute{attrs("w=the", "bias"), {{Name: "w=dog", Value: 1}, {Name: "bias", Value: 1}, {Name: "len", Value: 0.75}}, attrs("w=barks", "bias")},
			Labels: []string{"B-NP", "I-NP", "B-VP"}},
		{Tokens: [][]trellis.Attribute{attrs("w=a", "bias"), attrs("w=cat", "bias"), attrs("w=sleeps", "bias")},
			Labels: []string{"B-NP", "I-NP", "B-VP"}},
	}
}

const settings = `{"learner": {"type": "crf", "config": {"c2": 0.01}}, "scheme": "iob2", "seed": 1}`

// TestTrainTagInfo: a request trains, the handle table hands the model
// out, it tags attribute tokens (with marginals over every label summing
// to 1), and its info says it reads attributes.
func TestTrainTagInfo(t *testing.T) {
	m, log, err := train([]byte(settings), encodeSentences(chunkSentences()), nil)
	if err != nil {
		t.Fatal(err)
	}
	h := models.add(m, log)
	defer models.remove(h)
	got, err := models.get(h)
	if err != nil || got != m {
		t.Fatalf("get(%d): %v, %v", h, got, err)
	}
	raw, err := modelInfo(m)
	if err != nil {
		t.Fatal(err)
	}
	var in info
	if err := json.Unmarshal(raw, &in); err != nil {
		t.Fatal(err)
	}
	if !in.Attributes || in.Learner != "crf" || len(in.Labels) != 3 || in.Plain {
		t.Errorf("info %s", raw)
	}
	input := []trellis.AttributeSentence{{Tokens: [][]trellis.Attribute{attrs("w=the", "bias"), attrs("w=cat", "bias"), attrs("w=barks", "bias")}}}
	out, err := tagBuffer(m, encodeSentences(input), true)
	if err != nil {
		t.Fatal(err)
	}
	var res tagResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"B-NP", "I-NP", "B-VP"}}; !reflect.DeepEqual(res.Labels, want) {
		t.Errorf("labels %q, want %q", res.Labels, want)
	}
	if len(res.Marginals) != 1 || len(res.Marginals[0]) != 3 {
		t.Fatalf("marginals %v", res.Marginals)
	}
	for i, p := range res.Marginals[0] {
		sum := 0.0
		for _, v := range p {
			sum += v
		}
		if len(p) != 3 || math.Abs(sum-1) > 1e-9 {
			t.Errorf("token %d: marginals %v", i, p)
		}
	}
	models.remove(h)
	if _, err := models.get(h); err == nil {
		t.Error("a removed handle still resolves")
	}
}

// TestErrors: bad requests are refused with messages naming the problem.
func TestErrors(t *testing.T) {
	m, _, err := train([]byte(settings), encodeSentences(chunkSentences()), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	one := encodeSentences([]trellis.AttributeSentence{{Tokens: [][]trellis.Attribute{attrs("x")}, Labels: []string{"A"}}})
	trainWith := func(settings string, sents, dev []trellis.AttributeSentence) func() error {
		return func() error {
			var devBuf []byte
			if dev != nil {
				devBuf = encodeSentences(dev)
			}
			_, _, err := train([]byte(settings), encodeSentences(sents), devBuf)
			return err
		}
	}
	crf := `{"learner": {"type": "crf"}}`
	for _, tc := range []struct {
		name string
		f    func() error
		want string
	}{
		{"not JSON", func() error { _, _, err := train([]byte("{"), one, nil); return err }, "bad request"},
		{"unknown field", func() error { _, _, err := train([]byte(`{"c3": 1}`), one, nil); return err }, `unknown field "c3"`},
		{"bad buffer", func() error { _, _, err := train([]byte(crf), one[:len(one)-1], nil); return err }, "bad sentence buffer"},
		{"ragged tokens", trainWith(crf, []trellis.AttributeSentence{{Tokens: [][]trellis.Attribute{attrs("x"), attrs("y")}, Labels: []string{"A"}}}, nil), "bad sentence buffer"},
		{"no labels", func() error {
			_, _, err := train([]byte(crf), encodeSentences([]trellis.AttributeSentence{{Tokens: [][]trellis.Attribute{attrs("x")}}}), nil)
			return err
		}, "train sentences have no labels"},
		{"empty sentence", trainWith(crf, []trellis.AttributeSentence{{Tokens: [][]trellis.Attribute{attrs("x")}, Labels: []string{"A"}}, {Tokens: [][]trellis.Attribute{}, Labels: []string{}}}, nil), "train sentence 2: no tokens"},
		{"NaN", trainWith(crf, []trellis.AttributeSentence{{Tokens: [][]trellis.Attribute{{{Name: "x", Value: math.NaN()}}}, Labels: []string{"A"}}}, nil), "not a finite number"},
		{"dev without labels", func() error {
			_, _, err := train([]byte(crf), one, encodeSentences([]trellis.AttributeSentence{{Tokens: [][]trellis.Attribute{attrs("x")}}}))
			return err
		}, "dev sentences have no labels"},
		{"negative min_count", trainWith(`{"learner": {"type": "crf"}, "min_count": -1}`, chunkSentences(), nil), "min_count must be >= 0"},
		{"bad setting", trainWith(`{"learner": {"type": "crf", "config": {"c2": -1}}}`, chunkSentences(), nil), "c2 must be a finite number >= 0"},
		{"tokens and rows", func() error { _, err := tag(m, []byte(`{"tokens": [["a"]], "rows": [[["a"]]]}`), false); return err }, "not both"},
		{"tokens to an attribute model", func() error { _, err := tag(m, []byte(`{"tokens": [["the", "dog"]]}`), false); return err }, "sentence 1:"},
		{"unknown handle", func() error { _, err := models.get(-5); return err }, "no model with handle -5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.f()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestGuard: a panic becomes an error.
func TestGuard(t *testing.T) {
	f := func() (err error) {
		defer guard(&err)
		panic("boom")
	}
	if err := f(); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("error %v", err)
	}
}
