package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/trellis-nlp/trellis/plugins/protocol"
)

// blockSchema is a plugin block's own schema; the config block inside is
// decoded against the schema the plugin declares.
var blockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "binary"}, {Name: "sha256"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "config"}},
}

// failure marks diagnostics about a plugin that could not run (rather
// than a mistake in the spec): the command line exits with 1 for them.
type failure struct{ err error }

// Failure returns the plugin failure among diags, if any: a binary that is
// missing, not executable, fails its checksum, its handshake, or crashes.
func Failure(diags hcl.Diagnostics) error {
	for _, d := range diags {
		if f, ok := d.Extra.(failure); ok && d.Severity == hcl.DiagError {
			return f.err
		}
	}
	return nil
}

func diagAt(rng hcl.Range, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng.Ptr()}
}

// DecodeHCL decodes a plugin block: it finds and starts the binary, asks
// it for its config schema and decodes the config block against it, so
// mistakes in the config are reported at their file:line:col. dir is the
// spec's folder.
func (t *Template) DecodeHCL(block *hcl.Block, ctx *hcl.EvalContext, dir string) hcl.Diagnostics {
	name := block.Labels[0]
	t.block = block.DefRange
	t.ranges = map[string]hcl.Range{}
	content, diags := block.Body.Content(blockSchema)
	if diags.HasErrors() {
		return diags
	}
	binary, binRange := name, block.DefRange
	if a, ok := content.Attributes["binary"]; ok {
		if d := gohcl.DecodeExpression(a.Expr, ctx, &binary); d.HasErrors() {
			return append(diags, d...)
		}
		binRange = a.Expr.Range()
	}
	pinRange := binRange
	if a, ok := content.Attributes["sha256"]; ok {
		if d := gohcl.DecodeExpression(a.Expr, ctx, &t.cfg.Pin); d.HasErrors() {
			return append(diags, d...)
		}
		pinRange = a.Expr.Range()
		if len(t.cfg.Pin) != 64 || strings.Trim(strings.ToLower(t.cfg.Pin), "0123456789abcdef") != "" {
			return append(diags, diagAt(pinRange, "Invalid sha256", "sha256 must be 64 hexadecimal digits (sha256sum of the binary)."))
		}
	}
	t.ranges["binary"] = binRange
	if t.host == nil {
		return append(diags, diagAt(block.DefRange, "Plugins unavailable", "This build of trellis has no plugin host."))
	}
	path, err := t.host.Resolve(binary, dir)
	if err != nil {
		e := &Error{Name: name, Path: binary, Err: err}
		d := diagAt(binRange, "Plugin binary not usable", e.Error())
		d.Extra = failure{e}
		return append(diags, d)
	}
	p, err := t.host.start(name, path, t.cfg.Pin)
	if err != nil {
		rng := binRange
		summary := "Plugin failed to start"
		if errors.Is(err, ErrChecksum) {
			rng, summary = pinRange, "Plugin checksum mismatch"
		}
		d := diagAt(rng, summary, err.Error())
		d.Extra = failure{err}
		return append(diags, d)
	}
	t.cfg.Binary, t.cfg.Path = binary, path
	t.cfg.Plugin, t.cfg.Version, t.cfg.SHA256 = p.desc.Name, p.desc.Version, p.sha

	fields := p.desc.Fields
	schema := &hcl.BodySchema{}
	for _, f := range fields {
		schema.Attributes = append(schema.Attributes, hcl.AttributeSchema{Name: f.Name, Required: f.Required})
	}
	var body hcl.Body = hcl.EmptyBody()
	missing := block.DefRange
	if cbs := content.Blocks.OfType("config"); len(cbs) > 0 {
		body, missing = cbs[0].Body, cbs[0].DefRange
		for _, extra := range cbs[1:] {
			diags = append(diags, diagAt(extra.DefRange, "Duplicate config block", "A plugin block has at most one config block."))
		}
	}
	cc, d := body.Content(schema)
	for _, dd := range d {
		if dd.Subject == nil || dd.Subject.Filename == "" {
			dd.Subject = missing.Ptr()
		}
		if dd.Summary == "Missing required argument" {
			dd.Detail += fmt.Sprintf(" (plugin %s %s declares: %s)", t.cfg.Plugin, t.cfg.Version, describeFields(fields))
		}
	}
	diags = append(diags, d...)
	settings := map[string]any{}
	for _, f := range fields {
		a, ok := cc.Attributes[f.Name]
		if !ok {
			continue
		}
		t.ranges[f.Name] = a.Expr.Range()
		v, err := decodeField(a.Expr, ctx, f, dir)
		if err != nil {
			diags = append(diags, err...)
			continue
		}
		settings[f.Name] = v
	}
	if diags.HasErrors() {
		return diags
	}
	raw, jerr := json.Marshal(settings)
	if jerr != nil {
		return append(diags, diagAt(block.DefRange, "Invalid plugin config", jerr.Error()))
	}
	t.cfg.Settings = raw
	return diags
}

