package serve

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestPluginRestart serves the plugin demo's model (gazetteer and regex
// plugins, real processes), kills its plugin processes, and checks that
// the next requests are answered as direct tagging answers them, by new
// plugin processes, with the restart counted.
func TestPluginRestart(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finds the plugin processes in /proc")
	}
	path := trainedModel(t, "plugins")
	dir := pluginDir(t)
	// The expected answers first, and the reference's plugins stopped,
	// so that the plugin processes left are the server's.
	ref := newReference(t, path)
	sets := [][]int{{0, 1, 2}, {3, 10, 20}, {4, 11, 21}, {5, 12, 22}, {6, 13, 23, 30}}
	bodies, wants := make([]string, len(sets)), make([]TagResponse, len(sets))
	for i, idx := range sets {
		bodies[i], wants[i] = ref.request(t, idx, nil, false, 1), ref.expect(t, idx, false, 1)
		wants[i].Model = "demo"
	}
	ref.tg.Close()
	waitFor(t, "the reference's plugins to exit", func() bool { return len(pluginProcs(t, dir)) == 0 })

	srv := start(t, testOptions(ModelFile{Name: "demo", Path: path}))
	ask := func(i int) {
		t.Helper()
		status, body := post(t, http.DefaultClient, srv.base+"/v1/models/demo/tag", bodies[i])
		if status != 200 {
			t.Fatalf("request %d: %d %s", i, status, body)
		}
		var got TagResponse
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, wants[i]) {
			t.Errorf("request %d differs from direct tagging:\n got %v\nwant %v", i, got.Labels, wants[i].Labels)
		}
	}
	ask(0)
	killed := pluginProcs(t, dir)
	if len(killed) != 2 {
		t.Fatalf("want 2 plugin processes (gazetteer and regex, once for the model's %d taggers), got %v", srv.opts.Concurrency, killed)
	}
	for _, pid := range killed {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the killed plugins to exit", func() bool { return len(pluginProcs(t, dir)) == 0 })
	for i := 1; i < len(sets); i++ {
		ask(i)
	}
	after := pluginProcs(t, dir)
	if len(after) != 2 || slices.Contains(killed, after[0]) || slices.Contains(killed, after[1]) {
		t.Errorf("after the restart: plugin processes %v, want 2 new ones (killed %v)", after, killed)
	}
	if m := get(t, srv.base+"/metrics"); !strings.Contains(m, `trellis_serve_plugin_restarts_total{model="demo"} 1`) {
		t.Errorf("metrics do not count one restart")
	}
}

// pluginProcs lists the live processes (not zombies) whose executable is
// in dir and whose parent is this process.
func pluginProcs(t *testing.T, dir string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil || filepath.Dir(exe) != dir {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split
		// after its closing parenthesis.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 2 || fields[0] == "Z" || fields[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		out = append(out, pid)
	}
	return out
}
