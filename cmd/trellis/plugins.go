package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/fileio"
	"github.com/trellis-nlp/trellis/framework/plugin"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// Environment variables of the plugin host.
const (
	envPluginPath          = "TRELLIS_PLUGIN_PATH"
	envAllowPluginVersions = "TRELLIS_ALLOW_PLUGIN_VERSION_CHANGE"
)

// newPluginHost returns the host of this invocation's plugin processes:
// logging into a.log, searching TRELLIS_PLUGIN_PATH, and killing every
// plugin when ctx is done (Ctrl-C). The caller defers Close.
func (a *app) newPluginHost(ctx context.Context) *plugin.Host {
	allow := os.Getenv(envAllowPluginVersions)
	h := plugin.NewHost(plugin.Options{
		Log:                a.log,
		Path:               pluginPath(),
		AllowVersionChange: allow != "" && allow != "0" && allow != "false",
	})
	h.KillOnDone(ctx)
	return h
}

func pluginPath() []string {
	var out []string
	for _, d := range filepath.SplitList(os.Getenv(envPluginPath)) {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}

const pluginsUsage = `usage: trellis plugins [SPEC] [--var name=value]... [--json]

With SPEC: the plugins the spec uses (block, plugin, version, sha256, binary).
Without: the plugins found on the plugin path (TRELLIS_PLUGIN_PATH, a list of
folders like PATH, or --path DIR).
`

func (a *app) cmdPlugins(ctx context.Context, args []string) error {
	fs := newFlagSet("plugins", a.stderr)
	fs.Usage = func() { fmt.Fprint(a.stderr, pluginsUsage) }
	vars := varFlags{}
	var dirs listFlag
	fs.Var(vars, "var", "set a spec variable: name=value (repeatable)")
	fs.Var(&dirs, "path", "folder to search for plugins (repeatable; default TRELLIS_PLUGIN_PATH)")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("plugins takes at most one spec file")
	}
	host := a.newPluginHost(ctx)
	defer host.Close()
	type row struct {
		Block string `json:"block,omitempty"`
		*plugin.Info
		Error string `json:"error,omitempty"`
	}
	var rows []row
	if len(pos) == 1 {
		templates, learners := builtin.Registries()
		host.Register(templates)
		s, diags := spec.LoadFile(pos[0], vars, spec.Registries{Templates: templates, Learners: learners})
		if len(diags) > 0 {
			src, _ := os.ReadFile(pos[0])
			spec.WriteDiagnostics(a.stderr, diags, map[string][]byte{pos[0]: src})
		}
		if diags.HasErrors() {
			if err := plugin.Failure(diags); err != nil {
				return err
			}
			return specError{}
		}
		for _, ti := range s.Features.Templates {
			if ti.Type != plugin.TemplateType {
				continue
			}
			cfg := ti.Template.Config().(*plugin.Config)
			info, err := host.Describe(ti.Name, cfg.Path, cfg.Pin)
			if err != nil {
				return err
			}
			rows = append(rows, row{Block: ti.Name, Info: info})
		}
	} else {
		if len(dirs) == 0 {
			dirs = pluginPath()
		}
		if len(dirs) == 0 {
			return usagef("no plugin path: give a SPEC, --path DIR or set %s", envPluginPath)
		}
		for _, d := range dirs {
			entries, err := os.ReadDir(d)
			if err != nil {
				return err
			}
			for _, e := range entries {
				if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
					continue
				}
				p, err := filepath.Abs(filepath.Join(d, e.Name()))
				if err != nil {
					return err
				}
				if st, err := os.Stat(p); err != nil || st.Mode().Perm()&0o111 == 0 {
					continue
				}
				info, err := host.Describe(e.Name(), p, "")
				if err != nil {
					sum, _ := fileio.SHA256File(p)
					rows = append(rows, row{Info: &plugin.Info{Path: p, SHA256: sum}, Error: err.Error()})
					continue
				}
				rows = append(rows, row{Info: info})
			}
		}
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].Path < rows[j].Path })
	}
	if *asJSON {
		b, err := json.MarshalIndent(rows, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.stdout, "%s\n", b)
		return err
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	if len(pos) == 1 {
		fmt.Fprintln(tw, "BLOCK\tPLUGIN\tVERSION\tSHA256\tBINARY")
	} else {
		fmt.Fprintln(tw, "PLUGIN\tVERSION\tSHA256\tBINARY")
	}
	for _, r := range rows {
		name, ver := r.Name, r.Version
		if r.Error != "" {
			name, ver = "?", "not a trellis plugin"
		}
		if len(pos) == 1 {
			fmt.Fprintf(tw, "%s\t", r.Block)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, ver, r.SHA256, r.Path)
	}
	return tw.Flush()
}
