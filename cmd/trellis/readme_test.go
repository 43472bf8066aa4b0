package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

const readme = "../../README.md"

// codeBlock is one fenced block of README.md.
type codeBlock struct {
	lang string
	line int // 1-based line of the block's first content line
	text string
}

// fencedBlocks returns the fenced code blocks of a Markdown file.
func fencedBlocks(t *testing.T, path string) []codeBlock {
	t.Helper()
	var blocks []codeBlock
	var cur *codeBlock
	var body strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(readFile(t, path)))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &codeBlock{lang: strings.TrimSpace(strings.TrimPrefix(line, "```")), line: n + 1}
			body.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.text = body.String()
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line + "\n")
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: unterminated code block", path, cur.line-1)
	}
	return blocks
}

// TestReadmeSpecs parses every ```hcl block of README.md, at its place in
// the README (so an error names README.md's line), and validates each one
// that declares an experiment with `trellis validate --no-data`: a reader
// who copies the spec gets one that runs. Blocks that are parts of a spec
// (a plugin block) are checked as HCL only. With ../shared/data present,
// the experiment's corpora are read too.
func TestReadmeSpecs(t *testing.T) {
	var specs int
	for _, b := range fencedBlocks(t, readme) {
		if b.lang != "hcl" {
			continue
		}
		file, diags := hclsyntax.ParseConfig([]byte(b.text), "README.md", hcl.Pos{Line: b.line, Column: 1, Byte: 0})
		if diags.HasErrors() {
			t.Errorf("README.md: the hcl block at line %d does not parse:\n%s", b.line, diags.Error())
			continue
		}
		experiment := false
		for _, blk := range file.Body.(*hclsyntax.Body).Blocks {
			experiment = experiment || blk.Type == "experiment"
		}
		if !experiment {
			continue
		}
		specs++
		t.Run("line"+strconv.Itoa(b.line), func(t *testing.T) { validateReadmeSpec(t, b) })
	}
	if specs == 0 {
		t.Errorf("README.md has no hcl block declaring an experiment")
	}
}

// dataPath matches the corpus paths of the README's specs.
var dataPath = regexp.MustCompile(`"\$\{var\.data_dir\}/([^"]+)"`)

// validateReadmeSpec puts the spec where its data_dir default,
// "../../shared/data" relative to the spec, resolves (DIR/repo/specs/ and
// DIR/shared/data) and validates it: with the corpora read when
// ../shared/data is present (linked there), else with empty stand-ins at
// their paths and --no-data.
func validateReadmeSpec(t *testing.T, b codeBlock) {
	root := t.TempDir()
	specDir := filepath.Join(root, "repo", "specs")
	if err := os.MkdirAll(specDir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(specDir, "readme.hcl")
	if err := os.WriteFile(path, []byte(b.text), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"validate", path}
	if data, ok := sharedDataDir(); ok {
		if err := os.MkdirAll(filepath.Join(root, "shared"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(data, filepath.Join(root, "shared", "data")); err != nil {
			t.Fatal(err)
		}
	} else {
		t.Logf("../shared/data not found (set TRELLIS_DATA_DIR): the spec is validated with empty stand-ins for its corpora, --no-data")
		for _, m := range dataPath.FindAllStringSubmatch(b.text, -1) {
			p := filepath.Join(root, "shared", "data", filepath.FromSlash(m[1]))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		args = append(args, "--no-data")
	}
	code, stdout, stderr := trellis(t, "", args...)
	if code != exitOK {
		t.Fatalf("README.md:%d: the spec does not validate (exit %d):\n%s", b.line, code, stderr)
	}
	if !strings.Contains(stdout, "ok (experiment") {
		t.Errorf("validate printed %q", stdout)
	}
	t.Logf("%s", stdout)
}

// sharedDataDir returns ../shared/data (or TRELLIS_DATA_DIR) as an
// absolute path, if it is there.
func sharedDataDir() (string, bool) {
	d := os.Getenv("TRELLIS_DATA_DIR")
	if d == "" {
		d = "../../../shared/data"
	}
	d, err := filepath.Abs(d)
	if err != nil {
		return "", false
	}
	st, err := os.Stat(d)
	return d, err == nil && st.IsDir()
}
