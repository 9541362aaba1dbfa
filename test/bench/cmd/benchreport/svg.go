/*
Copyright The windows-aware Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"fmt"
	"math"
	"strings"
)

// series is one line of the chart: a value per node count, with the
// smallest and largest run.
type series struct {
	label, color string
	dashed       bool
	points       []point
}

type point struct{ x, y, lo, hi float64 }

// costChart draws per-pod cost (µs) against node count, windows-aware
// against the stock equivalent, as SVG.
func costChart(r *results) string {
	sizes := r.sizes()
	mk := func(label, color string, dashed bool, pod, approach string) series {
		s := series{label: label, color: color, dashed: dashed}
		for _, n := range sizes {
			name := sweepName(n, pod, approach)
			v, ok := r.plugins.median(name, r.costUnit())
			if !ok {
				continue
			}
			lo, hi := r.plugins.spread(name, r.costUnit())
			s.points = append(s.points, point{float64(n), v / 1e3, lo / 1e3, hi / 1e3})
		}
		return s
	}
	all := []series{
		mk("windows-aware, pod mix", "#1f77b4", false, "mix", "windows-aware"),
		mk("stock (NodeAffinity + TaintToleration), pod mix", "#d62728", false, "mix", "stock"),
		mk("windows-aware, Windows 2019 pod", "#1f77b4", true, "win2019", "windows-aware"),
		mk("stock, Windows 2019 pod", "#d62728", true, "win2019", "stock"),
		mk("framework floor (no-op plugins), pod mix", "#7f7f7f", false, "mix", "floor"),
	}
	var ss []series
	for _, s := range all {
		if len(s.points) > 0 {
			ss = append(ss, s)
		}
	}

	const W, H = 760.0, 460.0
	const left, right, top, bottom = 80.0, 30.0, 56.0, 150.0
	pw, ph := W-left-right, H-top-bottom
	xmax, ymax := 0.0, 0.0
	for _, s := range ss {
		for _, p := range s.points {
			xmax, ymax = math.Max(xmax, p.x), math.Max(ymax, p.hi)
		}
	}
	if xmax == 0 {
		xmax = 1
	}
	if ymax == 0 {
		ymax = 1
	}
	xmax = niceCeil(xmax * 1.05)
	ymax = niceCeil(ymax * 1.1)
	px := func(x float64) float64 { return left + x/xmax*pw }
	py := func(y float64) float64 { return top + ph - y/ymax*ph }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="Helvetica, Arial, sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="22" font-size="15" font-weight="bold">Per-pod cost of placing by OS and Windows build</text>`+"\n", left)
	fmt.Fprintf(&b, `<text x="%.0f" y="40" fill="#555">%s time per pod (PreFilter, Filter, Score); median of %s rounds, bars: min–max</text>`+"\n", left, r.costLabel(), r.meta["bench_count"])

	// Grid and ticks.
	for _, t := range ticks(ymax) {
		y := py(t)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", left, y, left+pw, y)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end" fill="#333">%s</text>`+"\n", left-6, y+4, num(t, 0))
	}
	for _, n := range sizes {
		x := px(float64(n))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", x, top, x, top+ph)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#333">%s</text>`+"\n", x, top+ph+16, num(float64(n), 0))
	}
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`+"\n", left, top+ph, left+pw, top+ph)
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`+"\n", left, top, left, top+ph)
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#333">nodes in the cluster</text>`+"\n", left+pw/2, top+ph+34)
	fmt.Fprintf(&b, `<text transform="translate(%.1f,%.1f) rotate(-90)" text-anchor="middle" fill="#333">%s µs per pod</text>`+"\n", 22.0, top+ph/2, r.costLabel())

	for _, s := range ss {
		var pts []string
		for _, p := range s.points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(p.x), py(p.y)))
		}
		dash := ""
		if s.dashed {
			dash = ` stroke-dasharray="6,4"`
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", strings.Join(pts, " "), s.color, dash)
		for _, p := range s.points {
			x := px(p.x)
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", x, py(p.lo), x, py(p.hi), s.color)
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/>`+"\n", x, py(p.y), s.color)
		}
	}
	// Ratio labels for the mix.
	for _, n := range sizes {
		if ratio, ok := r.sweepRatio(n, "mix"); ok {
			wa, _ := r.plugins.median(sweepName(n, "mix", "windows-aware"), r.costUnit())
			st, _ := r.plugins.median(sweepName(n, "mix", "stock"), r.costUnit())
			y := py(math.Max(wa, st)/1e3) - 10
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#000" font-weight="bold">%.2fx</text>`+"\n", px(float64(n)), y, ratio)
		}
	}
	// Legend.
	ly := top + ph + 56
	for i, s := range ss {
		x := left + float64(i%2)*330
		y := ly + float64(i/2)*18
		dash := ""
		if s.dashed {
			dash = ` stroke-dasharray="6,4"`
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/>`+"\n", x, y-4, x+28, y-4, s.color, dash)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="#333">%s</text>`+"\n", x+34, y, s.label)
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="#555">Labels: windows-aware / stock for the pod mix (target ≤ 0.2x). %s, %s cores.</text>`+"\n", left, H-12, escape(r.meta["cpu"]), r.meta["nproc"])
	b.WriteString("</svg>\n")
	return b.String()
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// niceCeil rounds up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func ticks(max float64) []float64 {
	step := niceCeil(max / 6)
	var out []float64
	for t := 0.0; t <= max+step/1000; t += step {
		out = append(out, t)
	}
	return out
}
