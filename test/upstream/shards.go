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

package upstream

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// Shards split the packages between processes that run side by side
// (make test-upstream runs several): each of upstream's workloads starts
// an etcd and an API server of its own and spends most of its few seconds
// starting and stopping them, which leaves a core idle most of the time.

// shard is one of n parts of the packages: index counts from 1.
type shard struct{ index, of int }

// parseShard reads "i/n", 1 ≤ i ≤ n.
func parseShard(s string) (shard, error) {
	i, n, ok := strings.Cut(s, "/")
	if ok {
		sh := shard{}
		var err1, err2 error
		sh.index, err1 = strconv.Atoi(i)
		sh.of, err2 = strconv.Atoi(n)
		if err1 == nil && err2 == nil && sh.of >= 1 && sh.index >= 1 && sh.index <= sh.of {
			return sh, nil
		}
	}
	return shard{}, fmt.Errorf("-shard %q: want i/n with 1 ≤ i ≤ n, such as 2/3", s)
}

// split divides packages into n shards: the packages by weight, heaviest
// first, each to the lightest shard so far (ties to the lowest index), so
// that the shards take about as long as each other. Every process works
// out the same split; each shard's packages are sorted.
func split(packages []string, weight func(pkg string) int, n int) [][]string {
	byWeight := slices.Clone(packages)
	slices.SortStableFunc(byWeight, func(a, b string) int {
		return cmp.Or(cmp.Compare(weight(b), weight(a)), cmp.Compare(a, b))
	})
	shards := make([][]string, n)
	load := make([]int, n)
	for _, pkg := range byWeight {
		lightest := 0
		for i := range load {
			if load[i] < load[lightest] {
				lightest = i
			}
		}
		load[lightest] += weight(pkg)
		shards[lightest] = append(shards[lightest], pkg)
	}
	for _, s := range shards {
		slices.Sort(s)
	}
	return shards
}

// selectedWorkloads counts the workloads of a package's test cases that
// the label filter selects: the weight of the package in a split, as each
// workload costs a cluster's start and stop.
func selectedWorkloads(dir, labelFilter string) (int, error) {
	data, err := os.ReadFile(filepath.Join(dir, workloadsFile))
	if err != nil {
		return 0, err
	}
	var testCases []struct {
		Labels    []string `json:"labels"`
		Workloads []struct {
			Labels []string `json:"labels"`
		} `json:"workloads"`
	}
	if err := yaml.Unmarshal(data, &testCases); err != nil {
		return 0, fmt.Errorf("%s: %w", filepath.Join(dir, workloadsFile), err)
	}
	filter := strings.Split(labelFilter, ",")
	n := 0
	for _, tc := range testCases {
		for _, w := range tc.Workloads {
			if selects(filter, append(slices.Clone(tc.Labels), w.Labels...)) {
				n++
			}
		}
	}
	return n, nil
}

// selects is the harness's label filter, which it does not export: every
// label named plain or with "+" present, every label named with "-"
// absent.
func selects(filter, labels []string) bool {
	for _, f := range filter {
		if f == "" {
			continue
		}
		want := f[0] != '-'
		if f[0] == '-' || f[0] == '+' {
			f = f[1:]
		}
		if slices.Contains(labels, f) != want {
			return false
		}
	}
	return true
}

// packagesOf returns the packages of t in shard sh, weighed by the
// workloads labelFilter selects in each.
func (t *tree) packagesOf(sh shard, labelFilter string) ([]string, error) {
	if sh.of == 1 {
		return t.packages, nil
	}
	weights := map[string]int{}
	for _, pkg := range t.packages {
		n, err := selectedWorkloads(filepath.Join(t.root, filepath.FromSlash(pkg)), labelFilter)
		if err != nil {
			return nil, err
		}
		weights[pkg] = n
	}
	return split(t.packages, func(pkg string) int { return weights[pkg] }, sh.of)[sh.index-1], nil
}
