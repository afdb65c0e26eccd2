package main

import (
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// latencySVG draws p50 and p99 by query kind for semcat and PostgreSQL side
// by side, on a logarithmic millisecond axis: a hand-written SVG, so the
// chart needs nothing but a browser.
func latencySVG(r *Results) string {
	const (
		left, right, top, bottom = 70, 20, 60, 120
		barW, barGap, groupGap   = 14, 2, 26
		plotH                    = 300
	)
	kinds := r.Queries
	groupW := 4*barW + 3*barGap
	width := left + right + len(kinds)*(groupW+groupGap)
	height := top + plotH + bottom

	// The axis spans whole decades around every value.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, q := range kinds {
		for _, v := range []float64{q.Semcat.P50, q.Semcat.P99, q.PG.P50, q.PG.P99} {
			if v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 0.1, 1
	}
	dlo, dhi := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if dhi == dlo {
		dhi++
	}
	y := func(ms float64) float64 {
		ms = math.Max(ms, math.Pow(10, dlo))
		return top + plotH - (math.Log10(ms)-dlo)/(dhi-dlo)*plotH
	}

	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	p(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	p(`<text x="%d" y="22" font-size="15" font-weight="bold">Search latency by query kind — %s entities (top 20 + total, log scale)</text>`+"\n",
		left, html.EscapeString(r.Size))

	colors := []struct{ name, fill string }{
		{"semcat p50", "#1f5fa8"}, {"semcat p99", "#8fb5e0"},
		{"PostgreSQL FTS p50", "#c0392b"}, {"PostgreSQL FTS p99", "#f1a39a"},
	}
	for i, c := range colors {
		x := left + i*170
		p(`<rect x="%d" y="34" width="12" height="12" fill="%s"/><text x="%d" y="45">%s</text>`+"\n", x, c.fill, x+16, c.name)
	}

	// Decade grid lines and labels.
	for d := dlo; d <= dhi; d++ {
		yy := y(math.Pow(10, d))
		p(`<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, width-right, yy, yy)
		p(`<text x="%d" y="%.1f" text-anchor="end">%s ms</text>`+"\n", left-6, yy+4, decadeLabel(d))
	}
	p(`<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>`+"\n", left, left, top, top+plotH)
	p(`<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>`+"\n", left, width-right, top+plotH, top+plotH)

	for i, q := range kinds {
		x0 := left + groupGap/2 + i*(groupW+groupGap)
		for j, v := range []float64{q.Semcat.P50, q.Semcat.P99, q.PG.P50, q.PG.P99} {
			x := x0 + j*(barW+barGap)
			yy := y(v)
			p(`<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="%s"><title>%s %s: %s ms</title></rect>`+"\n",
				x, yy, barW, float64(top+plotH)-yy, colors[j].fill, html.EscapeString(q.Kind), colors[j].name, fmtMs(v))
		}
		cx := x0 + groupW/2
		p(`<text transform="translate(%d,%d) rotate(-35)" text-anchor="end">%s</text>`+"\n",
			cx+4, top+plotH+14, html.EscapeString(q.Kind))
	}
	p("</svg>\n")
	return b.String()
}

func decadeLabel(d float64) string {
	v := math.Pow(10, d)
	if d < 0 {
		return fmt.Sprintf("%g", math.Round(v*1e6)/1e6)
	}
	return fmt.Sprintf("%.0f", v)
}

// writeSVG stores latency-<name>.svg under dir.
func writeSVG(r *Results, dir string) error {
	return os.WriteFile(filepath.Join(dir, "latency-"+r.Name()+".svg"), []byte(latencySVG(r)), 0o644)
}
