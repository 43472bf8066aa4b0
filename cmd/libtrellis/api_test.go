package main

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// request is a small chunking training request: attributes as names with
// values 1, one token with explicit values.
const request = `{
 "X": [[{"a": ["w=the", "bias"]}, {"a": ["w=dog", "bias", "len"], "v": [1, 1, 0.75]}, {"a": ["w=barks", "bias"]}],
       [{"a": ["w=a", "bias"]}, {"a": ["w=cat", "bias"]}, {"a": ["w=sleeps", "bias"]}]],
 "y": [["B-NP", "I-NP", "B-VP"], ["B-NP", "I-NP", "B-VP"]],
 "learner": {"type": "crf", "config": {"c2": 0.01}},
 "scheme": "iob2", "seed": 1
}`

// TestTrainTagInfo: a request trains, the handle table hands the model
// out, it tags attribute tokens (with marginals over every label summing
// to 1), and its info says it reads attributes.
func TestTrainTagInfo(t *testing.T) {
	m, err := train([]byte(request))
	if err != nil {
		t.Fatal(err)
	}
	h := models.add(m)
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
	out, err := tag(m, []byte(`{"attributes": [[{"a": ["w=the", "bias"]}, {"a": ["w=cat", "bias"]}, {"a": ["w=barks", "bias"]}]]}`), true)
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
	m, err := train([]byte(request))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, tc := range []struct {
		name string
		f    func() error
		want string
	}{
		{"not JSON", func() error { _, err := train([]byte("{")); return err }, "bad request"},
		{"unknown field", func() error { _, err := train([]byte(`{"X": [], "y": [], "c3": 1}`)); return err }, `unknown field "c3"`},
		{"ragged X y", func() error {
			_, err := train([]byte(`{"X": [[{"a": ["x"]}]], "y": [["A"], ["B"]], "learner": {"type": "crf"}}`))
			return err
		}, "sentences: 1 in X, 2 in y"},
		{"ragged tokens", func() error {
			_, err := train([]byte(`{"X": [[{"a": ["x"]}, {"a": ["y"]}]], "y": [["A"]], "learner": {"type": "crf"}}`))
			return err
		}, "train sentence 1: 2 tokens, 1 labels"},
		{"values", func() error {
			_, err := train([]byte(`{"X": [[{"a": ["x", "y"], "v": [1]}]], "y": [["A"]], "learner": {"type": "crf"}}`))
			return err
		}, "train sentence 1 token 1: 2 attribute names, 1 values"},
		{"ragged dev", func() error {
			_, err := train([]byte(`{"X": [[{"a": ["x"]}]], "y": [["A"]], "X_dev": [[{"a": ["x"]}]], "y_dev": [], "learner": {"type": "crf"}}`))
			return err
		}, "sentences: 1 in X_dev, 0 in y_dev"},
		{"bad setting", func() error {
			_, err := train([]byte(`{"X": [[{"a": ["x"]}]], "y": [["A"]], "learner": {"type": "crf", "config": {"c2": -1}}}`))
			return err
		}, "c2 must be a finite number >= 0"},
		{"several forms", func() error { _, err := tag(m, []byte(`{"tokens": [["a"]], "rows": [[["a"]]]}`), false); return err }, "not several"},
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
