package main

import (
	"fmt"
	"html"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/agext/levenshtein"
)

// The documentation's link check. TestLinks scans README.md, docs/*.md and
// every README.md under plugins/, cmd/ and builtin/: every relative link
// must name a file or folder of the repository, every #anchor (in the same
// file or in another .md file) must be the GitHub slug of one of that
// file's headings, and every http(s) link must be a well-formed URL (links
// are not fetched: the tests run without a network). README.md and each
// file of docs/ must not have two headings of the same name. Fenced code
// blocks, inline code and HTML comments are not Markdown and are skipped.

// linkDocs returns the Markdown files the link check scans, relative to
// the repository root.
func linkDocs(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		files = append(files, "docs/"+filepath.Base(d))
	}
	for _, dir := range []string{"plugins", "cmd", "builtin"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != filepath.Join(root, dir) &&
				(strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || d.Name() == "testdata") {
				return filepath.SkipDir // what the go command ignores: build output, fixtures
			}
			if !d.IsDir() && d.Name() == "README.md" {
				rel, err := filepath.Rel(root, p)
				if err != nil {
					return err
				}
				files = append(files, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// TestLinks is the documentation's link check (see above), run by CI with
// the other tests.
func TestLinks(t *testing.T) {
	root := "../.."
	files := linkDocs(t, root)
	if len(files) < 5 {
		t.Fatalf("the link check found only %v", files)
	}
	c := newLinkChecker(root)
	for _, f := range files {
		for _, p := range c.check(f) {
			t.Error(p)
		}
		if f == "README.md" || strings.HasPrefix(f, "docs/") {
			for _, p := range c.duplicateHeadings(f) {
				t.Error(p)
			}
		}
	}
	t.Logf("checked %d links in %d files", c.links, len(files))
}

// TestLinkCheckerFindsBrokenLinks runs the checker on a fixture with a
// broken link of every kind it knows, and with the links that must pass.
func TestLinkCheckerFindsBrokenLinks(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("README.md", "# Top\n"+
		"\n"+
		"## Install\n"+ // line 3
		"\n"+
		"See [install](#install), [usage](#usage-1), [the second one](#usage-2) and [the guide](docs/guide.md#speed-the-lattice-kernel).\n"+ // line 5: fine
		"A [gone](#instal) anchor and a [missing file](docs/nothere.md).\n"+ // line 6: two broken
		"The guide's [renamed heading](docs/guide.md#speed-the-lattice-kernel-issue-15).\n"+ // line 7: broken
		"[Web](https://example.com/a?b=c#d), [bad web](http://), [spaced](<https://exa mple.com>), <https://example.org/x>.\n"+ // line 8: two broken
		"A [folder](docs/), [code](main.go#L3), [code anchor](main.go#main) and [outside](../elsewhere.md).\n"+ // line 9: two broken
		"`[not a link](nowhere.md)` and [a link\nover two lines](#nope).\n"+ // lines 10-11: broken, reported at line 10
		"\n"+
		"```md\n"+
		"[in a fence](nowhere.md)\n"+
		"## Install\n"+
		"```\n"+
		"\n"+
		"<!-- [commented](nowhere.md) -->\n"+
		"## Usage\n"+
		"## Usage\n"+
		"## Usage\n"+
		"[ref]: docs/missing.md\n"+ // line 22: broken
		"[empty]()\n") // line 23: broken
	write("docs/guide.md", "# Guide\n\n## Speed: the lattice kernel\n\n## Speed: the lattice kernel (`kernel.go`)\n")
	write("main.go", "package main\n")

	c := newLinkChecker(root)
	got := c.check("README.md")
	want := []string{
		`README.md:6: link "#instal": README.md has no heading with the anchor #instal (did you mean #install?)`,
		`README.md:6: link "docs/nothere.md": docs/nothere.md does not exist`,
		`README.md:7: link "docs/guide.md#speed-the-lattice-kernel-issue-15": docs/guide.md has no heading with the anchor #speed-the-lattice-kernel-issue-15 (did you mean #speed-the-lattice-kernel?)`,
		`README.md:8: link "http://": not a well-formed URL: no host`,
		`README.md:8: link "https://exa mple.com": not a well-formed URL`,
		`README.md:9: link "main.go#main": only line anchors (#L12, #L12-L20) can point into main.go, which is not Markdown`,
		`README.md:9: link "../elsewhere.md": points outside the repository`,
		`README.md:10: link "#nope": README.md has no heading with the anchor #nope`,
		`README.md:22: link "docs/missing.md": docs/missing.md does not exist`,
		`README.md:23: empty link target`,
	}
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		// The URL parser's own words follow the colon; compare up to it.
		if g != w && !(strings.Contains(w, "not a well-formed URL") && strings.HasPrefix(g, w)) {
			t.Errorf("problem %d:\n got %s\nwant %s", i+1, g, w)
		}
	}
	if dups := c.duplicateHeadings("README.md"); len(dups) != 1 || !strings.Contains(dups[0], `"Usage" at lines 19, 20 and 21`) {
		t.Errorf("duplicate headings: %q", dups)
	}
	if dups := c.duplicateHeadings("docs/guide.md"); len(dups) != 0 {
		t.Errorf("docs/guide.md: headings of different names reported as duplicates: %q", dups)
	}
}

func TestLinkSlugs(t *testing.T) {
	for _, tc := range []struct{ heading, slug string }{
		{"Plugins: feature extractors as separate programs", "plugins-feature-extractors-as-separate-programs"},
		{"Why this label? `trellis explain`", "why-this-label-trellis-explain"},
		{"Python: `trellis.CRF`, shaped like sklearn-crfsuite", "python-trelliscrf-shaped-like-sklearn-crfsuite"},
		{"Warm start (issue 15): SGD epochs before L-BFGS", "warm-start-issue-15-sgd-epochs-before-l-bfgs"},
		{"trellis — how the engine is built", "trellis--how-the-engine-is-built"},
		{"Speed against the machine's limit", "speed-against-the-machines-limit"},
		{"Getting the data: [CoNLL](https://example.com) & *UD*", "getting-the-data-conll--ud"},
		{"snake_case and Ünïcode 2005", "snake_case-and-ünïcode-2005"},
		{"Closing hashes ##", "closing-hashes"},
		{"Escapes \\& entities &amp; <em>tags</em>", "escapes--entities--tags"},
	} {
		if got := linkSlug(headingText(tc.heading)); got != tc.slug {
			t.Errorf("slug of %q = %q, want %q", tc.heading, got, tc.slug)
		}
	}
}

// linkChecker checks the links of Markdown files of one repository; it
// parses each file once.
type linkChecker struct {
	root  string
	docs  map[string]*linkDoc // by slash path relative to root
	links int                 // links checked
}

func newLinkChecker(root string) *linkChecker {
	return &linkChecker{root: root, docs: map[string]*linkDoc{}}
}

// linkDoc is what the checker keeps of a Markdown file.
type linkDoc struct {
	headings []linkHeading
	anchors  map[string]bool
	links    []linkRef
	err      error
}

type linkHeading struct {
	text, slug string
	line       int
}

type linkRef struct {
	target string
	line   int
}

// doc parses the file at the slash path name (relative to the root).
func (c *linkChecker) doc(name string) *linkDoc {
	if d, ok := c.docs[name]; ok {
		return d
	}
	src, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(name)))
	d := &linkDoc{err: err, anchors: map[string]bool{}}
	if err == nil {
		parseLinkDoc(d, string(src))
	}
	c.docs[name] = d
	return d
}

