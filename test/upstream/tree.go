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
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	kubeschedulerconfigv1 "k8s.io/kube-scheduler/config/v1"
)

// perfDir is where upstream keeps scheduler_perf in its module.
const perfDir = "test/integration/scheduler_perf"

// workloadsFile is the name of every scheduler_perf package's test cases.
const workloadsFile = "performance-config.yaml"

// The variants a workload runs in.
const (
	// Stock is the workload as upstream wrote it.
	Stock = "stock"
	// WindowsAware is the workload with the plugins added.
	WindowsAware = "windows-aware"
)

// moduleDir is the directory of the k8s.io/kubernetes module the build
// uses, as the go command resolves it (GOFLAGS, such as another minor's
// -modfile, included).
func moduleDir() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/kubernetes").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return "", fmt.Errorf("go list -m k8s.io/kubernetes: %v: %s", err, ee.Stderr)
		}
		return "", fmt.Errorf("go list -m k8s.io/kubernetes: %w", err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return "", fmt.Errorf("go list -m k8s.io/kubernetes: module not downloaded")
	}
	return dir, nil
}

// tree is a writable copy of upstream's scheduler_perf directory, every
// file but the Go sources: test cases name templates by paths relative to
// their own package's directory (templates/, ../templates/,
// ../../templates/), so each package runs from its place in the copy.
type tree struct {
	// source is scheduler_perf in the module cache, read-only.
	source string
	// root is the copy.
	root string
	// packages are the directories, relative to root, with test cases.
	packages []string
	// profiles are the scheduler names pod templates set, besides the
	// default one.
	profiles []string
}

// copyTree copies source's non-Go files into a new directory under tmp.
func copyTree(source, tmp string) (*tree, error) {
	root, err := os.MkdirTemp(tmp, "scheduler_perf-")
	if err != nil {
		return nil, err
	}
	t := &tree{source: source, root: root}
	err = filepath.WalkDir(source, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(source, path)
		if err != nil {
			return err
		}
		dst := filepath.Join(root, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if strings.HasSuffix(path, ".go") || !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if d.Name() == workloadsFile {
			t.packages = append(t.packages, filepath.ToSlash(filepath.Dir(rel)))
		} else if strings.HasSuffix(path, ".yaml") {
			t.profiles = append(t.profiles, schedulerNames(data)...)
		}
		// The module cache is read-only; the copy must not be, so that
		// it can be removed and the rewritten files written beside it.
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	slices.Sort(t.packages)
	slices.Sort(t.profiles)
	t.profiles = slices.Compact(t.profiles)
	return t, nil
}

var schedulerNameRE = regexp.MustCompile(`(?m)^\s*schedulerName:\s*["']?([^"'\s#]+)`)

// schedulerNames are the schedulerName values of a pod template. A
// KubeSchedulerConfiguration names its profiles the same way: those are
// not pods' and are left out.
func schedulerNames(data []byte) []string {
	if bytes.Contains(data, []byte("kind: KubeSchedulerConfiguration")) {
		return nil
	}
	var names []string
	for _, m := range schedulerNameRE.FindAllSubmatch(data, -1) {
		if name := string(m[1]); name != defaultProfile {
			names = append(names, name)
		}
	}
	return names
}

// prepare writes, in package pkg's directory of the copy, the test cases
// of variant and the scheduler configurations they name, and returns the
// test cases' file name, relative to that directory.
func (t *tree) prepare(pkg, variant string, ours *kubeschedulerconfigv1.KubeSchedulerProfile, thresholds bool) (string, error) {
	dir := filepath.Join(t.root, filepath.FromSlash(pkg))
	data, err := os.ReadFile(filepath.Join(dir, workloadsFile))
	if err != nil {
		return "", err
	}
	written := map[string]string{}
	configFor := func(own string) (string, error) {
		if variant == Stock {
			return own, nil
		}
		if path, ok := written[own]; ok {
			return path, nil
		}
		var in []byte
		name := "scheduler-config." + variant + ".yaml"
		if own != "" {
			// The harness reads the path relative to the package's
			// directory, where it runs.
			if in, err = os.ReadFile(filepath.Join(dir, own)); err != nil {
				return "", err
			}
			name = strings.TrimSuffix(filepath.Base(own), ".yaml") + "." + variant + ".yaml"
		}
		out, err := withPlugins(in, ours, t.profiles)
		if err != nil {
			return "", fmt.Errorf("%s: %w", own, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), out, 0o644); err != nil {
			return "", err
		}
		written[own] = name
		return name, nil
	}
	out, err := rewriteTestCases(data, configFor, thresholds)
	if err != nil {
		return "", fmt.Errorf("%s/%s: %w", pkg, workloadsFile, err)
	}
	name := strings.TrimSuffix(workloadsFile, ".yaml") + "." + variant + ".yaml"
	return name, os.WriteFile(filepath.Join(dir, name), out, 0o644)
}
