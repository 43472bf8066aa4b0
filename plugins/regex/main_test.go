package main

import (
	"math"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/plugins/sdk"
)

func TestClasses(t *testing.T) {
	cfg := `{"column":"w","classes":{"year":"^(19|20)[0-9][0-9]$","num":"^[0-9]+$"},"offsets":[-1,0],"length":true}`
	got, err := sdk.Try(&plugin{}, cfg, []string{"w"}, [][]string{{"in"}, {"1999"}, {"x"}})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, f := range got {
		keys = append(keys, f.Key)
		if f.Key == "len" && f.Token == 1 && math.Abs(f.Value-math.Log(5)) > 1e-12 {
			t.Errorf("len of 1999 = %v, want log 5", f.Value)
		}
	}
	want := "len num[0] year[0] len num[-1] year[-1] len"
	if strings.Join(keys, " ") != want {
		t.Errorf("keys %q, want %q", strings.Join(keys, " "), want)
	}
	if _, err := sdk.Try(&plugin{}, `{"column":"w","classes":{"bad":"("}}`, []string{"w"}, nil); err == nil || !strings.HasPrefix(err.Error(), `classes: class "bad"`) {
		t.Errorf("bad regexp: %v", err)
	}
}