// check returns the broken links of the file name, "file:line: ..." each,
// in the order of the file.
func (c *linkChecker) check(name string) []string {
	d := c.doc(name)
	if d.err != nil {
		return []string{d.err.Error()}
	}
	var problems []string
	for _, l := range d.links {
		c.links++
		if msg := c.checkTarget(name, l.target); msg != "" {
			problems = append(problems, fmt.Sprintf("%s:%d: %s", name, l.line, msg))
		}
	}
	return problems
}

var (
	linkScheme   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
	linkLineAnch = regexp.MustCompile(`^L[0-9]+(-L[0-9]+)?$`)
	linkHost     = regexp.MustCompile(`^([A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?\.)*[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?$`)
)

// checkTarget returns what is wrong with one link target of file name, or
// "".
func (c *linkChecker) checkTarget(name, target string) string {
	if target == "" {
		return "empty link target"
	}
	bad := func(format string, args ...any) string {
		return fmt.Sprintf("link %q: ", target) + fmt.Sprintf(format, args...)
	}
	if strings.HasPrefix(target, "//") {
		return bad("a scheme-relative URL: write https://")
	}
	if linkScheme.MatchString(target) {
		scheme := strings.ToLower(target[:strings.IndexByte(target, ':')])
		switch scheme {
		case "http", "https":
			u, err := url.Parse(target)
			switch {
			case err != nil:
				return bad("not a well-formed URL: %v", err)
			case strings.ContainsAny(target, " \t\n"):
				return bad("not a well-formed URL: it contains white space")
			case u.Host == "":
				return bad("not a well-formed URL: no host")
			case !linkHost.MatchString(u.Hostname()) && !strings.HasPrefix(u.Host, "["):
				return bad("not a well-formed URL: host %q", u.Hostname())
			}
			return ""
		case "mailto":
			if !strings.Contains(target, "@") {
				return bad("not a mail address")
			}
			return ""
		}
		return bad("scheme %s: only http, https and mailto links are allowed, or a path in the repository", scheme)
	}

	file, anchor, hasAnchor := strings.Cut(target, "#")
	file, _, _ = strings.Cut(file, "?") // ?plain=1 and the like
	p, err := url.PathUnescape(file)
	if err != nil {
		return bad("malformed path: %v", err)
	}
	if anchor, err = url.PathUnescape(anchor); err != nil {
		return bad("malformed anchor: %v", err)
	}
	dest := name
	switch {
	case p == "":
	case strings.HasPrefix(p, "/"): // GitHub resolves these from the repository's root
		dest = path.Clean(strings.TrimPrefix(p, "/"))
	default:
		dest = path.Join(path.Dir(name), p)
	}
	if dest == ".." || strings.HasPrefix(dest, "../") {
		return bad("points outside the repository")
	}
	st, err := os.Stat(filepath.Join(c.root, filepath.FromSlash(dest)))
	if err != nil {
		return bad("%s does not exist", dest)
	}
	if !hasAnchor {
		return ""
	}
	md := dest
	if st.IsDir() {
		md = path.Join(dest, "README.md") // what GitHub shows of a folder
		if _, err := os.Stat(filepath.Join(c.root, filepath.FromSlash(md))); err != nil {
			return bad("an anchor into the folder %s, which has no README.md", dest)
		}
	}
	if !strings.HasSuffix(strings.ToLower(md), ".md") {
		if linkLineAnch.MatchString(anchor) {
			return ""
		}
		return bad("only line anchors (#L12, #L12-L20) can point into %s, which is not Markdown", dest)
	}
	d := c.doc(md)
	if d.err != nil {
		return bad("%v", d.err)
	}
	if anchor == "" || d.anchors[anchor] {
		return ""
	}
	msg := bad("%s has no heading with the anchor #%s", md, anchor)
	if s := closestAnchor(d, anchor); s != "" {
		msg += " (did you mean #" + s + "?)"
	}
	return msg
}

