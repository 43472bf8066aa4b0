package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/fileio"
)

// buildPlugins builds the example plugins into a temporary folder.
func buildPlugins(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	goTool, err := exec.LookPath("go") // go test puts its own go first on PATH
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goTool, "build", "-o", dir+string(filepath.Separator), "../../plugins/gazetteer", "../../plugins/regex")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building plugins: %v\n%s", err, out)
	}
	return dir
}

func TestPluginsOnPath(t *testing.T) {
	dir := buildPlugins(t)
	// Something on the path that is not a plugin is listed as such.
	if err := os.WriteFile(filepath.Join(dir, "notaplugin"), []byte("#!/bin/sh\necho hello\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	stdout, _ := mustRun(t, "", "plugins", "--path", dir)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "PLUGIN") {
		t.Fatalf("want a header and 3 rows, got:\n%s", stdout)
	}
	for i, want := range []string{"gazetteer", "?", "regex"} {
		if f := strings.Fields(lines[i+1]); f[0] != want {
			t.Errorf("row %d: %q, want plugin %s", i+1, lines[i+1], want)
		}
	}
	sum, err := fileio.SHA256File(filepath.Join(dir, "gazetteer"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(lines[1], "1.0.0") || !strings.Contains(lines[1], sum) {
		t.Errorf("gazetteer row lacks version or checksum %s: %s", sum, lines[1])
	}
	if !strings.Contains(lines[2], "not a trellis plugin") {
		t.Errorf("non-plugin row: %s", lines[2])
	}

	// The plugin path can come from TRELLIS_PLUGIN_PATH too.
	t.Setenv(envPluginPath, dir)
	stdout, _ = mustRun(t, "", "plugins", "--json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil || len(rows) != 3 {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	if rows[0]["name"] != "gazetteer" || rows[0]["sha256"] != sum {
		t.Errorf("--json row: %v", rows[0])
	}
}

func TestPluginsOfSpec(t *testing.T) {
	dir := buildPlugins(t)
	stdout, _ := mustRun(t, "", "plugins", "../../specs/plugin-demo.hcl", "--var", "plugin_dir="+dir)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "BLOCK") {
		t.Fatalf("want a header and 2 rows, got:\n%s", stdout)
	}
	if f := strings.Fields(lines[1]); f[0] != "gaz" || f[1] != "gazetteer" || f[2] != "1.0.0" {
		t.Errorf("row 1: %s", lines[1])
	}
	if f := strings.Fields(lines[2]); f[0] != "re" || f[1] != "regex" {
		t.Errorf("row 2: %s", lines[2])
	}

	// A missing plugin is a failure of the plugin, exit code 1, named.
	code, _, stderr := trellis(t, "", "plugins", "../../specs/plugin-demo.hcl", "--var", "plugin_dir="+t.TempDir())
	if code != exitFailure || !strings.Contains(stderr, `plugin "gaz"`) || !strings.Contains(stderr, "not found") {
		t.Errorf("missing plugin: exit %d, stderr:\n%s", code, stderr)
	}
}

// requirePluginsWired fails the test unless validate knows the plugin
// template type, i.e. the plugin host is wired into loadSpec and
// loadTagger. It fails rather than skips: the host is wired, and a
// skipped end-to-end test would hide its coming unwired.
func requirePluginsWired(t *testing.T, pluginDir string) {
	t.Helper()
	code, _, stderr := trellis(t, "", "validate", "../../specs/plugin-demo.hcl", "--var", "plugin_dir="+pluginDir)
	if code != exitOK || strings.Contains(stderr, "Unsupported block type") {
		t.Fatalf("the plugin host is not wired into cmd/trellis (loadSpec, loadTagger): validate exited %d, stderr:\n%s", code, stderr)
	}
}

// TestRunWithPlugins runs and tags with plugins end to end, and checks
// that a plugin failing in any way is exit code 1 with an error naming
// the plugin, and leaves no model.
func TestRunWithPlugins(t *testing.T) {
	dir := buildPlugins(t)
	goTool, _ := exec.LookPath("go")
	if out, err := exec.Command(goTool, "build", "-o", dir+string(filepath.Separator), "../../framework/plugin/testdata/misbehave").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	requirePluginsWired(t, dir)
	out := t.TempDir()
	mustRun(t, "", "run", "../../specs/plugin-demo.hcl", "--var", "plugin_dir="+dir, "--learner", "hmm", "--out", out)
	var manifest struct {
		Plugins map[string]struct{ Plugin, Version, SHA256 string }
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(out, "manifest.json")), &manifest); err != nil {
		t.Fatal(err)
	}
	if sum, _ := fileio.SHA256File(filepath.Join(dir, "gazetteer")); manifest.Plugins["gaz"].Plugin != "gazetteer" || manifest.Plugins["gaz"].SHA256 != sum || manifest.Plugins["re"].Version != "1.0.0" {
		t.Errorf("manifest records plugins %+v", manifest.Plugins)
	}
	tagged, _ := mustRun(t, "", "tag", "--model", filepath.Join(out, "models", "hmm.model"), "../../specs/data/ud-ewt-sample/test.conllu")
	pred := string(readFile(t, filepath.Join(out, "predictions", "hmm.txt")))
	if tagged != pred {
		t.Errorf("trellis tag with the plugins differs from the run's predictions")
	}
	// The plugins declared that they read "form" only: the model tags
	// plain text, with the labels it gives the CoNLL-U file.
	words, labels := taggedColumns(tagged, 1)
	plain, _ := mustRun(t, asText(words), "tag", "--model", filepath.Join(out, "models", "hmm.model"), "--input", "text", "--tokenizer", "lines")
	if ptoks, plabels := parseTSV(t, plain); !reflect.DeepEqual(ptoks, words) || !reflect.DeepEqual(plabels, labels) {
		t.Errorf("plain-text tagging with the plugins differs from tagging the CoNLL-U file")
	}

	// Failures: exit code 1, the plugin named, no model.
	src := string(readFile(t, "../../specs/quickstart.hcl"))
	for _, tc := range []struct{ name, block, want string }{
		{"missing", `plugin "mb" { binary = "` + filepath.Join(dir, "nope") + `" }`, "not found"},
		{"exit", `plugin "mb" {
    binary = "` + filepath.Join(dir, "misbehave") + `"
    config {
      column = "form"
      mode   = "exit"
      after  = 100
    }
  }`, "crashed during extraction"},
	} {
		specDir := t.TempDir()
		s := strings.Replace(src, `transition "trans" {}`, tc.block+"\n  transition \"trans\" {}", 1)
		s = strings.Replace(s, `default     = "data/ud-ewt-sample"`, `default     = "`+mustAbs(t, "../../specs/data/ud-ewt-sample")+`"`, 1)
		specPath := filepath.Join(specDir, "spec.hcl")
		if err := os.WriteFile(specPath, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		runDir := filepath.Join(specDir, "run")
		code, _, stderr := trellis(t, "", "run", specPath, "--learner", "hmm", "--out", runDir)
		if code != exitFailure || !strings.Contains(stderr, `plugin "mb"`) || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr:\n%s", tc.name, code, stderr)
		}
		if entries, _ := os.ReadDir(filepath.Join(runDir, "models")); len(entries) > 0 {
			t.Errorf("%s: a failed run left a model", tc.name)
		}
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
