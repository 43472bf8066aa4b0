package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// redrawEvery bounds how often the status line is redrawn: often enough to
// look alive, rarely enough to cost nothing next to the work.
const redrawEvery = 100 * time.Millisecond

// Meter owns the status line of one terminal.
type Meter struct {
	mu    sync.Mutex
	w     io.Writer
	line  string // what the status line shows now ("" when none)
	shown *Task  // the task whose line it is
	drawn time.Time
	now   func() time.Time
}

// New returns a Meter drawing on w, which should be a terminal.
func New(w io.Writer) *Meter { return &Meter{w: w, now: time.Now} }

// Writer returns an io.Writer for log lines that go to the Meter's
// terminal: each write lifts the status line first and redraws it after.
func (m *Meter) Writer() io.Writer { return logWriter{m} }

type logWriter struct{ m *Meter }

func (l logWriter) Write(p []byte) (int, error) {
	m := l.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.line != "" {
		io.WriteString(m.w, "\r\x1b[K")
	}
	n, err := m.w.Write(p)
	if m.line != "" {
		io.WriteString(m.w, m.line)
	}
	return n, err
}

// Task is one piece of long work on the Meter's line.
type Task struct {
	m      *Meter
	what   string
	unit   string
	total  int64
	done   int64
	note   string
	start  time.Time
	format func(int64) string
	// ended is set by Done: counts that still arrive (a worker's last
	// batch, a reader's final read) must not draw the line again after
	// the work is over, where nothing would clear it.
	ended bool
}

// Start begins a task of total units (0 when the total is unknown: the
// line then shows no time left). unit names them ("sentences", "epochs").
func (m *Meter) Start(what string, total int64, unit string) *Task {
	if m == nil {
		return nil
	}
	t := &Task{m: m, what: what, unit: unit, total: total, start: m.now(), format: count}
	t.redraw(true)
	return t
}

// Bytes makes the task show its counts as sizes (KB, MB) and returns it.
func (t *Task) Bytes() *Task {
	if t != nil {
		t.format = size
	}
	return t
}

// Add counts n more units done.
func (t *Task) Add(n int64) {
	if t == nil {
		return
	}
	t.m.mu.Lock()
	t.done += n
	t.m.mu.Unlock()
	t.redraw(false)
}

// Set sets the units done so far and a short note shown after the rate
// ("loss 4644.4").
func (t *Task) Set(done int64, note string) {
	if t == nil {
		return
	}
	t.m.mu.Lock()
	t.done, t.note = done, note
	t.m.mu.Unlock()
	t.redraw(false)
}

// Done removes the task's line, if it is the one shown, and ends the
// task: it is not drawn again.
func (t *Task) Done() {
	if t == nil {
		return
	}
	m := t.m
	m.mu.Lock()
	defer m.mu.Unlock()
	t.ended = true
	if m.line != "" && m.shown == t {
		io.WriteString(m.w, "\r\x1b[K")
		m.line, m.shown = "", nil
	}
}

func (t *Task) redraw(force bool) {
	m := t.m
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if t.ended || !force && now.Sub(m.drawn) < redrawEvery {
		return
	}
	m.drawn = now
	m.line, m.shown = t.status(now.Sub(t.start)), t
	io.WriteString(m.w, "\r\x1b[K"+m.line)
}

// status is the task's line after elapsed time.
func (t *Task) status(elapsed time.Duration) string {
	var b strings.Builder
	b.WriteString(t.what)
	b.WriteString("  ")
	b.WriteString(t.format(t.done))
	if t.total > 0 {
		fmt.Fprintf(&b, "/%s %s (%d%%)", t.format(t.total), t.unit, 100*t.done/t.total)
	} else {
		fmt.Fprintf(&b, " %s", t.unit)
	}
	if s := elapsed.Seconds(); s > 0 && t.done > 0 {
		rate := float64(t.done) / s
		fmt.Fprintf(&b, "  %s/s", t.format(int64(rate+0.5)))
		if t.total > 0 && t.done < t.total {
			left := time.Duration(float64(t.total-t.done) / rate * float64(time.Second))
			fmt.Fprintf(&b, "  ETA %s", clock(left))
		}
	}
	fmt.Fprintf(&b, "  %s", clock(elapsed))
	if t.note != "" {
		b.WriteString("  ")
		b.WriteString(t.note)
	}
	return b.String()
}

// count writes n with thousands grouped by commas.
func count(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// clock writes a duration as m:ss or h:mm:ss.
func clock(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// Reader counts what is read through it into a task (for Bytes tasks).
type Reader struct {
	R io.Reader
	T *Task
}

func (r Reader) Read(p []byte) (int, error) {
	n, err := r.R.Read(p)
	r.T.Add(int64(n))
	return n, err
}
