package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The charts are lists of SVG primitives with precomputed geometry; the
// template turns them into markup, so every string is escaped by
// html/template and no SVG is built by string concatenation.

type svgLine struct {
	X1, Y1, X2, Y2 float64
	Stroke         string
	Width          float64
	Dash           string
}

type svgRect struct {
	X, Y, W, H float64
	Fill       string
	Stroke     string
	Width      float64
	Title      string
}

type svgCircle struct {
	X, Y, R float64
	Fill    string
	Stroke  string
	Title   string
}

type svgPath struct {
	D      string
	Stroke string
	Width  float64
	Dash   string
	Title  string
}

type svgText struct {
	X, Y   float64
	Text   string
	Anchor string // start, middle, end
	Class  string
	Fill   string
	Size   float64 // font size; 0 = CSS default
	Rotate float64 // degrees around (X, Y)
	Bold   bool
}

// Transform is the SVG transform attribute for a rotated text.
func (t svgText) Transform() string {
	if t.Rotate == 0 {
		return ""
	}
	return fmt.Sprintf("rotate(%s %s %s)", num(t.Rotate), num(t.X), num(t.Y))
}

type chart struct {
	W, H    float64
	Label   string // aria-label
	Bands   []svgRect
	Grid    []svgLine
	Rects   []svgRect
	Lines   []svgLine
	Paths   []svgPath
	Circles []svgCircle
	Texts   []svgText
}

func (c *chart) text(x, y float64, s, anchor, class string) {
	c.Texts = append(c.Texts, svgText{X: x, Y: y, Text: s, Anchor: anchor, Class: class})
}

// num formats an SVG coordinate: two decimals at most, no exponent, no
// negative zero.
func num(x float64) string {
	x = math.Round(x*100) / 100
	if x == 0 {
		x = 0
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// Okabe–Ito colour-blind-safe palette (yellow, too light on white, last).
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000", "#B59F00"}

var dashes = []string{"", "6 3", "2 2", "8 3 2 3"}

func colour(i int) string { return palette[i%len(palette)] }

// dash distinguishes lines once the palette repeats (and helps in print).
func dash(i int) string { return dashes[(i/len(palette))%len(dashes)] }

// niceNum rounds x to 1, 2, 5 or 10 times a power of ten.
func niceNum(x float64, round bool) float64 {
	if x <= 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return 1
	}
	exp := math.Floor(math.Log10(x))
	f := x / math.Pow(10, exp)
	var nf float64
	if round {
		switch {
		case f < 1.5:
			nf = 1
		case f < 3:
			nf = 2
		case f < 7:
			nf = 5
		default:
			nf = 10
		}
	} else {
		switch {
		case f <= 1:
			nf = 1
		case f <= 2:
			nf = 2
		case f <= 5:
			nf = 5
		default:
			nf = 10
		}
	}
	return nf * math.Pow(10, exp)
}

// axis is a linear or log10 scale from a data range to pixels.
type axis struct {
	Lo, Hi     float64 // data range (log10 of it for log axes)
	P0, P1     float64 // pixel range
	Log        bool
	Ticks      []float64 // data values
	TickLabels []string
}

func (a axis) px(v float64) float64 {
	if a.Log {
		if v <= 0 {
			v = math.Pow(10, a.Lo)
		}
		v = math.Log10(v)
	}
	if a.Hi == a.Lo {
		return (a.P0 + a.P1) / 2
	}
	return a.P0 + (v-a.Lo)/(a.Hi-a.Lo)*(a.P1-a.P0)
}

// linearAxis makes a scale covering [lo, hi] with about n nice ticks.
// With clamp set the range is not extended beyond [cmin, cmax].
func linearAxis(lo, hi float64, n int, p0, p1 float64) axis {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		lo, hi = 0, 1
	}
	if hi < lo {
		lo, hi = hi, lo
	}
	if hi == lo {
		d := math.Abs(lo) * 0.05
		if d == 0 {
			d = 1
		}
		lo, hi = lo-d, hi+d
	}
	span := niceNum(hi-lo, false)
	step := niceNum(span/float64(max(n-1, 1)), true)
	nlo := math.Floor(lo/step+1e-9) * step
	nhi := math.Ceil(hi/step-1e-9) * step
	dec := 0
	if step < 1 {
		dec = int(math.Ceil(-math.Log10(step) - 1e-9))
	}
	a := axis{Lo: nlo, Hi: nhi, P0: p0, P1: p1}
	for i := 0; ; i++ {
		v := nlo + float64(i)*step
		if v > nhi+step/2 {
			break
		}
		if math.Abs(v) < step/1e6 {
			v = 0
		}
		a.Ticks = append(a.Ticks, v)
		a.TickLabels = append(a.TickLabels, strconv.FormatFloat(v, 'f', dec, 64))
	}
	return a
}