// closestAnchor returns the anchor of d that a most likely meant: one
// that a heading's rename lengthened or shortened by words at its end
// (the longest), else the nearest by edit distance if it is near enough.
func closestAnchor(d *linkDoc, a string) string {
	var names []string
	for s := range d.anchors {
		names = append(names, s)
	}
	sort.Strings(names)
	best, bestDist := "", 0
	for _, s := range names {
		if (strings.HasPrefix(s, a+"-") || strings.HasPrefix(a, s+"-")) && len(s) > len(best) {
			best = s
		}
	}
	if best != "" {
		return best
	}
	for _, s := range names {
		if dist := levenshtein.Distance(a, s, nil); best == "" || dist < bestDist {
			best, bestDist = s, dist
		}
	}
	if best == "" || bestDist > max(len(a), len(best))/3 {
		return ""
	}
	return best
}

// duplicateHeadings reports headings of the file name that share their
// text with another heading of the file: their anchors differ only by a
// number, which a reader (and a link's author) cannot tell apart.
func (c *linkChecker) duplicateHeadings(name string) []string {
	d := c.doc(name)
	lines := map[string][]int{}
	var order []string
	for _, h := range d.headings {
		key := strings.ToLower(h.text)
		if lines[key] == nil {
			order = append(order, h.text)
		}
		lines[key] = append(lines[key], h.line)
	}
	var problems []string
	for _, text := range order {
		ls := lines[strings.ToLower(text)]
		if len(ls) < 2 {
			continue
		}
		nums := make([]string, len(ls))
		for i, l := range ls {
			nums[i] = fmt.Sprint(l)
		}
		list := strings.Join(nums[:len(nums)-1], ", ") + " and " + nums[len(nums)-1]
		problems = append(problems, fmt.Sprintf("%s:%d: %d headings %q at lines %s: give each its own name", name, ls[1], len(ls), text, list))
	}
	return problems
}

