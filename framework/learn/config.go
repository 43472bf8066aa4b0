// How a learner's config block is decoded: DecodeConfig and ConfigSchema,
// gohcl's DecodeBody and ImpliedBodySchema extended to embedded structs.

package learn

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
)

// Settings that several learners take are one struct, which each of their
// configs embeds (online.Config in pa.Config, crf.Training in
// crf.LocalConfig): that is the one way learners share settings. gohcl
// decodes and lists only a struct's own fields and skips embedded ones
// (TestGohclSkipsEmbedded), so the spec decodes a config with DecodeConfig
// and lists its settings with ConfigSchema, which take in the embedded
// structs too. encoding/json flattens embedded structs already, in field
// order, so a model file records one object of settings; where a shared
// struct's keys must keep their place among a learner's own, it is split
// (crf.Training, Latent and Speedups).

// ConfigSchema returns the attributes of cfg, a pointer to a config
// struct, and of the structs it embeds, sorted by name: what
// gohcl.ImpliedBodySchema returns for a struct that declares them all
// itself. Like gohcl on a bad tag, it panics on a setting declared twice
// and on blocks or a remain field, which no config has.
func ConfigSchema(cfg any) *hcl.BodySchema {
	var schema hcl.BodySchema
	for _, p := range configParts(cfg) {
		s, partial := gohcl.ImpliedBodySchema(p)
		if partial || len(s.Blocks) > 0 {
			panic(fmt.Sprintf("learn: config %T has blocks or a remain field; a config holds attributes only", p))
		}
		schema.Attributes = append(schema.Attributes, s.Attributes...)
	}
	slices.SortFunc(schema.Attributes, func(a, b hcl.AttributeSchema) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(schema.Attributes); i++ {
		if n := schema.Attributes[i].Name; n == schema.Attributes[i-1].Name {
			panic(fmt.Sprintf("learn: config %T declares %q twice", cfg, n))
		}
	}
	return &schema
}

// DecodeConfig decodes body into cfg, a pointer to a config struct, and
// into the structs it embeds, with the diagnostics gohcl.DecodeBody gives
// for a struct that declares all their fields itself: the block is checked
// against the whole schema once, then gohcl decodes each struct's
// attributes.
func DecodeConfig(body hcl.Body, ctx *hcl.EvalContext, cfg any) hcl.Diagnostics {
	content, diags := body.Content(ConfigSchema(cfg))
	if content == nil {
		return diags
	}
	for _, p := range configParts(cfg) {
		diags = append(diags, gohcl.DecodeBody(checkedBody{content.Attributes, body.MissingItemRange()}, ctx, p)...)
	}
	return diags
}

// configParts returns cfg and a pointer to each struct it embeds, at any
// depth (of an exported type; an embedded pointer must not be nil).
func configParts(cfg any) []any {
	v := reflect.ValueOf(cfg).Elem()
	parts := []any{cfg}
	for _, f := range reflect.VisibleFields(v.Type()) {
		if !f.Anonymous {
			continue
		}
		switch fv := v.FieldByIndex(f.Index); {
		case f.Type.Kind() == reflect.Struct:
			parts = append(parts, fv.Addr().Interface())
		case f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct:
			parts = append(parts, fv.Interface())
		}
	}
	return parts
}

// checkedBody holds the attributes of a block that DecodeConfig has
// checked against the whole schema: Content returns those a part's schema
// names, without diagnostics (they were reported once).
type checkedBody struct {
	attrs   hcl.Attributes
	missing hcl.Range
}

func (b checkedBody) Content(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Diagnostics) {
	c := &hcl.BodyContent{Attributes: hcl.Attributes{}, MissingItemRange: b.missing}
	for _, a := range s.Attributes {
		if at, ok := b.attrs[a.Name]; ok {
			c.Attributes[a.Name] = at
		}
	}
	return c, nil
}

func (b checkedBody) PartialContent(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Body, hcl.Diagnostics) {
	c, d := b.Content(s)
	return c, hcl.EmptyBody(), d
}

func (b checkedBody) JustAttributes() (hcl.Attributes, hcl.Diagnostics) { return b.attrs, nil }

func (b checkedBody) MissingItemRange() hcl.Range { return b.missing }
