package main

import (
	"fmt"
	"strings"
)

// writeFindings explains, from the measured numbers, where the targets are
// missed and what in the plugins or the profile causes it.
func writeFindings(m *md, r *results) {
	m.p("## Findings")
	m.nl()
	n := 5000
	if !containsInt(r.sizes(), n) && len(r.sizes()) > 0 {
		n = r.sizes()[len(r.sizes())-1]
	}
	wa, st, fl := sweepName(n, "mix", "windows-aware"), sweepName(n, "mix", "stock"), sweepName(n, "mix", "floor")
	cu := r.costUnit()
	waNs, okW := r.med(wa, cu)
	stNs, okS := r.med(st, cu)
	flNs, okF := r.med(fl, cu)
	fnode := func(plugin, c string) (float64, bool) {
		return r.med(fmt.Sprintf("BenchmarkFilterNode/plugin=%s/case=%s", plugin, c), "ns/op")
	}

	// 1. Allocations.
	if pass, reject, ok := r.allocTargets(); ok {
		m.p("**Allocations on the Filter hot path: %s.** WindowsAware and OSTaintToleration allocate nothing for a node", map[bool]string{true: "targets met", false: "targets missed"}[pass <= targetPassAllocs && reject <= targetRejectAllocs])
		m.p("that passes (%g at most over every pod kind and size) and %g for a node they reject: the `*Status`, whose", pass, reject)
		m.p("reasons are preallocated constant slices (`filter.go`, `ostaints.go`). The stock pair allocates more:")
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
	if okW && okS {
		ratio := waNs / stNs
		m.p("**Plugin-level sweep: %.2fx of the stock pair for the pod mix at %s nodes (target ≤ %.1fx, %s).**", ratio, num(float64(n), 0), targetSweepRatio,
			map[bool]string{true: "met", false: "missed"}[ratio <= targetSweepRatio])
		var parts []string
		if okF {
			parts = append(parts, fmt.Sprintf("The framework around any two plugins costs %s µs per pod here (`approach=floor`: plugins that do nothing), %.0f%% of the stock sweep, so a 0.2x target leaves the plugins themselves %s µs per pod for %s nodes.",
				num(flNs/1e3, 0), 100*flNs/stNs, num(max(0, 0.2*stNs-flNs)/1e3, 0), num(float64(n), 0)))
		}
		if f19, ok := r.med(sweepName(n, "win2019", "windows-aware"), "filtered-nodes/op"); ok {
			fl, _ := r.med(sweepName(n, "linux", "windows-aware"), "filtered-nodes/op")
			parts = append(parts, fmt.Sprintf("WindowsAware's PreFilter names the nodes a Windows pod fits (a `PreFilterResult`, from node facts cached across cycles), so the scheduler runs Filter on %s nodes for a 2019 pod instead of %s; Linux pods are not narrowed (%s nodes filtered) and make up half of the mix.",
				num(f19, 0), num(float64(n), 0), num(fl, 0)))
		}
		if lr, ok := r.sweepRatio(n, "linux"); ok {
			wp, _ := fnode("WindowsAware", "pass-os")
			wr, _ := fnode("WindowsAware", "reject-os")
			na, _ := fnode("NodeAffinity", "pass-selector-only")
			tu, _ := fnode("TaintToleration", "pass-untainted")
			tt, _ := fnode("TaintToleration", "reject")
			parts = append(parts, fmt.Sprintf("For a Linux pod windows-aware costs %.2fx of the stock pair. Called directly, WindowsAware's Filter takes %s ns on a Linux node and %s ns on a Windows node; the stock pair takes %s ns (TaintToleration on an untainted node, %s ns, then NodeAffinity's selector, %s ns) on a Linux node and %s ns to reject a Windows node. WindowsAware's `rejection` reads every fact of the node (`factsOf`: the OS label, the build label and a parse of `kernelVersion`) before it checks the OS, although a pod that needs no build (Linux, HostProcess) or a node of the wrong OS needs only the OS label; in a sweep each extra read is a cache miss on another node's label map.",
				lr, num(wp, 0), num(wr, 0), num(tu+na, 0), num(tu, 0), num(na, 0), num(tt, 0)))
		}
		// Score: windows-aware scores pods the stock user would not write a preference for.
		w19s, ok1 := r.med(sweepName(n, "win2019", "windows-aware"), "score-ns/node")
		s19s, ok2 := r.med(sweepName(n, "win2019", "stock"), "score-ns/node")
		if ok1 && ok2 {
			sc19, _ := r.med(sweepName(n, "win2019", "windows-aware"), "scored-nodes/op")
			parts = append(parts, fmt.Sprintf("Score costs windows-aware %s ns per scored node (%s nodes) for a 2019 pod against %s ns for the stock pod, whose user wrote no preference (only one build runs it) so that NodeAffinity's PreScore skips: WindowsAware's PreScore lets Score run whenever the pod names a build, although every feasible node then has the same build and the normalized scores are all equal.",
				num(w19s, 0), num(sc19, 0), num(s19s, 0)))
		}
		var pre []string
		for _, pod := range []string{"linux", "win2019", "multi", "hostprocess"} {
			if v, ok := r.med(sweepName(n, pod, "windows-aware"), "prefilter-ns/op"); ok {
				sv, _ := r.med(sweepName(n, pod, "stock"), "prefilter-ns/op")
				pre = append(pre, fmt.Sprintf("%s %s µs (stock %s µs)", pod, num(v/1e3, 1), num(sv/1e3, 1)))
			}
		}
		if len(pre) > 0 {
			parts = append(parts, fmt.Sprintf("PreFilter, once per pod: %s. WindowsAware parses every image reference with distribution/reference's regular expressions, and for a Windows pod `narrow` walks every node of the snapshot (5,000 checks on cached facts under a mutex) and builds a set of the fitting names, which the scheduler then looks up one by one: the narrowing saves the Filter sweep but costs a pass over the whole cluster per Windows pod.", strings.Join(pre, ", ")))
		}
		for _, s := range parts {
			m.p("- %s", s)
		}
		m.nl()
	}

	// 3. Whole scheduler.
	p := r.roles()
	if x, ok := r.throughputRatio(p.wa, p.selectors); ok {
		m.p("**Whole scheduler: windows-aware %.2fx of the stock profile with selectors (target ≥ %.1fx, %s).**", x, targetVsSelectors,
			map[bool]string{true: "met", false: "missed"}[x >= targetVsSelectors])
		var parts []string
		if o, ok := r.order["windows-aware"]; ok && o["Filter"] != "" {
			parts = append(parts, fmt.Sprintf("**The shipped profile runs WindowsAware's and OSTaintToleration's Filter last** (%s). MultiPoint plugins added to the defaults are appended after them, so a node of the wrong OS or build goes through NodeResourcesFit, the volume filters, PodTopologySpread, InterPodAffinity and DynamicResources before WindowsAware rejects it; in the stock profile TaintToleration and NodeAffinity are 3rd and 4th. Since PreFilter narrows Windows pods to the nodes they fit, this costs mostly Linux pods, on the Windows nodes they meet before the scheduler has its 500 feasible nodes.",
				strings.ReplaceAll(o["Filter"], ",", " → ")))
		}
		wa19, ok1 := r.med(profileName(n, "win2019", "windows-aware"), cu)
		st19, ok3 := r.med(profileName(n, "win2019", "stock"), cu)
		wam, _ := r.med(profileName(n, "mix", "windows-aware"), cu)
		stm, _ := r.med(profileName(n, "mix", "stock"), cu)
		if ok1 && ok3 {
			parts = append(parts, fmt.Sprintf("Whole profiles at %s nodes, one cycle per pod (`BenchmarkProfileSweep`): a 2019 pod costs %s µs in the windows-aware profile, %s µs in the stock profile; the mix %s / %s µs (%.2fx of stock).",
				num(float64(n), 0), num(wa19/1e3, 0), num(st19/1e3, 0), num(wam/1e3, 0), num(stm/1e3, 0), wam/stm))
		}
		bindWA, _, okB := r.perf.value(p.wa, "Metric=scheduler_framework_extension_point_duration_seconds,extension_point=Bind", "Average")
		filtWA, _, okF2 := r.perf.value(p.wa, "Metric=scheduler_framework_extension_point_duration_seconds,extension_point=Filter", "Average")
		if okB && okF2 {
			parts = append(parts, fmt.Sprintf("Even with the cheapest filters, the scheduler's own CPU is not all of the cost: binding took %s ms per pod on average against %s ms of Filter, with kube-apiserver, etcd, the pod creators and the scheduler sharing %s cores. Throughput therefore moves less than the plugin-level cost does, and a 1.2x gain over the stock profile needs the CPU the scheduler saves to be a large share of the whole.",
				num(bindWA, 1), num(filtWA, 2), r.meta["nproc"]))
		}
		for _, s := range parts {
			m.p("- %s", s)
		}
		m.nl()
	}
	if x, ok := r.throughputRatio(p.wa, p.basic); ok {
		m.p("**Whole scheduler: windows-aware %.2fx of stock SchedulingBasic (target ≥ %.1fx, %s).** SchedulingBasic's pods fit",
			x, targetVsSchedulingBas, map[bool]string{true: "met", false: "missed"}[x >= targetVsSchedulingBas])
		m.p("any node and name one image: the scheduler stops filtering after the first 500 feasible nodes, no plugin of")
		m.p("note runs in PreFilter, and nothing is narrowed. A pod of the mix costs more whatever the profile: a Linux pod")
		m.p("meets Windows nodes before it has 500 feasible ones (714 evaluated), and a Windows pod pays WindowsAware's")
		m.p("PreFilter (image parsing and the walk over all nodes, see above) before the scheduler filters its nodes.")
		if a, _, ok1 := r.perf.value(p.wa, "Metric=scheduler_framework_extension_point_duration_seconds,extension_point=PreFilter", "Average"); ok1 {
			if b, _, ok2 := r.perf.value(p.basic, "Metric=scheduler_framework_extension_point_duration_seconds,extension_point=PreFilter", "Average"); ok2 {
				m.p("Measured: PreFilter %s ms per attempt for the windows-aware mix against %s ms for SchedulingBasic.", num(a, 3), num(b, 3))
			}
		}
		m.nl()
	}

	m.p("**What to change** (pkg/ and manifests/ belong to the lead engineer; these are suggestions, measured where possible):")
	m.nl()
	m.p("1. `manifests/scheduler-config.yaml` (and `manifests/beside/`): name the plugins at PreFilter and Filter as well, so")
	m.p("   that the framework runs them before the default filters (plugins named at an extension point come first):")
	m.p("   ```yaml")
	m.p("   preFilter:")
	m.p("     enabled:")
	m.p("       - name: WindowsAware")
	m.p("   filter:")
	m.p("     enabled:")
	m.p("       - name: WindowsAware")
	m.p("       - name: OSTaintToleration")
	m.p("     disabled:")
	m.p("       - name: TaintToleration")
	m.p("   ```")
	m.p("   This is `test/bench/perf/config/scheduler-config-filter-first.yaml`, measured above as `windows-aware-filter-first`")
	m.p("   and `WindowsMixFilterFirst`. Narrowed Windows pods gain nothing from it (every node left fits); Linux pods and pods")
	m.p("   that fit more than half of the nodes (not narrowed) stop paying NodeResourcesFit and the other filters on nodes")
	m.p("   of the wrong OS.")
	m.p("2. `pkg/plugins/windowsaware/filter.go` `rejection` and `node.go` `factsOf`/`nodeVersion`: check the OS label first")
	m.p("   and read the build only when the pod needs one and the OS matches; in `nodeVersion` read the build label first and")
	m.p("   parse `status.nodeInfo.kernelVersion` only when the label is missing or the revision is wanted (Score). Filter now")
	m.p("   parses the kernel version of every node for every pod, Linux pods included.")
	m.p("3. `pkg/plugins/windowsaware/score.go` `PreScore`: return Skip when the pod's target has no revision and every node")
	m.p("   in `nodes` reports the target build (the 2019, 2025 and multi pods here); the scores would all be equal and")
	m.p("   NormalizeScore maps them to 0, while the framework still calls Score on every scored node.")
	m.p("4. `pkg/plugins/windowsaware/requirements.go` `isHostProcess`: `append(slices.Clip(InitContainers), Containers...)`")
	m.p("   copies every container (a `v1.Container` is several hundred bytes) into a new slice, and `requirementsOf` calls it")
	m.p("   up to twice per pod (and `SignPod` once more); two plain loops allocate nothing.")
	m.p("5. `pkg/plugins/windowsaware/narrow.go`: keep, next to the cached facts, the node names per (OS, build) and rebuild")
	m.p("   them only when a node's object changes; a pod's candidates are then the union of the few matching groups,")
	m.p("   not a walk over every node, and pods of the same requirements (most of a mix) could share one result.")
	m.p("6. PreFilter parses every image reference with distribution/reference's regular expressions on every cycle; a small")
	m.p("   cache of reference → `windows.Image` (bounded, keyed by the string) would make it a map lookup for the")
	m.p("   common case of many pods of few images.")
	m.nl()
}
