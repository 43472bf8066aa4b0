package plugin_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/fileio"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/plugin"
	"github.com/trellis-nlp/trellis/framework/run"
	"github.com/trellis-nlp/trellis/framework/spec"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// bin holds the plugin binaries built once for all tests.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "trellis-plugins-")
	if err != nil {
		panic(err)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		bin = dir
		if err := buildPlugins(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

// goTool is the go command; go test puts its own first on PATH.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "go"
}

func buildPlugins(dir string) error {
	builds := [][]string{
		{"build", "-o", dir + string(filepath.Separator), "../../plugins/gazetteer", "../../plugins/regex", "../../plugins/wordnet",
			"./testdata/misbehave", "./testdata/oldproto", "./testdata/rawbad", "./testdata/affix"},
		{"build", "-o", filepath.Join(dir, "v2", "misbehave"), "-ldflags", "-X main.version=2.0.0", "./testdata/misbehave"},
	}
	for _, args := range builds {
		cmd := exec.Command(goTool(), args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// logBuffer is a zerolog logger writing JSON lines into a buffer.
func logBuffer() (*bytes.Buffer, zerolog.Logger) {
	var buf bytes.Buffer
	return &buf, zerolog.New(&syncWriter{w: &buf}).Level(zerolog.DebugLevel)
}

type syncWriter struct {
	mu chan struct{}
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	if s.mu == nil {
		s.mu = make(chan struct{}, 1)
	}
	s.mu <- struct{}{}
	defer func() { <-s.mu }()
	return s.w.Write(p)
}

func newHost(t testing.TB, opts plugin.Options) (*plugin.Host, *feature.Registry, spec.Registries) {
	t.Helper()
	h := plugin.NewHost(opts)
	t.Cleanup(func() { h.Close() })
	templates, learners := builtin.Registries()
	h.Register(templates)
	return h, templates, spec.Registries{Templates: templates, Learners: learners}
}

// tinyCorpus writes a small CoNLL corpus and returns its path.
func tinyCorpus(t *testing.T, dir string) string {
	t.Helper()
	words := []string{"Paris", "is", "in", "France", "and", "Berlin", "lies", "in", "Germany", "."}
	tags := []string{"B-LOC", "O", "O", "B-LOC", "O", "B-LOC", "O", "O", "B-LOC", "O"}
	var b strings.Builder
	for s := 0; s < 40; s++ {
		n := 3 + s%8
		for i := 0; i < n; i++ {
			j := (s + i) % len(words)
			fmt.Fprintf(&b, "%s %s\n", words[j], tags[j])
		}
		b.WriteString("\n")
	}
	p := filepath.Join(dir, "tiny.conll")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// tinySpec writes a spec using one plugin block (body inside features).
func tinySpec(t *testing.T, pluginBlock string) string {
	t.Helper()
	dir := t.TempDir()
	tinyCorpus(t, dir)
	src := fmt.Sprintf(`experiment "tiny" {}
corpus "train" {
  path    = "tiny.conll"
  format  = "conll"
  columns = ["word", "ner"]
}
labels {
  column = "ner"
  scheme = "iob2"
}
features {
  emission "w" {
    column = "word"
  }
%s
  transition "trans" {}
}
learner "hmm" {
  type = "hmm"
}
evaluation {
  train = "train"
  test  = "train"
}
`, pluginBlock)
	p := filepath.Join(dir, "tiny.hcl")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func misbehave(mode string, extra string) string {
	return fmt.Sprintf(`  plugin "mb" {
    binary = %q
    %s
    config {
      column = "word"
      mode   = %q
    }
  }`, filepath.Join(bin, "misbehave"), extra, mode)
}

func runSpec(t *testing.T, reg spec.Registries, specPath string, log zerolog.Logger) (string, error) {
	t.Helper()
	s, diags := spec.LoadFile(specPath, nil, reg)
	if diags.HasErrors() {
		return "", diagsError{diags}
	}
	out := filepath.Join(t.TempDir(), "run")
	_, err := run.Run(context.Background(), run.Options{Spec: s, Templates: reg.Templates, OutDir: out, Threads: 1, Log: log, Stdout: io.Discard})
	return out, err
}

type diagsError struct{ hcl.Diagnostics }

func noModels(t *testing.T, out string) {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(out, "models"))
	for _, e := range entries {
		t.Errorf("a failed run left %s in models/", e.Name())
	}
}

func TestRunWithPluginAndTagAgain(t *testing.T) {
	buf, log := logBuffer()
	_, _, reg := newHost(t, plugin.Options{Log: log})
	specPath := tinySpec(t, misbehave("print", `sha256 = "`+sha(t, filepath.Join(bin, "misbehave"))+`"`))
	out, err := runSpec(t, reg, specPath, log)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(filepath.Join(out, "models", "hmm.model"))
	if err != nil {
		t.Fatal(err)
	}
	ps := m.Plugins()
	if len(ps) != 1 || ps[0].Plugin != "misbehave" || ps[0].Version != "1.0.0" || ps[0].SHA256 != sha(t, filepath.Join(bin, "misbehave")) ||
		!strings.Contains(string(ps[0].Config), `"mode":"print"`) {
		t.Fatalf("model records plugins %+v", ps)
	}
	found := false
	for _, a := range m.Attrs {
		if strings.HasPrefix(a, "mb=w=") {
			found = true
		}
	}
	if !found {
		t.Errorf("no plugin attributes (mb=w=...) in the model")
	}
	// Logs: the plugin's warning arrives as a warning; what it printed to
	// stdout (in init and while extracting) is in the log, and the
	// handshake survived it.
	logs := buf.String()
	for _, want := range []string{`"level":"warn","plugin":"misbehave","plugin_log":"misbehave","mode":"print","message":"misbehave configured"`, "hello from init", "printed to stdout during extraction"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %s:\n%s", want, logs)
		}
	}

	// A fresh host (as `trellis tag` has) starts the plugin again and
	// tags exactly as the run did.
	_, templates2, _ := newHost(t, plugin.Options{Log: zerolog.Nop()})
	tg, err := tagger.New(m, templates2, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	var got bytes.Buffer
	f, _ := os.Open(filepath.Join(filepath.Dir(specPath), "tiny.conll"))
	defer f.Close()
	w := tg.Format.NewWriter(&got)
	if _, err := tg.Stream(context.Background(), tg.Format.NewReader(f, "tiny.conll", corpus.ReadOptions{}), w, nil, nil); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(out, "predictions", "hmm.txt"))
	if got.String() != string(want) {
		t.Errorf("tagging again differs from the run's predictions")
	}
}

func sha(t *testing.T, p string) string {
	s, err := fileio.SHA256File(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestVersionChangeRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "misbehave")
	copyFile(t, filepath.Join(bin, "misbehave"), p)
	_, _, reg := newHost(t, plugin.Options{Log: zerolog.Nop()})
	out, err := runSpec(t, reg, tinySpec(t, strings.Replace(misbehave("ok", ""), filepath.Join(bin, "misbehave"), p, 1)), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(filepath.Join(out, "models", "hmm.model"))
	if err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(bin, "v2", "misbehave"), p) // "upgrade" the plugin
	_, templates, _ := newHost(t, plugin.Options{Log: zerolog.Nop()})
	_, err = tagger.New(m, templates, tagger.Options{})
	if err == nil || !strings.Contains(err.Error(), `plugin "mb"`) || !strings.Contains(err.Error(), "version 2.0.0, but the model was trained with version 1.0.0") {
		t.Fatalf("want a version refusal, got %v", err)
	}
	_, templates, _ = newHost(t, plugin.Options{Log: zerolog.Nop(), AllowVersionChange: true})
	tg, err := tagger.New(m, templates, tagger.Options{})
	if err != nil {
		t.Fatalf("override: %v", err)
	}
	tg.Close()
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(to)
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestFailures runs each way a plugin can fail: every one must give an
// error naming the plugin and what happened, and leave no model.
func TestFailures(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "evil")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	notExec := filepath.Join(t.TempDir(), "misbehave")
	copyFile(t, filepath.Join(bin, "misbehave"), notExec)
	os.Chmod(notExec, 0o644)
	block := func(binary, extra string) string {
		return fmt.Sprintf("  plugin \"mb\" {\n    binary = %q\n    %s\n    config {\n      column = \"word\"\n    }\n  }", binary, extra)
	}
	tests := []struct {
		name, block string
		line        int // fails while decoding the spec (a plugin failure, exit 1), at this line
		want        []string
	}{
		{"missing binary", block(filepath.Join(bin, "nope"), ""), 16, []string{"not found"}},
		{"not executable", block(notExec, ""), 16, []string{"not executable"}},
		{"checksum mismatch", block(script, `sha256 = "`+strings.Repeat("ab", 32)+`"`), 17, []string{"checksum mismatch: want abab", "refusing to run it"}},
		{"protocol mismatch", block(filepath.Join(bin, "oldproto"), ""), 16, []string{"incompatible API version", "Plugin version: 99"}},
		{"crash", misbehave("crash", ""), 0, []string{"crashed during extraction", "crashing on purpose"}},
		{"hang", misbehave("hang", ""), 0, []string{"hung: no answer to extraction within 2s; killed it"}},
		{"invalid utf-8", misbehave("bad_utf8", ""), 0, []string{"protocol error", "not valid UTF-8"}},
		{"token out of range", misbehave("bad_token", ""), 0, []string{"protocol error", "wrong token index"}},
		{"non-finite value", misbehave("nan", ""), 0, []string{"protocol error", `attribute "nan" of token 0`, "has the value NaN; values must be finite"}},
		{"wrong number of tokens", block(filepath.Join(bin, "rawbad"), ""), 0, []string{"protocol error", "wrong number of tokens"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, reg := newHost(t, plugin.Options{Log: zerolog.Nop(), CallTimeout: 2 * time.Second})
			out, err := runSpec(t, reg, tinySpec(t, tc.block), zerolog.Nop())
			if err == nil {
				t.Fatal("no error")
			}
			var de diagsError
			if errors.As(err, &de) != (tc.line > 0) {
				t.Fatalf("failed while decoding: %v, want %v: %v", tc.line == 0, tc.line > 0, err)
			}
			msg := err.Error()
			if tc.line > 0 {
				ferr := plugin.Failure(de.Diagnostics)
				if ferr == nil {
					t.Fatalf("spec diagnostics not marked as a plugin failure: %v", err)
				}
				msg = ferr.Error()
				if de.Diagnostics[0].Subject == nil || de.Diagnostics[0].Subject.Start.Line != tc.line {
					t.Errorf("diagnostic not at line %d: %v", tc.line, de.Diagnostics[0].Subject)
				}
			} else {
				noModels(t, out)
			}
			if !strings.HasPrefix(msg, `plugin "mb" (`) {
				t.Errorf("error does not name the plugin: %s", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error lacks %q: %s", w, msg)
				}
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("a binary failing its checksum was run")
			}
		})
	}
}

func TestConfigDiagnostics(t *testing.T) {
	_, _, reg := newHost(t, plugin.Options{Log: zerolog.Nop()})
	tests := []struct{ config, want string }{
		{`column = "word"` + "\n      colour = 1", `tiny.hcl:19,7-13: Unsupported argument; An argument named "colour" is not expected here.`},
		{`column = "word"` + "\n      mode = \"sideways\"", `tiny.hcl:19,14-24: Invalid plugin config; plugin "mb": unknown mode "sideways"`},
		{`column = "word"` + "\n      weight = \"heavy\"", `tiny.hcl:19,16-23: Incorrect attribute value type; weight must be number`},
		{`mode = "ok"`, `tiny.hcl:17,12-12: Missing required argument; The argument "column" is required, but no definition was found. (plugin misbehave 1.0.0 declares: column (string, required)`},
		{`column = "ner"`, `plugin "mb": reads column "ner" is the label column`},
	}
	for _, tc := range tests {
		block := fmt.Sprintf("  plugin \"mb\" {\n    binary = %q\n    config {\n      %s\n    }\n  }", filepath.Join(bin, "misbehave"), tc.config)
		_, diags := spec.LoadFile(tinySpec(t, block), nil, reg)
		if !diags.HasErrors() {
			t.Errorf("%s: no error", tc.config)
			continue
		}
		if !strings.Contains(diags.Error(), tc.want) {
			t.Errorf("%s:\n got %s\nwant %s", tc.config, diags.Error(), tc.want)
		}
		if plugin.Failure(diags) != nil {
			t.Errorf("%s: a config mistake is marked as a plugin failure", tc.config)
		}
	}
}

// TestLargeBatch sends a batch far above the request budget: it is split,
// and every sentence gets its features.
func TestLargeBatch(t *testing.T) {
	h, templates, _ := newHost(t, plugin.Options{Log: zerolog.Nop()})
	_ = h
	tmpl, err := templates.Instantiate(feature.TemplateSpec{Type: "plugin", Name: "mb",
		Config: []byte(fmt.Sprintf(`{"binary":%q,"config":{"column":"word"}}`, filepath.Join(bin, "misbehave")))})
	if err != nil {
		t.Fatal(err)
	}
	x, err := tmpl.Compile("mb", feature.Columns{Names: []string{"word", "ner"}, Label: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The columns the plugin declared at Setup are what it reads.
	if got := x.(feature.ColumnReader).ReadColumns(); len(got) != 1 || got[0] != 0 {
		t.Errorf("ReadColumns() = %v, want [0] (word)", got)
	}
	word := strings.Repeat("x", 1000)
	sents := make([]*corpus.Sentence, 300)
	sinks := make([]feature.Sink, len(sents))
	counts := make([]countSink, len(sents))
	for k := range sents {
		s := &corpus.Sentence{}
		for i := 0; i < 50; i++ {
			s.Tokens = append(s.Tokens, []string{fmt.Sprintf("%s%d", word, i), "O"})
		}
		sents[k], sinks[k] = s, &counts[k]
	}
	if err := x.(feature.BatchExtractor).ExtractBatch(sents, sinks); err != nil {
		t.Fatal(err)
	}
	for k, c := range counts {
		if c.n != 50 || c.last != "mb=w="+word+"49" {
			t.Fatalf("sentence %d: %d attributes, last %.20q", k, c.n, c.last)
		}
	}
}

type countSink struct {
	n    int
	last string
}

func (c *countSink) Add(i int, key []byte, v float64) { c.n++; c.last = string(key) }

// TestShippedPluginSpecsDecode decodes the repository's plugin specs with
// the plugins built here (framework/spec's TestShippedSpecsDecode skips
// them).
func TestShippedPluginSpecsDecode(t *testing.T) {
	_, _, reg := newHost(t, plugin.Options{Log: zerolog.Nop()})
	data := t.TempDir()
	for _, p := range []string{"conll2003/eng.train", "conll2003/eng.testa"} {
		os.MkdirAll(filepath.Join(data, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(data, p), nil, 0o644)
	}
	gaz := t.TempDir()
	for _, typ := range []string{"PER", "LOC", "ORG", "MISC"} {
		os.WriteFile(filepath.Join(gaz, typ+".txt"), []byte("Some Name\n"), 0o644)
	}
	lists := t.TempDir()
	for _, name := range []string{"cities", "countries", "languages", "companies", "people", "wordnet-person", "wordnet-location", "wordnet-group"} {
		os.WriteFile(filepath.Join(lists, name+".txt"), []byte("Some Name\n"), 0o644)
	}
	dict := t.TempDir() // an empty WordNet: the files exist
	for _, p := range []string{"noun", "verb", "adj", "adv"} {
		os.WriteFile(filepath.Join(dict, "index."+p), nil, 0o644)
		os.WriteFile(filepath.Join(dict, "data."+p), nil, 0o644)
	}
	for _, tc := range []struct {
		file string
		vars map[string]string
	}{
		{"plugin-demo.hcl", map[string]string{"plugin_dir": bin}},
		{"conll2003-gazetteer.hcl", map[string]string{"plugin_dir": bin, "data_dir": data, "gazetteer_dir": gaz}},
		{"conll2003-knowledge.hcl", map[string]string{"plugin_dir": bin, "data_dir": data, "lists_dir": lists, "wordnet_dict": dict}},
	} {
		s, diags := spec.LoadFile(filepath.Join("../../specs", tc.file), tc.vars, reg)
		if diags.HasErrors() {
			t.Errorf("%s: %s", tc.file, diags.Error())
			continue
		}
		n := 0
		for _, ti := range s.Features.Templates {
			if ti.Type == plugin.TemplateType {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s: no plugin templates", tc.file)
		}
	}
}

// TestKillOnDone: cancelling the context (Ctrl-C) kills every plugin, even
// one stuck in a call.
func TestKillOnDone(t *testing.T) {
	h := plugin.NewHost(plugin.Options{Log: zerolog.Nop()})
	ctx, cancel := context.WithCancel(context.Background())
	h.KillOnDone(ctx)
	exited, err := plugin.StartForTest(h, "mb", filepath.Join(bin, "misbehave"))
	if err != nil {
		t.Fatal(err)
	}
	if exited() {
		t.Fatal("exited at once")
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for !exited() {
		if time.Now().After(deadline) {
			t.Fatal("plugin still running 5s after the context was cancelled")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := plugin.StartForTest(h, "mb", filepath.Join(bin, "misbehave")); err == nil {
		t.Error("a stopped host started a plugin")
	}
}

// BenchmarkExtractBatch measures a plugin's cost per batch of 256
// sentences of 15 tokens, 4 attributes per token (the affix test plugin).
func BenchmarkExtractBatch(b *testing.B) {
	h := plugin.NewHost(plugin.Options{Log: zerolog.Nop()})
	defer h.Close()
	templates, _ := builtin.Registries()
	h.Register(templates)
	tmpl, err := templates.Instantiate(feature.TemplateSpec{Type: "plugin", Name: "suf",
		Config: []byte(fmt.Sprintf(`{"binary":%q,"config":{"column":"word","suffix":true}}`, filepath.Join(bin, "affix")))})
	if err != nil {
		b.Fatal(err)
	}
	x, err := tmpl.Compile("suf", feature.Columns{Names: []string{"word", "ner"}, Label: 1})
	if err != nil {
		b.Fatal(err)
	}
	words := strings.Fields("EU rejects German call to boycott British lamb . Peter Blackburn BRUSSELS 1996-08-22 The European Commission said on Thursday it disagreed")
	sents := make([]*corpus.Sentence, 256)
	sinks := make([]feature.Sink, len(sents))
	for k := range sents {
		s := &corpus.Sentence{}
		for i := 0; i < 15; i++ {
			s.Tokens = append(s.Tokens, []string{words[(k+i)%len(words)] + strconv.Itoa(k%50), "O"})
		}
		sents[k], sinks[k] = s, nopSink{}
	}
	bx := x.(feature.BatchExtractor)
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		if err := bx.ExtractBatch(sents, sinks); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*256*15*4), "ns/attr")
}

type nopSink struct{}

func (nopSink) Add(int, []byte, float64) {}

type keySink struct{ keys []string }

func (k *keySink) Add(i int, key []byte, v float64) {
	k.keys = append(k.keys, fmt.Sprintf("%d:%s:%g", i, key, v))
}

// TestPrefetch: batches handed over ahead (feature.Prefetcher) or fetched
// and replayed (feature.Fetcher) get the same features as batches
// extracted cold, in any mix, also after Forget and when more batches are
// prefetched than are kept.
func TestPrefetch(t *testing.T) {
	_, templates, _ := newHost(t, plugin.Options{Log: zerolog.Nop()})
	tmpl, err := templates.Instantiate(feature.TemplateSpec{Type: "plugin", Name: "suf",
		Config: []byte(fmt.Sprintf(`{"binary":%q,"config":{"column":"word","suffix":true}}`, filepath.Join(bin, "affix")))})
	if err != nil {
		t.Fatal(err)
	}
	x, err := tmpl.Compile("suf", feature.Columns{Names: []string{"word", "ner"}, Label: 1})
	if err != nil {
		t.Fatal(err)
	}
	px := x.(feature.Prefetcher)
	var sents []*corpus.Sentence
	for k := 0; k < 40; k++ {
		s := &corpus.Sentence{}
		for i := 0; i <= k%7; i++ {
			s.Tokens = append(s.Tokens, []string{fmt.Sprintf("w%dx%d", k, i), "O"})
		}
		sents = append(sents, s)
	}
	extract := func(batch []*corpus.Sentence) []string {
		t.Helper()
		sinks := make([]feature.Sink, len(batch))
		ks := make([]keySink, len(batch))
		for k := range sinks {
			sinks[k] = &ks[k]
		}
		if err := px.ExtractBatch(batch, sinks); err != nil {
			t.Fatal(err)
		}
		var out []string
		for k := range ks {
			out = append(out, strings.Join(ks[k].keys, " "))
		}
		return out
	}
	batches := [][]*corpus.Sentence{sents[0:10], sents[10:20], sents[20:30], sents[30:40]}
	var cold [][]string
	for _, b := range batches {
		cold = append(cold, extract(b))
	}
	check := func(what string, k int, got []string) {
		t.Helper()
		if strings.Join(got, "\n") != strings.Join(cold[k], "\n") {
			t.Errorf("%s: batch %d differs from the cold extraction", what, k)
		}
	}
	// One ahead, as the run's encoding loop does.
	px.Prefetch(batches[0])
	for k, b := range batches {
		if k+1 < len(batches) {
			px.Prefetch(batches[k+1])
		}
		check("one ahead", k, extract(b))
	}
	// More prefetched than kept: the oldest are dropped, all still right.
	for _, b := range batches {
		px.Prefetch(b)
	}
	for k, b := range batches {
		check("all ahead", k, extract(b))
	}
	// Fetched and replayed sentence by sentence (the tagging path), cold
	// and prefetched.
	fx := x.(feature.Fetcher)
	for k, b := range batches {
		if k%2 == 1 {
			px.Prefetch(b)
		}
		fb, err := fx.Fetch(b)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for j := range b {
			var ks keySink
			fb.Replay(j, &ks)
			got = append(got, strings.Join(ks.keys, " "))
		}
		check("fetched", k, got)
	}
	// Forgotten, then the same slice holds other sentences.
	reused := append([]*corpus.Sentence(nil), batches[1]...)
	px.Prefetch(reused)
	px.Forget()
	copy(reused, batches[2])
	check("forgotten", 2, extract(reused))
	if cold[0][0] == "" || !strings.Contains(cold[0][0], "suf=[0]:1=0") {
		t.Errorf("unexpected features: %q", cold[0][0])
	}
}

// TestCompileMissingColumn: a plugin that reads a column the corpus lacks
// is refused with a ConfigError that carries the *feature.ColumnError
// (so the error names the column, not only the plugin).
func TestCompileMissingColumn(t *testing.T) {
	h := plugin.NewHost(plugin.Options{Log: zerolog.Nop()})
	defer h.Close()
	templates, _ := builtin.Registries()
	h.Register(templates)
	tmpl, err := templates.Instantiate(feature.TemplateSpec{Type: "plugin", Name: "suf",
		Config: []byte(fmt.Sprintf(`{"binary":%q,"config":{"column":"pos","suffix":true}}`, filepath.Join(bin, "affix")))})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tmpl.Compile("suf", feature.Columns{Names: []string{"word", "ner"}, Label: 1})
	var ce *feature.ColumnError
	var cfg *plugin.ConfigError
	if !errors.As(err, &cfg) || !errors.As(err, &ce) || ce.Column != "pos" {
		t.Fatalf("error %v (%T): want a ConfigError wrapping the ColumnError of \"pos\"", err, err)
	}
	if !strings.Contains(err.Error(), `reads unknown column "pos"`) {
		t.Errorf("message %q", err)
	}
}