var (
	linkFence   = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	linkATX     = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+|$)(.*)$`)
	linkSetext  = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	linkRefDef  = regexp.MustCompile(`^ {0,3}\[([^\]]+)\]:[ \t]*<?([^\s>]*)>?`)
	linkAuto    = regexp.MustCompile(`<((?:https?|mailto):[^<>\s]*)>`)
	linkHTMLID  = regexp.MustCompile(`<a\s[^>]*\b(?:name|id)="([^"]+)"`)
	linkComment = regexp.MustCompile(`(?s)<!--.*?-->`)
)

// parseLinkDoc fills d from the Markdown source: headings (and their
// anchors, numbered as GitHub numbers repeats) and link targets with their
// lines.
func parseLinkDoc(d *linkDoc, src string) {
	// Blank out what is not Markdown text, keeping the line breaks (and
	// so the line numbers): HTML comments, fenced code blocks.
	src = linkComment.ReplaceAllStringFunc(src, blankKeepingLines)
	lines := strings.Split(src, "\n")
	var fence string
	for i, line := range lines {
		if fence != "" {
			if t := strings.TrimSpace(line); strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			lines[i] = ""
			continue
		}
		if m := linkFence.FindStringSubmatch(line); m != nil {
			fence = m[1]
			lines[i] = ""
		}
	}

	seen := map[string]int{}
	addHeading := func(text string, line int) {
		text = headingText(text)
		base := linkSlug(text)
		slug := base
		if n, ok := seen[base]; ok {
			for {
				n++
				slug = fmt.Sprintf("%s-%d", base, n)
				if _, taken := seen[slug]; !taken {
					break
				}
			}
			seen[base] = n
		}
		seen[slug] = 0
		d.headings = append(d.headings, linkHeading{text: text, slug: slug, line: line})
		d.anchors[slug] = true
	}
	for i, line := range lines {
		if m := linkATX.FindStringSubmatch(line); m != nil {
			addHeading(m[2], i+1)
			continue
		}
		if i > 0 && linkSetext.MatchString(line) && paragraphLine(lines[i-1]) {
			addHeading(lines[i-1], i) // one-line setext headings; the docs have none
		}
	}

	text := strings.Join(lines, "\n")
	for _, m := range linkHTMLID.FindAllStringSubmatch(text, -1) {
		d.anchors[m[1]] = true
	}
	text = blankCodeSpans(text)
	lineAt := func(off int) int { return strings.Count(text[:off], "\n") + 1 }
	for _, m := range linkAuto.FindAllStringSubmatchIndex(text, -1) {
		if strings.HasSuffix(strings.TrimRight(text[:m[0]], " \t\n"), "(") {
			continue // the destination of an inline link, read below
		}
		d.links = append(d.links, linkRef{target: text[m[2]:m[3]], line: lineAt(m[0])})
	}
	for off := 0; ; {
		k := strings.Index(text[off:], "](")
		if k < 0 {
			break
		}
		start := off + k
		off = start + 2
		if start > 0 && text[start-1] == '\\' {
			continue
		}
		open := linkTextStart(text, start)
		if open < 0 {
			continue // a "](" that closes no link text
		}
		if target, ok := linkDestination(text[off:]); ok {
			d.links = append(d.links, linkRef{target: target, line: lineAt(open)})
		}
	}
	for i, line := range strings.Split(text, "\n") {
		if m := linkRefDef.FindStringSubmatch(line); m != nil {
			d.links = append(d.links, linkRef{target: m[2], line: i + 1})
		}
	}
	sort.SliceStable(d.links, func(i, j int) bool { return d.links[i].line < d.links[j].line })
}

