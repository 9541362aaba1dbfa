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
	"sort"
	"strings"

	"github.com/windows-aware/windows-aware/internal/synthetic"
)

// mixShare is the share of the pod mix that is of one kind.
func mixShare(kind string) float64 {
	n := 0
	for _, k := range synthetic.Mix {
		if k == kind {
			n++
		}
	}
	return float64(n) / float64(len(synthetic.Mix))
}

func metOrMissed(ok bool) string {
	if ok {
		return "met"
	}
	return "missed"
}

// pct formats a profile share, or says it is missing.
func (r *results) pct(kind, fn string) string {
	if v, ok := r.cum(kind, fn); ok {
		return fmt.Sprintf("%.0f%%", v)
	}
	return "–"
}

// writeFindings explains, from the measured numbers, where the targets are
// met or missed and what in the plugins or the profile causes it.
func writeFindings(m *md, r *results) {
	m.p("## Findings")
	m.nl()
	n := 5000
	if !containsInt(r.sizes(), n) && len(r.sizes()) > 0 {
		n = r.sizes()[len(r.sizes())-1]
	}
	cu := r.costUnit()
	sw := func(pod, approach, unit string) (float64, bool) { return r.med(sweepName(n, pod, approach), unit) }
	fnode := func(plugin, c string) (float64, bool) {
		return r.med(fmt.Sprintf("BenchmarkFilterNode/plugin=%s/case=%s", plugin, c), "ns/op")
	}
	_, hasProfiles := r.profiles["linux"]

	// 1. Allocations.
	if pass, reject, ok := r.allocTargets(); ok {
		m.p("**Allocations on the Filter hot path: %s.** WindowsAware and OSTaintToleration allocate nothing for a node",
			map[bool]string{true: "targets met", false: "targets missed"}[pass <= targetPassAllocs && reject <= targetRejectAllocs])
		m.p("that passes (%g at most over every pod kind and size) and %g for a node they reject: the `*Status`, whose", pass, reject)
		m.p("reasons are preallocated constant slices (`filter.go`, `ostaints.go`).")
		var direct []string
		for _, c := range []string{"pass-os", "pass-build", "reject-os", "reject-build"} {
			if v, ok := fnode("WindowsAware", c); ok {
				direct = append(direct, fmt.Sprintf("%s %s ns", c, num(v, 0)))
			}
		}
		if len(direct) > 0 {
			m.p("Called directly on one node, WindowsAware's Filter takes %s: it reads the OS label first and the", strings.Join(direct, ", "))
			m.p("build label only for a pod that needs a build, and parses no `kernelVersion` where the label is there.")
		}
		m.p("The stock pair allocates more:")
		if v, ok := fnode("TaintToleration", "reject"); ok {
			a, _ := r.med("BenchmarkFilterNode/plugin=TaintToleration/case=reject", "allocs/op")
			m.p("TaintToleration %g allocations (%s ns) for a node it rejects (the filtered-taints slice, the status, and the", a, num(v, 0))
			m.p("arguments of a V(4) log call that are built even when verbosity is 0);")
		}
		if v, ok := fnode("NodeAffinity", "reject"); ok {
			a, _ := r.med("BenchmarkFilterNode/plugin=NodeAffinity/case=reject", "allocs/op")
			m.p("NodeAffinity %g (%s ns) for a build it rejects through required node affinity.", a, num(v, 0))
		}
		m.nl()
	}

	// 2. The plugin-level ratio.
	waMix, okW := sw("mix", "windows-aware", cu)
	stMix, okS := sw("mix", "stock", cu)
	if okW && okS {
		ratio := waMix / stMix
		m.p("**Plugin-level sweep: %.2fx of the stock pair for the pod mix at %s nodes (target ≤ %.1fx, %s).**", ratio, num(float64(n), 0), targetSweepRatio,
			metOrMissed(ratio <= targetSweepRatio))
		var parts []string

		// By kind.
		var within, over []string
		for _, pod := range podSets[:len(podSets)-1] {
			if x, ok := r.sweepRatio(n, pod); ok {
				s := fmt.Sprintf("%s %.2fx", pod, x)
				if x <= targetSweepRatio {
					within = append(within, s)
				} else {
					over = append(over, s)
				}
			}
		}
		if len(within)+len(over) > 0 {
			s := "By pod kind:"
			if len(within) > 0 {
				s += " within the target, " + strings.Join(within, ", ") + ";"
			}
			if len(over) > 0 {
				s += " over it, " + strings.Join(over, ", ") + "."
			}
			parts = append(parts, strings.TrimSuffix(s, ";")+map[bool]string{true: "", false: "."}[len(over) > 0])
		}

		// Linux pods against the budget.
		if lin, ok := sw("linux", "windows-aware", cu); ok {
			share := mixShare("linux")
			rest := waMix - share*lin // what the other kinds add per pod of the mix
			budget := targetSweepRatio*stMix - rest
			s := fmt.Sprintf("Linux pods are %.0f%% of the mix and cost %s µs each, %s µs per pod of the mix: %.2fx of the stock mix by themselves,",
				100*share, num(lin/1e3, 0), num(share*lin/1e3, 0), share*lin/stMix)
			if share*lin > targetSweepRatio*stMix {
				s += fmt.Sprintf(" over the %.1fx budget before any Windows pod is counted.", targetSweepRatio)
			} else {
				s += fmt.Sprintf(" within the %.1fx budget on their own.", targetSweepRatio)
			}
			if budget > 0 {
				perNode := budget / share / float64(n)
				s += fmt.Sprintf(" With the Windows pods as they are (%s µs per pod of the mix), the target needs a Linux pod at %s µs or less: %s ns per node filtered, framework included.",
					num(rest/1e3, 0), num(budget/share/1e3, 0), num(perNode, 0))
			} else {
				s += fmt.Sprintf(" The Windows pods alone already add %s µs per pod of the mix, more than the whole budget.", num(rest/1e3, 0))
			}
			parts = append(parts, s)
		}

		// The floor.
		if fl, ok := sw("mix", "floor", cu); ok {
			parts = append(parts, fmt.Sprintf("The framework around any two plugins costs %s µs per pod of the mix filtered on all %s nodes (`approach=floor`: plugins that do nothing), %.0f%% of the stock sweep.",
				num(fl/1e3, 0), num(float64(n), 0), 100*fl/stMix))
		}

		// Linux anatomy.
		lf, ok1 := sw("linux", "windows-aware", "filter-ns/node")
		ff, ok2 := sw("mix", "floor", "filter-ns/node")
		lfil, _ := sw("linux", "windows-aware", "filtered-nodes/op")
		if ok1 && ok2 {
			s := fmt.Sprintf("A Linux pod is not narrowed (it fits the Linux %.0f%% of the nodes, more than half), so Filter runs on all %s nodes: %s ns per node through the framework, against %s ns for two plugins that do nothing",
				100*poolShare("linux"), num(lfil, 0), num(lf, 0), num(ff, 0))
			if wp, ok := fnode("WindowsAware", "pass-os"); ok {
				wr, _ := fnode("WindowsAware", "reject-os")
				s += fmt.Sprintf(" and %s ns (%s ns to reject a Windows node) for WindowsAware's Filter called again and again on one node", num(wp, 0), num(wr, 0))
			}
			s += "."
			if hasProfiles {
				s += fmt.Sprintf(" The difference is memory, not instructions: the profile puts %s of the CPU in `nodeOS`, the look-up of `kubernetes.io/os` in the node's label map, which in a sweep misses the cache on every node (a map per node, its keys and values elsewhere on the heap); %s in reading the requirements from the cycle state again for every node (`CycleState.Read`, a `sync.Map`); %s in the garbage collector's background marking (the %s allocations per pod are one status per rejected Windows node).",
					r.pct("linux", "windowsaware.nodeOS"), r.pct("linux", "framework.(*CycleState).Read"), r.pct("linux", "runtime.gcBgMarkWorker"),
					r.cell(sweepName(n, "linux", "windows-aware"), "allocs/op", 1, 0))
			}
			parts = append(parts, s)
		}
		if big := r.sizes(); len(big) > 0 && big[len(big)-1] > n {
			b := big[len(big)-1]
			if x, ok := r.sweepRatio(b, "linux"); ok {
				wl, _ := r.med(sweepName(b, "linux", "windows-aware"), "filter-ns/node")
				sl, _ := r.med(sweepName(b, "linux", "stock"), "filter-ns/node")
				parts = append(parts, fmt.Sprintf("At %s nodes the Linux ratio is %.2fx: Filter costs %s ns per node for windows-aware and %s for stock (%s at %s nodes), as the nodes no longer fit in the caches and both approaches wait on memory for each node's labels.",
					num(float64(b), 0), x, num(wl, 0), num(sl, 0), num(lf, 0), num(float64(n), 0)))
			}
		}

		// HostProcess.
		if hp, ok := sw("hostprocess", "windows-aware", "prefilter-ns/op"); ok {
			hpf, _ := sw("hostprocess", "windows-aware", "filtered-nodes/op")
			hps, _ := sw("hostprocess", "stock", "prefilter-ns/op")
			s := fmt.Sprintf("A HostProcess pod fits every Windows node, so PreFilter names %s nodes and costs %s µs (stock: %s µs)", num(hpf, 0), num(hp/1e3, 0), num(hps/1e3, 1))
			if _, ok := r.profiles["hostprocess"]; ok {
				s += fmt.Sprintf(": the walk over the snapshot and a fresh set of the names (`narrow`, %s of the CPU), the framework's copy of that set (`PreFilterResult.Merge`, %s) and the scheduler's look-up of every name in the snapshot (%s)",
					r.pct("hostprocess", "windowsaware.(*WindowsAware).narrow"), r.pct("hostprocess", "framework.(*PreFilterResult).Merge"), r.pct("hostprocess", "plugins.candidates"))
			}
			s += fmt.Sprintf(", before Filter runs on those %s nodes. Filtering all %s instead would cost more (the Linux pod above), so the narrowing pays, but its price grows with the number of names.", num(hpf, 0), num(float64(n), 0))
			parts = append(parts, s)
		}

		// Pods that need a build.
		var pre []string
		for _, pod := range []string{"win2019", "win2022", "win2025", "multi"} {
			if v, ok := sw(pod, "windows-aware", "prefilter-ns/op"); ok {
				f, _ := sw(pod, "windows-aware", "filtered-nodes/op")
				pre = append(pre, fmt.Sprintf("%s %s µs for %s nodes", pod, num(v/1e3, 0), num(f, 0)))
			}
		}
		if len(pre) > 0 {
			s := fmt.Sprintf("Pods that need a build are narrowed to the nodes that run it; PreFilter, the scheduler's handling of the names included: %s.", strings.Join(pre, ", "))
			s19, ok1 := sw("win2019", "windows-aware", "score-ns/node")
			s22, ok2 := sw("win2022", "windows-aware", "score-ns/node")
			st22, _ := sw("win2022", "stock", "score-ns/node")
			fl, _ := sw("mix", "floor", "score-ns/node")
			if ok1 && ok2 {
				s += fmt.Sprintf(" PreScore skips Score when every node that fits has the pod's build and no revision is asked for (2019, 2025, multi): %s ns per scored node, the framework with no plugin left to score (a plugin that scores and does nothing costs %s ns). The 2022 pod is still scored, since 2025 hosts run it too: %s ns per node (stock %s ns)",
					num(s19, 0), num(fl, 0), num(s22, 0), num(st22, 0))
				if _, ok := r.profiles["win2022"]; ok {
					s += fmt.Sprintf(", where `nodeVersion` parses `kernelVersion` on every node for a revision the pod did not ask for (`ParseKernelVersion`, %s of the CPU; all of `Score`, %s)",
						r.pct("win2022", "windows.ParseKernelVersion"), r.pct("win2022", "windowsaware.(*WindowsAware).Score"))
				}
				s += "."
			}
			if hasProfiles {
				if v, ok := r.cum("win2019", "windowsaware.(*WindowsAware).Filter"); ok {
					s += fmt.Sprintf(" Filter then checks every named node again, labels and all (WindowsAware's Filter: %.0f%% of the CPU for the 2019 pod), though PreFilter has just classified each of them.", v)
				}
			}
			parts = append(parts, s)
		}
		for _, s := range parts {
			m.p("- %s", s)
		}
		m.nl()
	}

	// 3. Whole scheduler against the stock profile with selectors.
	p := r.roles()
	if x, ok := r.throughputRatio(p.wa, p.selectors); ok {
		m.p("**Whole scheduler: windows-aware %.2fx of the stock profile with selectors (target ≥ %.1fx, %s).**", x, targetVsSelectors, metOrMissed(x >= targetVsSelectors))
		var parts []string
		fa, okA := r.point(p.wa, "Filter")
		fs, okB := r.point(p.selectors, "Filter")
		if okA && okB {
			s := fmt.Sprintf("Filter takes %s ms per attempt against %s ms.", num(fa, 2), num(fs, 2))
			if o, ok := r.order["windows-aware"]; ok && o["Filter"] != "" {
				first := strings.Split(o["Filter"], ",")
				if len(first) > 2 {
					first = first[:2]
				}
				s += fmt.Sprintf(" The windows-aware profile runs %s first, so a node of the wrong OS or build is rejected before any default filter looks at it,", strings.Join(first, " and "))
			}
			ew, ok1 := r.med(profileName(n, "mix", "windows-aware"), "evaluated-nodes/op")
			es, ok2 := r.med(profileName(n, "mix", "stock"), "evaluated-nodes/op")
			if ok1 && ok2 {
				s += fmt.Sprintf(" and its PreFilter narrows Windows pods to their nodes: in the whole-profile sweep a pod of the mix is evaluated on %s nodes on average, against %s in the stock profile, whose selectors narrow nothing (a stock Windows pod meets every Linux node and is rejected there by TaintToleration and NodeAffinity, with their allocations).",
					num(ew, 0), num(es, 0))
			}
			parts = append(parts, s)
		}
		var ps []string
		for _, pod := range []string{"linux", "win2019", "mix"} {
			a, ok1 := r.med(profileName(n, pod, "windows-aware"), cu)
			b, ok2 := r.med(profileName(n, pod, "stock"), cu)
			if ok1 && ok2 {
				ps = append(ps, fmt.Sprintf("%s %s / %s µs (%.2fx)", pod, num(a/1e3, 0), num(b/1e3, 0), a/b))
			}
		}
		if len(ps) > 0 {
			parts = append(parts, fmt.Sprintf("Whole profiles at %s nodes, one cycle per pod (`BenchmarkProfileSweep`, windows-aware / stock): %s.", num(float64(n), 0), strings.Join(ps, ", ")))
		}
		for _, s := range parts {
			m.p("- %s", s)
		}
		m.nl()
	}

	// 4. Whole scheduler against SchedulingBasic.
	if x, ok := r.throughputRatio(p.wa, p.basic); ok {
		m.p("**Whole scheduler: windows-aware %.2fx of stock SchedulingBasic (target ≥ %.1fx, %s).**", x, targetVsSchedulingBas, metOrMissed(x >= targetVsSchedulingBas))
		var parts []string
		if rb := r.pairedRatios(p.wa, p.basic); len(rb) > 1 && r.perf.files > 1 {
			met := 0
			for _, v := range rb {
				if v >= targetVsSchedulingBas {
					met++
				}
			}
			s := fmt.Sprintf("Round by round: %s.", ratioList(rb))
			switch {
			case met == len(rb):
				s += " Every round meets the target."
			case met == 0:
				s += " No round meets the target."
			default:
				s += fmt.Sprintf(" %d of %d rounds meet the target: the verdict above rests on the median, and a repeat run can come out on the other side of %.1fx. Both workloads are bound by what 2 cores do for kube-apiserver, etcd and the scheduler together, and move with the load on the machine.", met, len(rb), targetVsSchedulingBas)
			}
			parts = append(parts, s)
		}
		ta, _, ok1 := r.throughput(p.wa)
		tb, _, ok2 := r.throughput(p.basic)
		if ok1 && ok2 && ta > 0 && tb > 0 {
			gap := 1000/ta - 1000/tb
			var diffs []string
			sum := 0.0
			for _, pt := range []string{"PreFilter", "Filter", "PreScore", "Score"} {
				a, okA := r.point(p.wa, pt)
				b, okB := r.point(p.basic, pt)
				if okA && okB {
					diffs = append(diffs, fmt.Sprintf("%s %s ms (%s against %s)", pt, signed(a-b), num(a, 3), num(b, 3)))
					sum += a - b
				}
			}
			more := "more"
			if gap < 0 {
				more = "less"
			}
			s := fmt.Sprintf("The scheduler places one pod every %s ms in the windows-aware mix and every %s ms in SchedulingBasic, %s ms %s.",
				num(1000/ta, 2), num(1000/tb, 2), num(max(gap, -gap), 2), more)
			if len(diffs) > 0 {
				s += fmt.Sprintf(" Per attempt, the extension points differ by %s ms in all (windows-aware minus SchedulingBasic): %s.", signed(sum), strings.Join(diffs, ", "))
			}
			parts = append(parts, s)
		}
		if a, _, ok := r.perf.value(p.wa, pluginKey("PreFilter", "WindowsAware"), "Average"); ok {
			p50, _, _ := r.perf.value(p.wa, pluginKey("PreFilter", "WindowsAware"), "Perc50")
			p99, _, _ := r.perf.value(p.wa, pluginKey("PreFilter", "WindowsAware"), "Perc99")
			s := fmt.Sprintf("PreFilter: WindowsAware's takes %s µs per call on average, but %s µs at the median and %s ms at the 99th percentile: a tail.",
				num(a*1000, 0), num(p50*1000, 0), num(p99, 2))
			if heap, _, ok := r.perf.value(p.wa, "Metric=heap_memory_usage", "Average"); ok {
				s += fmt.Sprintf(" For each Windows pod, narrowing allocates a set of the fitting names, and the framework a copy of it, on a heap of %s MB on average (kube-apiserver runs in the same process), so these calls are charged mark assists whenever the garbage collector runs, and they share 2 cores with kube-apiserver and etcd.", num(heap, 0))
			}
			var kinds []string
			for _, pod := range []string{"win2019", "hostprocess"} {
				if v, ok := sw(pod, "windows-aware", "prefilter-ns/op"); ok {
					kinds = append(kinds, fmt.Sprintf("%s %s µs", pod, num(v/1e3, 0)))
				}
			}
			if len(kinds) > 0 {
				s += fmt.Sprintf(" At plugin level, on a quiet heap, the same PreFilter with the scheduler's handling of its names costs %s.", strings.Join(kinds, ", "))
			}
			parts = append(parts, s)
		}
		if el, ok := r.med(profileName(n, "linux", "windows-aware"), "evaluated-nodes/op"); ok {
			s := fmt.Sprintf("Filter: a Linux pod of the mix (half of them) is evaluated on %s nodes to find the %s it scores, since 30%% of the nodes are Windows; SchedulingBasic's pods fit every node.",
				num(el, 0), num(float64(numFeasibleNodesToFind(n)), 0))
			wf, _, ok1 := r.perf.value(p.wa, pluginKey("Filter", "WindowsAware"), "Average")
			of, _, ok2 := r.perf.value(p.wa, pluginKey("Filter", "OSTaintToleration"), "Average")
			nf, _, ok3 := r.perf.value(p.wa, pluginKey("Filter", "NodeResourcesFit"), "Average")
			if ok1 && ok2 && ok3 {
				s += fmt.Sprintf(" And every evaluated node runs WindowsAware and OSTaintToleration before the default filters: %s and %s µs per node in the scheduler's samples (wall time, the timing itself included; NodeResourcesFit %s µs). WindowsAware runs first, so it is the plugin that waits for each node's labels to come into the cache, which is where its time goes at plugin level (see the profiles).",
					num(wf*1000, 2), num(of*1000, 2), num(nf*1000, 2))
			}
			parts = append(parts, s)
		}
		parts = append(parts, "The comparison is not like for like: SchedulingBasic's pods are one-container pods of one image, the mix's carry init containers, several containers and HostProcess security contexts, which cost kube-apiserver and etcd more per pod on the same 2 cores; this run does not measure that share separately.")
		for _, s := range parts {
			m.p("- %s", s)
		}
		m.nl()
	}

	writeSuggestions(m, r, n)
}

