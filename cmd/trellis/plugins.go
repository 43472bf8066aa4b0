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
	h := plugin.NewHost(a.pluginOptions())
	h.KillOnDone(ctx)
	return h
}

// pluginOptions are the plugin host's settings from the environment.
func (a *app) pluginOptions() plugin.Options {
	allow := os.Getenv(envAllowPluginVersions)
	return plugin.Options{
		Log:                a.log,
		Path:               pluginPath(),
		AllowVersionChange: allow != "" && allow != "0" && allow != "false",
	}
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

func pluginsCommand() command {
	return command{
		Name:        "plugins",
		Usage:       []string{"[SPEC] [--var name=value]... [--path DIR]... [--json]"},
		Summary:     "list the plugins a spec uses, or those on the plugin path",
		Description: "With SPEC: the plugins the spec uses (block, plugin, version, sha256, binary). Without: the plugins found on the plugin path (TRELLIS_PLUGIN_PATH, a list of folders like PATH, or --path DIR).",
		Run:         (*app).cmdPlugins,
	}
}

func (a *app) cmdPlugins(ctx context.Context, args []string) error {
	fs := newFlagSet("plugins", a.stderr)
	vars := spec.Vars{}
	var dirs listFlag
	fs.Var(vars, "var", "set a spec variable: `name=value` (repeatable)")
	fs.Var(&dirs, "path", "folder `DIR` to search for plugins (repeatable; default TRELLIS_PLUGIN_PATH)")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("plugins takes at most one spec file")
	}
	var rows []pluginRow
	if len(pos) == 1 {
		rows, err = a.specPlugins(ctx, pos[0], vars)
	} else {
		rows, err = a.pathPlugins(ctx, dirs)
	}
	if err != nil {
		return err
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

// pluginRow is one plugin `trellis plugins` lists.
type pluginRow struct {
	Block string `json:"block,omitempty"`
	*plugin.Info
	Error string `json:"error,omitempty"`
}

// specPlugins describes the plugins the spec at path uses, by block.
func (a *app) specPlugins(ctx context.Context, path string, vars spec.Vars) ([]pluginRow, error) {
	s, _, host, err := a.loadSpec(ctx, path, vars)
	if err != nil {
		return nil, err
	}
	defer host.Close()
	var rows []pluginRow
	for _, ti := range s.Features.Templates {
		if ti.Type != plugin.TemplateType {
			continue
		}
		cfg := ti.Template.Config().(*plugin.Config)
		info, err := host.Describe(ti.Name, cfg.Path, cfg.Pin)
		if err != nil {
			return nil, err
		}
		rows = append(rows, pluginRow{Block: ti.Name, Info: info})
	}
	return rows, nil
}

// pathPlugins describes the executables in dirs (default: the plugin
// path); one that is not a trellis plugin is listed with its error.
func (a *app) pathPlugins(ctx context.Context, dirs []string) ([]pluginRow, error) {
	if len(dirs) == 0 {
		dirs = pluginPath()
	}
	if len(dirs) == 0 {
		return nil, usagef("no plugin path: give a SPEC, --path DIR or set %s", envPluginPath)
	}
	host := a.newPluginHost(ctx)
	defer host.Close()
	var rows []pluginRow
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p, err := filepath.Abs(filepath.Join(d, e.Name()))
			if err != nil {
				return nil, err
			}
			if st, err := os.Stat(p); err != nil || st.Mode().Perm()&0o111 == 0 {
				continue
			}
			info, err := host.Describe(e.Name(), p, "")
			if err != nil {
				sum, _ := fileio.SHA256File(p)
				rows = append(rows, pluginRow{Info: &plugin.Info{Path: p, SHA256: sum}, Error: err.Error()})
				continue
			}
			rows = append(rows, pluginRow{Info: info})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Path < rows[j].Path })
	return rows, nil
}
