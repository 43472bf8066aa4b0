package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestStatus(t *testing.T) {
	var out bytes.Buffer
	clk := &fakeClock{t: time.Unix(1000, 0)}
	m := New(&out)
	m.now = clk.now
	task := m.Start("extracting features", 14041, "sentences")
	clk.t = clk.t.Add(2 * time.Second)
	task.Add(4000)
	line := out.String()[strings.LastIndex(out.String(), "\r\x1b[K")+4:]
	want := "extracting features  4,000/14,041 sentences (28%)  2,000/s  ETA 0:05  0:02"
	if line != want {
		t.Errorf("status line\n got %q\nwant %q", line, want)
	}

	// Redraws are throttled.
	n := out.Len()
	task.Add(1)
	if out.Len() != n {
		t.Errorf("redrawn within %v", redrawEvery)
	}

	// A log line lifts the status line and puts it back.
	out.Reset()
	m.Writer().Write([]byte("a log line\n"))
	if got := out.String(); got != "\r\x1b[Ka log line\n"+want {
		t.Errorf("log write: %q", got)
	}

	// Done clears it; later log lines are left alone.
	task.Done()
	out.Reset()
	m.Writer().Write([]byte("after\n"))
	if got := out.String(); got != "after\n" {
		t.Errorf("after Done: %q", got)
	}
}

func TestUnknownTotalAndBytes(t *testing.T) {
	var out bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0)}
	m := New(&out)
	m.now = clk.now
	task := m.Start("crf", 0, "iterations")
	clk.t = clk.t.Add(4 * time.Second)
	task.Set(8, "loss 12.5")
	if got := out.String(); !strings.HasSuffix(got, "crf  8 iterations  2/s  0:04  loss 12.5") {
		t.Errorf("unknown total: %q", got)
	}
	out.Reset()
	task = m.Start("tagging", 3<<20, "read").Bytes()
	clk.t = clk.t.Add(time.Second)
	task.Add(1 << 20)
	if got := out.String(); !strings.HasSuffix(got, "tagging  1.0 MB/3.0 MB read (33%)  1.0 MB/s  ETA 0:02  0:01") {
		t.Errorf("bytes: %q", got)
	}
}

func TestNilIsQuiet(t *testing.T) {
	var m *Meter
	task := m.Start("x", 10, "things")
	task.Add(3)
	task.Set(4, "note")
	task.Bytes().Done()
	Reader{R: strings.NewReader("abc"), T: task}.Read(make([]byte, 3))
}

func TestClock(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0:00", 59 * time.Second: "0:59", 61 * time.Second: "1:01", 3725 * time.Second: "1:02:05"} {
		if got := clock(d); got != want {
			t.Errorf("clock(%v) = %s, want %s", d, got, want)
		}
	}
}

// TestNoRedrawAfterDone: counts that arrive after Done (a worker's last
// batch, a reader's final read) do not draw the line again once the work
// is over, where nothing would clear it; and one task's Done leaves the
// line of a task started after it.
func TestNoRedrawAfterDone(t *testing.T) {
	var out bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0)}
	m := New(&out)
	m.now = clk.now
	task := m.Start("crf", 100, "iterations")
	clk.t = clk.t.Add(time.Second)
	task.Set(100, "loss 1")
	task.Done()
	out.Reset()
	clk.t = clk.t.Add(time.Second)
	task.Add(1)
	task.Set(100, "loss 0.5")
	m.Writer().Write([]byte("trained\n"))
	if got := out.String(); got != "trained\n" {
		t.Errorf("after Done: %q", got)
	}

	first := m.Start("reading", 10, "lines")
	second := m.Start("tagging", 10, "sentences")
	first.Done()
	out.Reset()
	m.Writer().Write([]byte("log\n"))
	if got, want := out.String(), "\r\x1b[Klog\ntagging  0/10 sentences (0%)  0:00"; got != want {
		t.Errorf("after the first task's Done\n got %q\nwant %q", got, want)
	}
	second.Done()
}
