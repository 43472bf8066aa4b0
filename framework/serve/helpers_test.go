package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/plugin"
	"github.com/trellis-nlp/trellis/framework/run"
	"github.com/trellis-nlp/trellis/framework/spec"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

const sampleDir = "../../specs/data/ud-ewt-sample"

// models caches the models the tests train, once per process.
var models struct {
	sync.Mutex
	root    string
	paths   map[string]string
	plugins string // folder of the built example plugins
}

func TestMain(m *testing.M) {
	root, err := os.MkdirTemp("", "trellis-serve-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	models.root, models.paths = root, map[string]string{}
	code := m.Run()
	os.RemoveAll(root)
	os.Exit(code)
}

func abs(t testing.TB, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// xposSpec is a UPOS tagger that reads the XPOS column besides the words:
// requests must carry it in "columns".
func xposSpec(t testing.TB) string {
	dir := abs(t, sampleDir)
	return fmt.Sprintf(`experiment "xpos" {
  seed = 1
}
corpus "train" {
  path   = "%s/train.conllu"
  format = "conllu"
}
corpus "test" {
  path   = "%s/test.conllu"
  format = "conllu"
}
labels {
  column = "upos"
  scheme = "none"
}
features {
  emission "w" {
    column    = "form"
    lowercase = true
  }
  emission "x" {
    column = "xpos"
  }
  suffix "suf" {
    column  = "form"
    lengths = [1, 2, 3]
  }
  transition "trans" {}
}
learner "perceptron" {
  type   = "perceptron"
  epochs = 3
}
evaluation {
  train = "train"
  test  = "test"
}
`, dir, dir)
}

// stagedSpec is a two-stage UPOS tagger: a first stage on the words and
// the XPOS column, a second stage on the words and the first stage's
// jackknifed labels ("pred"); requests carry XPOS for the first stage. (No
// document template: a request is one document, which direct tagging of
// sentences from several would not be.)
func stagedSpec(t testing.TB) string {
	dir := abs(t, sampleDir)
	return fmt.Sprintf(`experiment "staged" {
  seed = 1
}
corpus "train" {
  path   = "%s/train.conllu"
  format = "conllu"
}
corpus "test" {
  path   = "%s/test.conllu"
  format = "conllu"
}
labels {
  column = "upos"
  scheme = "none"
}
features {
  emission "w" {
    column    = "form"
    lowercase = true
  }
  emission "x" {
    column = "xpos"
  }
  emission "p" {
    column  = "pred"
    offsets = [-1, 0, 1]
  }
  transition "trans" {}
}
learner "first" {
  type   = "perceptron"
  epochs = 2
}
learner "second" {
  type   = "perceptron"
  epochs = 2
  stage {
    from   = "first"
    column = "pred"
    folds  = 3
  }
}
evaluation {
  train = "train"
  test  = "test"
}
`, dir, dir)
}

// trainedModel trains one of the test models (once per process) and
// returns its path: "ewt" (the quickstart's HMM, words only), "xpos"
// (reads XPOS too), "staged" (a second stage carrying its first stage,
// which reads XPOS), "plugins" (the plugin demo's HMM, with the gazetteer
// and regex plugins), and a pipeline's two models on the chunk sample:
// "postagger" (labels "pos", from the words) and "chunker" (an HMM that
// reads "pos").
func trainedModel(t testing.TB, name string) string {
	t.Helper()
	models.Lock()
	defer models.Unlock()
	if p, ok := models.paths[name]; ok {
		return p
	}
	var specPath, learner string
	vars := map[string]string{}
	switch name {
	case "ewt":
		specPath, learner = "../../specs/quickstart.hcl", "hmm"
	case "xpos":
		specPath, learner = filepath.Join(models.root, "xpos.hcl"), "perceptron"
		if err := os.WriteFile(specPath, []byte(xposSpec(t)), 0o644); err != nil {
			t.Fatal(err)
		}
	case "staged":
		specPath, learner = filepath.Join(models.root, "staged.hcl"), "second"
		if err := os.WriteFile(specPath, []byte(stagedSpec(t)), 0o644); err != nil {
			t.Fatal(err)
		}
	case "plugins":
		specPath, learner = "../../specs/plugin-demo.hcl", "hmm"
		vars["plugin_dir"] = pluginDir(t)
	case "postagger":
		specPath, learner = "../../cmd/trellis/testdata/tag-postagger.hcl", "perceptron"
	case "chunker":
		specPath, learner = "../../cmd/trellis/testdata/tag-pos.hcl", "hmm"
	default:
		t.Fatalf("no test model %q", name)
	}
	host := testHost()
	defer host.Close()
	templates, learners := builtin.Registries()
	host.Register(templates)
	s, diags := spec.LoadFile(specPath, vars, spec.Registries{Templates: templates, Learners: learners})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	out := filepath.Join(models.root, name)
	_, err := run.Run(context.Background(), run.Options{Spec: s, Templates: templates, OutDir: out,
		Learners: []string{learner}, Threads: 2, Log: zerolog.Nop(), Stdout: io.Discard, Command: []string{"test"}})
	if err != nil {
		t.Fatalf("training the %s model: %v", name, err)
	}
	p := filepath.Join(out, "models", learner+".model")
	models.paths[name] = p
	return p
}

// pluginDir builds the example plugins (once) and returns their folder.
// Called with models locked.
func pluginDir(t testing.TB) string {
	if models.plugins != "" {
		return models.plugins
	}
	dir := filepath.Join(models.root, "plugins")
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goTool, "build", "-o", dir+string(filepath.Separator), "../../plugins/gazetteer", "../../plugins/regex")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building plugins: %v\n%s", err, out)
	}
	models.plugins = dir
	return dir
}