// logAxis makes a log10 scale covering [lo, hi] (both > 0), from the
// largest 1-2-5 step at or below lo to the smallest at or above hi.
func logAxis(lo, hi float64, p0, p1 float64) axis {
	elo, ehi := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if ehi == elo {
		ehi++
	}
	mult := []float64{1}
	if ehi-elo <= 3 {
		mult = []float64{1, 2, 5}
	}
	var cands []float64
	for e := elo; e <= ehi; e++ {
		for _, m := range mult {
			cands = append(cands, m*math.Pow(10, e))
		}
	}
	first, last := 0, len(cands)-1
	for i, v := range cands {
		if v <= lo*(1+1e-9) {
			first = i
		}
	}
	for i := len(cands) - 1; i >= 0; i-- {
		if cands[i] >= hi*(1-1e-9) {
			last = i
		}
	}
	if last <= first {
		last = min(first+1, len(cands)-1)
	}
	a := axis{Lo: math.Log10(cands[first]), Hi: math.Log10(cands[last]), P0: p0, P1: p1, Log: true}
	for _, v := range cands[first : last+1] {
		a.Ticks = append(a.Ticks, v)
		a.TickLabels = append(a.TickLabels, shortNum(v))
	}
	return a
}

// shortNum formats a tick value compactly: 0.01, 5, 200, 10k, 3M.
func shortNum(v float64) string {
	sig3 := func(x float64) string {
		if x == 0 {
			return "0"
		}
		p := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(x))))
		return strconv.FormatFloat(math.Round(x*p)/p, 'f', -1, 64)
	}
	av := math.Abs(v)
	switch {
	case av >= 1e9:
		return sig3(v/1e9) + "G"
	case av >= 1e6:
		return sig3(v/1e6) + "M"
	case av >= 1e3:
		return sig3(v/1e3) + "k"
	}
	return sig3(v)
}

// tight limits a scale to the data range [lo, hi], keeping only the ticks
// inside it (for step axes, where padding to a round number wastes room).
func (a axis) tight(lo, hi float64) axis {
	if hi <= lo || a.Log {
		return a
	}
	a.Lo, a.Hi = lo, hi
	var ticks []float64
	var labels []string
	for i, t := range a.Ticks {
		if t >= lo-1e-9 && t <= hi+1e-9 {
			ticks = append(ticks, t)
			labels = append(labels, a.TickLabels[i])
		}
	}
	a.Ticks, a.TickLabels = ticks, labels
	return a
}

// frame draws the plot rectangle's gridlines, ticks and axis titles.
func (c *chart) frame(x, y axis, xTitle, yTitle string) {
	const grid = "#e3e3e3"
	const ink = "#555"
	top, bottom := y.P1, y.P0
	left, right := x.P0, x.P1
	for i, v := range y.Ticks {
		py := y.px(v)
		c.Grid = append(c.Grid, svgLine{X1: left, Y1: py, X2: right, Y2: py, Stroke: grid, Width: 1})
		c.text(left-6, py+4, y.TickLabels[i], "end", "tick")
	}
	for i, v := range x.Ticks {
		px := x.px(v)
		c.Grid = append(c.Grid, svgLine{X1: px, Y1: top, X2: px, Y2: bottom, Stroke: grid, Width: 1})
		c.text(px, bottom+16, x.TickLabels[i], "middle", "tick")
	}
	c.Lines = append(c.Lines,
		svgLine{X1: left, Y1: bottom, X2: right, Y2: bottom, Stroke: ink, Width: 1},
		svgLine{X1: left, Y1: top, X2: left, Y2: bottom, Stroke: ink, Width: 1})
	if xTitle != "" {
		c.text((left+right)/2, bottom+34, xTitle, "middle", "axis")
	}
	if yTitle != "" {
		c.Texts = append(c.Texts, svgText{X: 14, Y: (top + bottom) / 2, Text: yTitle, Anchor: "middle", Class: "axis", Rotate: -90})
	}
}

// pathD is an SVG path through the points (a move for each gap).
func pathD(xs, ys []float64) string {
	var b strings.Builder
	for i := range xs {
		if i == 0 {
			b.WriteString("M")
		} else {
			b.WriteString(" L")
		}
		b.WriteString(num(xs[i]))
		b.WriteString(" ")
		b.WriteString(num(ys[i]))
	}
	return b.String()
}

// Blues, ColorBrewer's sequential single-hue scale (colour-blind safe).
var blues = [][3]float64{
	{247, 251, 255}, {222, 235, 247}, {198, 219, 239}, {158, 202, 225},
	{107, 174, 214}, {66, 146, 198}, {33, 113, 181}, {8, 81, 156}, {8, 48, 107},
}

// heat maps t in [0, 1] to a colour on the Blues scale.
func heat(t float64) string {
	t = math.Max(0, math.Min(1, t))
	p := t * float64(len(blues)-1)
	i := int(math.Floor(p))
	if i >= len(blues)-1 {
		i = len(blues) - 2
	}
	f := p - float64(i)
	var rgb [3]int
	for k := range 3 {
		rgb[k] = int(math.Round(blues[i][k]*(1-f) + blues[i+1][k]*f))
	}
	return fmt.Sprintf("#%02x%02x%02x", rgb[0], rgb[1], rgb[2])
}
