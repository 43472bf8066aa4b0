package report

import "html/template"

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"n": num,
}).Parse(pageHTML))

const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="trellis report">
<title>{{.Title}} · trellis report</title>
<style>
:root{--ink:#1d2330;--muted:#5b6475;--line:#dde1e8;--soft:#f4f5f8;--accent:#0072B2;--best:#fff4d6;--sig:#0b6e4f}
*{box-sizing:border-box}
body{margin:0;background:#fff;color:var(--ink);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1180px;margin:0 auto;padding:28px 24px 60px}
h1{font-size:30px;margin:0 0 4px;letter-spacing:-.01em}
h2{font-size:21px;margin:44px 0 8px;padding-bottom:6px;border-bottom:2px solid var(--line)}
h3{font-size:16px;margin:22px 0 6px}
p{margin:6px 0}
.lead{color:var(--muted);font-size:16px;margin-bottom:14px}
.muted,.note{color:var(--muted)}
.note{font-size:13.5px}
dl.facts{display:grid;grid-template-columns:max-content 1fr max-content 1fr;gap:3px 16px;margin:12px 0 0;padding:12px 16px;background:var(--soft);border-radius:8px;font-size:14px}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.summary{margin:20px 0 0;padding:12px 16px;border-left:5px solid var(--accent);background:#eef6fb;border-radius:0 8px 8px 0;font-size:16px}
.summary p:first-child{font-weight:600}
table{border-collapse:collapse;width:100%;margin:10px 0;font-size:14px;font-variant-numeric:tabular-nums}
th,td{padding:6px 10px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
th{background:var(--soft);font-weight:600;color:#333;vertical-align:bottom;white-space:normal}
th.l,td.l{text-align:left}
td.wrap{white-space:normal;overflow-wrap:anywhere;text-align:left}
tr.best td{background:var(--best);font-weight:600}
.badge{display:inline-block;margin-left:6px;padding:0 7px;border-radius:9px;background:#E69F00;color:#000;font-size:11.5px;font-weight:700;vertical-align:1px}
.sw{display:inline-block;vertical-align:-2px;margin-right:6px}
.sig{color:var(--sig);font-weight:700}
.ns{color:var(--muted)}
.legend{display:flex;flex-wrap:wrap;gap:4px 18px;margin:6px 0;font-size:14px}
.legend span{white-space:nowrap}
figure{margin:10px 0 0}
figure svg{display:block;max-width:100%;height:auto}
svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
svg text:not([fill]){fill:#333}
svg text.tick:not([fill]){fill:#555}
svg text.lbl:not([fill]),svg text.val:not([fill]){fill:#1d2330}
svg text:not([font-size]){font-size:12px}
svg text.tick:not([font-size]){font-size:11px}
svg text.axis:not([font-size]){font-size:12.5px}
svg text.lbl:not([font-size]){font-size:13px}
svg text.val:not([font-size]){font-size:12.5px}
svg text.bv:not([font-size]){font-size:10.5px}
.panels{display:flex;flex-wrap:wrap;gap:10px 24px}
.panel h3{margin:14px 0 0;font-size:14.5px}
.panel .note{margin:0}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:13px}
pre{background:var(--soft);padding:10px 12px;border-radius:6px;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}
details{margin:12px 0}
summary{cursor:pointer;color:var(--accent);font-weight:600}
footer{margin-top:48px;color:var(--muted);font-size:12.5px;border-top:1px solid var(--line);padding-top:10px}
@media print{h2{break-after:avoid}figure{break-inside:avoid}}
</style>
</head>
<body>
<main>
<header>
<h1>{{.Title}}</h1>
{{with .Description}}<p class="lead">{{.}}</p>{{end}}
<dl class="facts">
{{- range .Facts}}
<dt>{{.K}}</dt><dd>{{.V}}</dd>
{{- end}}
</dl>
<div class="summary">
{{- range .Summary}}
<p>{{.}}</p>
{{- end}}
</div>
</header>

<section id="results">
<h2>Results on the test set</h2>
<p class="note">Learners are sorted by {{.MetricName}} on the test set, best first; the best is highlighted. Scores are percentages{{if .HasCI}}; the 95% confidence interval is a bootstrap over test sentences{{end}}.</p>
<table>
<thead><tr>
<th class="l">#</th><th class="l">learner</th><th class="l">type</th><th>{{.MetricName}}</th>{{if .HasCI}}<th>95% CI</th>{{end}}
{{- if .HasPR}}<th>{{.PRKind}} precision</th><th>{{.PRKind}} recall</th>{{end}}
{{- if .ShowAcc}}<th>token accuracy</th>{{end}}
<th>IV accuracy</th><th>OOV accuracy</th><th>sentence accuracy</th><th>train s</th><th>tokens/s (tagging)</th><th>model size</th>
</tr></thead>
<tbody>
{{- range .Rows}}
<tr{{if .Best}} class="best"{{end}}><td class="l">{{.Rank}}</td><td class="l"><svg class="sw" width="12" height="12" aria-hidden="true"><rect width="12" height="12" rx="2" fill="{{.Colour}}"/></svg>{{.Name}}{{if .Best}}<span class="badge">best</span>{{end}}</td><td class="l">{{.Type}}</td><td>{{.Main}}</td>{{if $.HasCI}}<td>{{.CI}}</td>{{end}}
{{- if $.HasPR}}<td>{{.P}}</td><td>{{.R}}</td>{{end}}
{{- if $.ShowAcc}}<td>{{.Acc}}</td>{{end}}<td>{{.IV}}</td><td>{{.OOV}}</td><td>{{.Sent}}</td><td>{{.Train}}</td><td>{{.Speed}}</td><td>{{.Size}}</td></tr>
{{- end}}
</tbody>
</table>
<figure>
{{template "svg" .Forest}}
</figure>
</section>

{{if .Comparisons}}
<section id="significance">
<h2>Pairwise significance</h2>
<p class="note">{{.CmpMetric}} difference A − B in percentage points with its 95% paired-bootstrap interval; p is a two-sided approximate-randomization test ({{.CmpSamples}} samples), McNemar's test is on token correctness (counts: A right &amp; B wrong / A wrong &amp; B right). <span class="sig">✔</span> marks p &lt; 0.05. In the interval plots the dashed line is zero.</p>
<table>
<thead><tr><th class="l">A</th><th class="l">B</th><th>A − B</th><th>95% CI</th><th class="l">interval</th><th>p (randomization)</th><th>McNemar p</th><th>McNemar A✔B✘ / A✘B✔</th><th class="l">better</th></tr></thead>
<tbody>
{{- range .Comparisons}}
<tr><td class="l">{{.A}}</td><td class="l">{{.B}}</td><td>{{.Diff}}</td><td>{{.CI}}</td><td class="l">{{template "svg" .Plot}}</td><td>{{if .Sig}}<span class="sig">✔ {{.P}}</span>{{else}}<span class="ns">{{.P}}</span>{{end}}</td><td>{{if .McSig}}<span class="sig">✔ {{.McNemar}}</span>{{else}}<span class="ns">{{.McNemar}}</span>{{end}}</td><td>{{.McNemarCounts}}</td><td class="l">{{if .Sig}}<strong>{{.Better}}</strong>{{else}}<span class="ns">not significant</span>{{end}}</td></tr>
{{- end}}
</tbody>
</table>
</section>
{{end}}

<section id="curves">
<h2>Learning curves</h2>
{{- if .DevPanels}}
<h3>Dev-set score</h3>
<p class="note">One panel per learner, each on its own x-axis: a perceptron epoch, an SGD epoch and an L-BFGS iteration are different units. The y-axes are shared, so the heights compare.</p>
<div class="panels">
{{- range .DevPanels}}
<div class="panel"><h3>{{.Name}}</h3><p class="note">{{.Note}}</p>
<figure>{{template "svg" .Chart}}</figure></div>
{{- end}}
</div>
{{- end}}
{{- if .LossCharts}}
<h3>Training loss</h3>
<p class="note">One panel per learner: each learner reports its own objective (for example the perceptron's training error rate, the CRF's regularized negative log-likelihood), so the scales are not comparable.</p>
<div class="panels">
{{- range .LossCharts}}
<div class="panel"><h3>{{.Name}}</h3><p class="note">{{.Note}}</p>
<figure>{{template "svg" .Chart}}</figure></div>
{{- end}}
</div>
{{- end}}
{{- if not (or .DevPanels .LossCharts)}}
<p class="muted">No learner recorded a learning curve.</p>
{{- end}}
{{- range .CurveNotes}}
<p class="note">{{.}}</p>
{{- end}}
</section>

{{- if .Tunings}}
<section id="tuning">
<h2>Tuning</h2>
{{- range .Tunings}}
<h3>{{.Learner}}</h3>
<p class="note">{{.How}}.</p>
<table>
<thead><tr>{{range .Settings}}<th>{{.}}</th>{{end}}<th>score</th><th>folds</th><th>train</th><th></th></tr></thead>
<tbody>
{{- range .Rows}}
<tr>{{range .Values}}<td class="num">{{.}}</td>{{end}}<td class="num">{{.Score}}</td><td class="num">{{.Folds}}</td><td class="num">{{.Seconds}}</td><td>{{if .Picked}}<strong>picked</strong>{{end}}</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
</section>
{{- end}}

{{with .TypeBars}}
<section id="per-type">
<h2>F1 per span type</h2>
<p class="note">Span types sorted by gold frequency (n = gold spans in the test set). Hover a bar for precision, recall and counts.</p>
<div class="legend">{{range $.Legend}}<span>{{template "swatch" .}}{{.Name}}</span>{{end}}</div>
<figure>
{{template "svg" .}}
</figure>
</section>
{{end}}

{{with .LabelBars}}
<section id="per-label">
<h2>F1 per label</h2>
<p class="note">Labels sorted by gold frequency (n = gold tokens in the test set). Hover a bar for precision, recall and counts.</p>
<div class="legend">{{range $.Legend}}<span>{{template "swatch" .}}{{.Name}}</span>{{end}}</div>
<figure>
{{template "svg" .}}
</figure>
</section>
{{end}}

{{with .Confusion}}
<section id="confusion">
<h2>Confusion matrix: {{$.ConfusionFor}}</h2>
<p class="note">Rows are gold labels, columns predicted labels, both sorted by gold frequency. {{$.ConfusionNote}}</p>
<figure>
{{template "svg" .}}
</figure>
</section>
{{end}}

<section id="provenance">
<h2>Provenance</h2>
<h3>Command</h3>
<pre>{{.Command}}</pre>
{{- if .Data}}
<h3>Data</h3>
<table>
<thead><tr><th class="l">corpus</th><th class="l">SHA-256</th></tr></thead>
<tbody>
{{- range .Data}}
<tr><td class="l">{{.K}}</td><td class="l mono">{{.V}}</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
<h3>Learners</h3>
<table>
<thead><tr><th class="l">learner</th><th class="l">type</th><th class="l">configuration</th><th class="l">training info</th></tr></thead>
<tbody>
{{- range .Learners}}
<tr><td class="l">{{.Name}}</td><td class="l">{{.Type}}</td><td class="wrap mono">{{.Config}}</td><td class="wrap mono">{{.Info}}</td></tr>
{{- end}}
</tbody>
</table>
{{- with .SpecSource}}
<details>
<summary>Spec source</summary>
<pre>{{.}}</pre>
</details>
{{- end}}
</section>
<footer>Rendered by trellis from metrics.json, comparisons.json and manifest.json. This page is self-contained: no scripts, fonts or images are loaded.</footer>
</main>
</body>
</html>
{{define "swatch"}}<svg class="sw" width="26" height="12" aria-hidden="true"><line x1="1" y1="6" x2="25" y2="6" stroke="{{.Colour}}" stroke-width="3"{{with .Dash}} stroke-dasharray="{{.}}"{{end}}/><circle cx="13" cy="6" r="3.5" fill="{{.Colour}}"/></svg>{{end}}
{{define "svg"}}{{if .}}<svg width="{{n .W}}" height="{{n .H}}" viewBox="0 0 {{n .W}} {{n .H}}" role="img" aria-label="{{.Label}}">
{{- range .Bands}}<rect x="{{n .X}}" y="{{n .Y}}" width="{{n .W}}" height="{{n .H}}" fill="{{.Fill}}"/>{{end}}
{{- range .Grid}}
<line x1="{{n .X1}}" y1="{{n .Y1}}" x2="{{n .X2}}" y2="{{n .Y2}}" stroke="{{.Stroke}}" stroke-width="{{n .Width}}"{{with .Dash}} stroke-dasharray="{{.}}"{{end}}/>
{{- end}}
{{- range .Rects}}
<rect x="{{n .X}}" y="{{n .Y}}" width="{{n .W}}" height="{{n .H}}" fill="{{.Fill}}"{{with .Stroke}} stroke="{{.}}"{{end}}{{if .Width}} stroke-width="{{n .Width}}"{{end}}>{{with .Title}}<title>{{.}}</title>{{end}}</rect>
{{- end}}
{{- range .Lines}}
<line x1="{{n .X1}}" y1="{{n .Y1}}" x2="{{n .X2}}" y2="{{n .Y2}}" stroke="{{.Stroke}}" stroke-width="{{n .Width}}"{{with .Dash}} stroke-dasharray="{{.}}"{{end}}/>
{{- end}}
{{- range .Paths}}
<path d="{{.D}}" fill="none" stroke="{{.Stroke}}" stroke-width="{{n .Width}}" stroke-linejoin="round" stroke-linecap="round"{{with .Dash}} stroke-dasharray="{{.}}"{{end}}>{{with .Title}}<title>{{.}}</title>{{end}}</path>
{{- end}}
{{- range .Circles}}
<circle cx="{{n .X}}" cy="{{n .Y}}" r="{{n .R}}" fill="{{.Fill}}"{{with .Stroke}} stroke="{{.}}" stroke-width="1.5"{{end}}>{{with .Title}}<title>{{.}}</title>{{end}}</circle>
{{- end}}
{{- range .Texts}}
<text x="{{n .X}}" y="{{n .Y}}"{{with .Anchor}} text-anchor="{{.}}"{{end}}{{with .Class}} class="{{.}}"{{end}}{{with .Fill}} fill="{{.}}"{{end}}{{if .Size}} font-size="{{n .Size}}"{{end}}{{if .Bold}} font-weight="700"{{end}}{{with .Transform}} transform="{{.}}"{{end}}>{{.Text}}</text>
{{- end}}
</svg>{{end}}{{end}}`