func describeFields(fields []protocol.Field) string {
	var parts []string
	for _, f := range fields {
		s := f.Name + " (" + f.Type
		if f.Required {
			s += ", required"
		}
		parts = append(parts, s+")")
	}
	if len(parts) == 0 {
		return "no config"
	}
	return strings.Join(parts, ", ")
}

// fieldType maps a declared field type to a cty type; path is a string.
func fieldType(typ string) (cty.Type, bool) {
	base := func(s string) (cty.Type, bool) {
		switch s {
		case "string", "path":
			return cty.String, true
		case "number":
			return cty.Number, true
		case "bool":
			return cty.Bool, true
		}
		return cty.NilType, false
	}
	switch {
	case strings.HasPrefix(typ, "list(") && strings.HasSuffix(typ, ")"):
		e, ok := base(typ[5 : len(typ)-1])
		return cty.List(e), ok && e != cty.Bool
	case strings.HasPrefix(typ, "map(") && strings.HasSuffix(typ, ")"):
		e, ok := base(typ[4 : len(typ)-1])
		return cty.Map(e), ok && e != cty.Bool
	}
	return base(typ)
}

func decodeField(expr hcl.Expression, ctx *hcl.EvalContext, f protocol.Field, dir string) (any, hcl.Diagnostics) {
	rng := expr.Range()
	ty, ok := fieldType(f.Type)
	if !ok {
		return nil, hcl.Diagnostics{diagAt(rng, "Invalid plugin schema", fmt.Sprintf("The plugin declares %s with unsupported type %q.", f.Name, f.Type))}
	}
	val, diags := expr.Value(ctx)
	if diags.HasErrors() {
		return nil, diags
	}
	if !val.IsWhollyKnown() || val.IsNull() {
		return nil, hcl.Diagnostics{diagAt(rng, "Invalid value", f.Name+" needs a value.")}
	}
	val, err := convert.Convert(val, ty)
	if err != nil {
		return nil, hcl.Diagnostics{diagAt(rng, "Incorrect attribute value type", fmt.Sprintf("%s must be %s: %s.", f.Name, f.Type, err))}
	}
	raw, err := ctyjson.Marshal(val, ty)
	if err != nil {
		return nil, hcl.Diagnostics{diagAt(rng, "Invalid value", err.Error())}
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, hcl.Diagnostics{diagAt(rng, "Invalid value", err.Error())}
	}
	if strings.Contains(f.Type, "path") {
		v = resolvePaths(v, dir)
	}
	return v, nil
}

func resolvePaths(v any, dir string) any {
	switch x := v.(type) {
	case string:
		if x == "" || filepath.IsAbs(x) {
			return x
		}
		p, err := filepath.Abs(filepath.Join(dir, x))
		if err != nil {
			return x
		}
		return p
	case []any:
		for i := range x {
			x[i] = resolvePaths(x[i], dir)
		}
	case map[string]any:
		for k := range x {
			x[k] = resolvePaths(x[k], dir)
		}
	}
	return v
}

// CompileDiagnostics places an error of Compile in the spec: a plugin's
// refusal of a config field at that field, a plugin failure at the binary
// (marked as a failure, not a spec mistake). ok is false for other errors.
func (t *Template) CompileDiagnostics(err error) (hcl.Diagnostics, bool) {
	if t.ranges == nil {
		return nil, false
	}
	var ce *ConfigError
	if errors.As(err, &ce) {
		var diags hcl.Diagnostics
		for _, e := range ce.Errors {
			rng, ok := t.ranges[e.Field]
			if !ok {
				rng = t.block
			}
			detail := e.Message
			if e.Field != "" && !ok {
				detail = e.Field + ": " + detail
			}
			diags = append(diags, diagAt(rng, "Invalid plugin config", fmt.Sprintf("plugin %q: %s", ce.Name, detail)))
		}
		return diags, true
	}
	var pe *Error
	if errors.As(err, &pe) {
		d := diagAt(t.ranges["binary"], "Plugin failed", pe.Error())
		d.Extra = failure{pe}
		return hcl.Diagnostics{d}, true
	}
	return nil, false
}