func testHost() *plugin.Host { return plugin.NewHost(plugin.Options{Log: zerolog.Nop()}) }

func testTemplates(h *plugin.Host) *feature.Registry {
	templates, _ := builtin.Registries()
	h.Register(templates)
	return templates
}

func testOptions(files ...ModelFile) Options {
	return Options{Models: files, Concurrency: 3, Log: zerolog.Nop(), Templates: testTemplates, PluginHost: testHost}
}

// started is a server answering on a loopback port.
type started struct {
	*Server
	base   string // http://127.0.0.1:PORT
	addr   string
	stop   context.CancelFunc
	served chan error // Serve's result
}

// start serves opts on 127.0.0.1 with an ephemeral port until the test
// ends (or stop is called).
func start(t *testing.T, opts Options) *started {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st := &started{Server: s, base: "http://" + ln.Addr().String(), addr: ln.Addr().String(), stop: cancel, served: make(chan error, 1)}
	go func() { st.served <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-st.served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		s.Close()
	})
	return st
}

// post sends body to path and returns the status and the body.
func post(t testing.TB, client *http.Client, url, body string) (int, []byte) {
	t.Helper()
	resp, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// readSentences reads every sentence of a file in the model's format.
func readSentences(t testing.TB, m *model.Model, path string) []*corpus.Sentence {
	t.Helper()
	f, err := corpus.New(m.Format)
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r := f.NewReader(in, path, corpus.ReadOptions{})
	var out []*corpus.Sentence
	for {
		s, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
}

// reference is direct tagging, as `trellis tag` does it: a tagger of
// its own on the model file, over the sentences as read from the file.
type reference struct {
	model *model.Model
	tg    *tagger.Tagger
	host  *plugin.Host
	sents []*corpus.Sentence
}

func newReference(t testing.TB, path string) *reference {
	t.Helper()
	m, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	host := testHost()
	tg, err := tagger.New(m, testTemplates(host), tagger.Options{})
	if err != nil {
		host.Close()
		t.Fatal(err)
	}
	tg.OnClose(host.Close)
	t.Cleanup(func() { tg.Close() })
	return &reference{model: m, tg: tg, host: host, sents: readSentences(t, m, filepath.Join(sampleDir, "test.conllu"))}
}

// request builds the JSON request for sentences idx of the test file:
// their words, and the columns named in cols.
func (r *reference) request(t testing.TB, idx []int, cols []string, marginals bool, nbest int) string {
	t.Helper()
	f, _ := corpus.New(r.model.Format)
	names := f.Columns()
	word := indexOf(names, r.model.WordColumn)
	req := TagRequest{Marginals: marginals, NBest: nbest}
	if len(cols) > 0 {
		req.Columns = map[string][][]string{}
	}
	for _, k := range idx {
		s := r.sents[k]
		req.Sentences = append(req.Sentences, column(s, word))
		for _, c := range cols {
			req.Columns[c] = append(req.Columns[c], column(s, indexOf(names, c)))
		}
	}
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(req); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// expect is the answer direct tagging gives for sentences idx.
func (r *reference) expect(t testing.TB, idx []int, marginals bool, nbest int) TagResponse {
	t.Helper()
	batch := make([]*corpus.Sentence, len(idx))
	for j, k := range idx {
		batch[j] = r.sents[k]
	}
	req := &TagRequest{Marginals: marginals, NBest: max(nbest, 1)}
	var out tagged
	var err error
	if marginals || nbest > 1 {
		out.detailed, err = r.tg.TagDetailed(batch, req.NBest)
	} else {
		out.labels, err = r.tg.Tag(batch)
	}
	if err != nil {
		t.Fatal(err)
	}
	resp := response("", out, req)
	// Through JSON and back, as the client sees it.
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	var back TagResponse
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return back
}

func column(s *corpus.Sentence, c int) []string {
	out := make([]string, s.Len())
	for i := range out {
		out[i] = s.Tokens[i][c]
	}
	return out
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	panic("no column " + name)
}