// linkTextStart returns the index of the '[' that opens the link text
// closed by the ']' at end, or -1 if there is none in its paragraph.
func linkTextStart(s string, end int) int {
	depth := 0
	for i := end - 1; i >= 0; i-- {
		switch {
		case s[i] == '\n' && i > 0 && s[i-1] == '\n':
			return -1
		case i > 0 && s[i-1] == '\\':
			// an escaped bracket is text
		case s[i] == ']':
			depth++
		case s[i] == '[' && depth == 0:
			return i
		case s[i] == '[':
			depth--
		}
	}
	return -1
}

// linkDestination reads a link's destination and optional title from s,
// which follows "](", up to the closing parenthesis.
func linkDestination(s string) (string, bool) {
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
			i++
		}
	}
	skip()
	var target string
	if i < len(s) && s[i] == '<' {
		end := strings.IndexAny(s[i:], ">\n")
		if end < 0 || s[i+end] != '>' {
			return "", false
		}
		target, i = s[i+1:i+end], i+end+1
	} else {
		depth, start := 0, i
		for ; i < len(s); i++ {
			c := s[i]
			if c == '\\' && i+1 < len(s) {
				i++
				continue
			}
			if c == ' ' || c == '\t' || c == '\n' || (c == ')' && depth == 0) {
				break
			}
			switch c {
			case '(':
				depth++
			case ')':
				depth--
			}
		}
		target = s[start:i]
	}
	skip()
	if i < len(s) && (s[i] == '"' || s[i] == '\'' || s[i] == '(') {
		closer := s[i]
		if closer == '(' {
			closer = ')'
		}
		end := strings.IndexByte(s[i+1:], closer)
		if end < 0 {
			return "", false
		}
		i += end + 2
		skip()
	}
	if i >= len(s) || s[i] != ')' {
		return "", false
	}
	return target, true
}

// blankCodeSpans replaces inline code spans (text between two runs of
// backticks of the same length) by spaces, keeping line breaks. A
// backtick run without a closing run in its paragraph is literal text.
func blankCodeSpans(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		closeAt := -1
		for j := i + n; j < len(b); {
			if b[j] == '\n' && j+1 < len(b) && strings.TrimSpace(lineFrom(b, j+1)) == "" {
				break // a blank line ends the paragraph
			}
			if b[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(b) && b[j+m] == '`' {
				m++
			}
			if m == n {
				closeAt = j
				break
			}
			j += m
		}
		if closeAt < 0 {
			i += n
			continue
		}
		for k := i; k < closeAt+n; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
		i = closeAt + n
	}
	return string(b)
}

func lineFrom(b []byte, i int) string {
	end := i
	for end < len(b) && b[end] != '\n' {
		end++
	}
	return string(b[i:end])
}

func blankKeepingLines(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' {
			return r
		}
		return ' '
	}, s)
}

// paragraphLine says whether line can be the text of a setext heading.
func paragraphLine(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" || strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
		return false
	}
	for _, p := range []string{"#", "|", ">", "- ", "* ", "+ "} {
		if strings.HasPrefix(t, p) {
			return false
		}
	}
	return !linkOrdered.MatchString(t)
}

var (
	linkInlineLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	linkHTMLTag    = regexp.MustCompile(`</?[A-Za-z][^>]*>`)
	linkClosing    = regexp.MustCompile(`(^|[ \t]+)#+[ \t]*$`)
	linkEscape     = regexp.MustCompile(`\\([!-/:-@\[-` + "`" + `{-~])`)
	linkOrdered    = regexp.MustCompile(`^[0-9]+[.)] `)
)

// headingText is the text GitHub renders of an ATX heading's content: no
// closing hashes, links and images as their text, no code backticks,
// emphasis stars or HTML tags, escapes and entities resolved.
func headingText(s string) string {
	s = strings.TrimSpace(linkClosing.ReplaceAllString(strings.TrimSpace(s), ""))
	s = linkInlineLink.ReplaceAllString(s, "$1")
	s = linkHTMLTag.ReplaceAllString(s, "")
	s = strings.NewReplacer("`", "", "*", "").Replace(s)
	s = linkEscape.ReplaceAllString(s, "$1")
	return strings.TrimSpace(html.UnescapeString(s))
}

// linkSlug is GitHub's anchor of a heading's text (github-slugger):
// lowercase; letters, digits, marks, '-' and '_' kept, other characters
// dropped; each space a '-'.
func linkSlug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