// poolShare is the share of the cluster's nodes in a pool.
func poolShare(pool string) float64 {
	total, in := 0, 0
	for _, p := range synthetic.Pools {
		total += p.Slots
		if p.Name == pool {
			in += p.Slots
		}
	}
	if total == 0 {
		return 0
	}
	return float64(in) / float64(total)
}

// point is an extension point's average duration per attempt, in ms.
func (r *results) point(workload, point string) (float64, bool) {
	v, _, ok := r.perf.value(workload, "Metric=scheduler_framework_extension_point_duration_seconds,extension_point="+point, "Average")
	return v, ok
}

func pluginKey(point, plugin string) string {
	return fmt.Sprintf("Metric=scheduler_plugin_execution_duration_seconds,extension_point=%s,plugin=%s", point, plugin)
}

// writeSuggestions lists the changes to the plugins the numbers point at,
// largest first.
func writeSuggestions(m *md, r *results, n int) {
	type suggestion struct {
		weight float64 // share of the CPU it addresses, for the order
		text   []string
	}
	var ss []suggestion
	sw := func(pod, approach, unit string) (float64, bool) { return r.med(sweepName(n, pod, approach), unit) }

	if v, ok := r.cum("linux", "windowsaware.nodeOS"); ok {
		lf, _ := sw("linux", "windows-aware", "filter-ns/node")
		ff, _ := sw("mix", "floor", "filter-ns/node")
		ss = append(ss, suggestion{v, []string{
			"`pkg/plugins/windowsaware/filter.go` `Filter`, with `narrow.go`: decide by node class, not by labels. `narrow`",
			"already puts every node of the snapshot in a class (OS, build) and works out one verdict per class, but only for",
			"Windows pods, and Filter reads each node's labels again regardless: `nodeOS` is " + fmt.Sprintf("%.0f%%", v) + " of the CPU of a Linux pod's",
			fmt.Sprintf("sweep (%s ns per node filtered against %s for the floor), and WindowsAware's Filter re-checks every node that", num(lf, 0), num(ff, 0)),
			"narrowing named. Keep with the classes an index from node object to class (a `map[*v1.Node]int32`, replaced",
			"whole when a node changes, since Filter runs on 16 goroutines at once), work out the class verdicts in PreFilter for",
			"every pod, Linux pods included, and let Filter look the node up there, falling back to the labels for a node it does",
			"not know (a nominated node, a node added since). One pointer-keyed map of 5,000 entries stays in the cache; 5,000",
			"label maps do not. Not measured here; it is the largest share left for a Linux pod.",
		}})
	}
	if v, ok := r.cum("linux", "framework.(*CycleState).Read"); ok {
		ss = append(ss, suggestion{v, []string{
			fmt.Sprintf("`filter.go` `readRequirements`: %.0f%% of a Linux pod's sweep is `CycleState.Read`, a `sync.Map` look-up keyed by", v),
			"an interface, once per node (and again in OSTaintToleration on tainted nodes). Keep the last (cycle state,",
			"requirements) pair in an `atomic.Pointer` on the plugin and compare the state pointer first; fall back to `Read`",
			"when it differs (preemption clones the state). The pair keeps the old state alive, so its address cannot be reused.",
		}})
	}
	hn, ok1 := r.cum("hostprocess", "windowsaware.(*WindowsAware).narrow")
	hm, ok2 := r.cum("hostprocess", "framework.(*PreFilterResult).Merge")
	if ok1 && ok2 {
		gc := r.pct("win2019", "runtime.gcBgMarkWorker")
		ss = append(ss, suggestion{hn, []string{
			fmt.Sprintf("`narrow.go`: PreFilter still walks every node of the snapshot and builds a new set of names for every Windows pod (`narrow`: %.0f%% of a", hn),
			fmt.Sprintf("HostProcess pod's sweep), which the framework then copies (`PreFilterResult.Merge`: %.0f%%). Pods of the same requirements get", hm),
			"the same class verdicts; keep the set built for a verdict vector and hand it out again while no node of the snapshot",
			"changed (a generation bumped when an entry is replaced). That removes the plugin's half of PreFilter's allocations,",
			fmt.Sprintf("which also feed the garbage collector (%s of a 2019 pod's sweep) and, in the scheduler, its mark assists on a heap", gc),
			"of about 1 GB (see the tail of WindowsAware's PreFilter above); the framework's copy stays.",
		}})
	}
	if v, ok := r.cum("win2022", "windows.ParseKernelVersion"); ok {
		ss = append(ss, suggestion{v, []string{
			"`score.go` `buildScore`: it calls `nodeVersion`, which parses `status.nodeInfo.kernelVersion` on every scored node,",
			"although the revision is read only when `r.target.HasRevision`. Call `nodeBuild` when no revision is asked for",
			fmt.Sprintf("(every pod here): `ParseKernelVersion` is %.1f%% of the 2022 pod's sweep, the one kind still scored.", v),
		}})
	}
	if len(ss) == 0 {
		return
	}
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].weight > ss[j].weight })
	m.p("**What to change** (pkg/ belongs to the lead engineer; these are suggestions, in the order of the CPU share they")
	m.p("address in the profiles above):")
	m.nl()
	for i, s := range ss {
		for j, line := range s.text {
			if j == 0 {
				m.p("%d. %s", i+1, line)
			} else {
				m.p("   %s", line)
			}
		}
	}
	m.nl()
}

// numFeasibleNodesToFind is the scheduler's: how many feasible nodes it
// looks for among n (the default adaptive percentageOfNodesToScore).
func numFeasibleNodesToFind(n int) int {
	const minFeasibleNodesToFind, minPercentage, basePercentage = 100, 5, 50
	if n < minFeasibleNodesToFind {
		return n
	}
	pct := max(basePercentage-n/125, minPercentage)
	return max(n*pct/100, minFeasibleNodesToFind)
}

// signed formats a difference in ms with its sign, and no "-0.00".
func signed(d float64) string {
	if d > -0.005 && d < 0.005 {
		return "±0.00"
	}
	return fmt.Sprintf("%+.2f", d)
}
