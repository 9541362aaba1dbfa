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

package controlplane

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Module is the path of the module whose root RepoRoot finds.
const Module = "github.com/windows-aware/windows-aware"

// Tool names, as hack/build-tools.sh writes them into bin/tools.
const (
	Etcd              = "etcd"
	KubeAPIServer     = "kube-apiserver"
	ControllerManager = "kube-controller-manager"
	// DemoControllers is the demo's subset of kube-controller-manager.
	DemoControllers = "demo-controllers"
	Kubectl         = "kubectl"
	Kwok            = "kwok"
	// Scheduler is this project's binary, built by make build into bin/.
	Scheduler = "scheduler"
	// Admission is the publish-mode webhook, built beside the scheduler.
	Admission = "admission"
	// KubectlPlugin is kubectl windows-aware, built beside the scheduler.
	KubectlPlugin = "kubectl-windows_aware"
)

// RepoRoot returns the root of this repository: the nearest directory
// above the working directory, else above this source file, whose go.mod
// declares Module.
func RepoRoot() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	for _, dir := range starts {
		for d := dir; ; d = filepath.Dir(d) {
			if isRoot(filepath.Join(d, "go.mod")) {
				return d, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", fmt.Errorf("no go.mod of module %s above %v", Module, starts)
}

func isRoot(goMod string) bool {
	f, err := os.Open(goMod)
	if err != nil {
		return false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if line := strings.TrimSpace(s.Text()); strings.HasPrefix(line, "module ") {
			return strings.TrimSpace(strings.TrimPrefix(line, "module")) == Module
		}
	}
	return false
}

// Binaries are the paths of the programs a cluster runs.
type Binaries struct {
	Etcd, KubeAPIServer, ControllerManager, DemoControllers, Kubectl, Kwok, Scheduler, Admission, KubectlPlugin string
}

// MissingError lists the programs FindBinaries could not find.
type MissingError struct {
	Missing []string
	// Looked is where they were looked for.
	Looked []string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("missing %s (looked in %s); run `make build tools`",
		strings.Join(e.Missing, ", "), strings.Join(e.Looked, ", "))
}

// FindBinaries finds the tools named in want (Etcd, KubeAPIServer, ...) and
// this project's binaries, Scheduler, Admission and KubectlPlugin, if in want.
//
// A tool is looked up in toolsDir when set, else in $TOOLS_DIR, on $PATH,
// and in <repo>/bin/tools. This project's binaries are looked up in binDir
// when set, else in $WINDOWS_AWARE_BIN_DIR, else in <repo>/bin. The error
// is a *MissingError when some are not found.
func FindBinaries(toolsDir, binDir string, want ...string) (Binaries, error) {
	root, _ := RepoRoot()
	var toolDirs []string
	switch {
	case toolsDir != "":
		toolDirs = []string{toolsDir}
	default:
		if d := os.Getenv("TOOLS_DIR"); d != "" {
			toolDirs = append(toolDirs, d)
		}
		toolDirs = append(toolDirs, "$PATH")
		if root != "" {
			toolDirs = append(toolDirs, filepath.Join(root, "bin", "tools"))
		}
	}
	var schedDirs []string
	switch {
	case binDir != "":
		schedDirs = []string{binDir}
	case os.Getenv("WINDOWS_AWARE_BIN_DIR") != "":
		schedDirs = []string{os.Getenv("WINDOWS_AWARE_BIN_DIR")}
	case root != "":
		schedDirs = []string{filepath.Join(root, "bin")}
	}

	var b Binaries
	missing := &MissingError{}
	looked := map[string]bool{}
	for _, name := range want {
		dirs := toolDirs
		if name == Scheduler || name == Admission || name == KubectlPlugin {
			dirs = schedDirs
		}
		path := lookIn(name, dirs)
		for _, d := range dirs {
			if !looked[d] {
				looked[d] = true
				missing.Looked = append(missing.Looked, d)
			}
		}
		if path == "" {
			missing.Missing = append(missing.Missing, name)
			continue
		}
		switch name {
		case Etcd:
			b.Etcd = path
		case KubeAPIServer:
			b.KubeAPIServer = path
		case ControllerManager:
			b.ControllerManager = path
		case DemoControllers:
			b.DemoControllers = path
		case Kubectl:
			b.Kubectl = path
		case Kwok:
			b.Kwok = path
		case Scheduler:
			b.Scheduler = path
		case Admission:
			b.Admission = path
		case KubectlPlugin:
			b.KubectlPlugin = path
		default:
			return b, fmt.Errorf("unknown program %q", name)
		}
	}
	if len(missing.Missing) > 0 {
		return b, missing
	}
	return b, nil
}

func lookIn(name string, dirs []string) string {
	for _, d := range dirs {
		if d == "$PATH" {
			if p, err := exec.LookPath(name); err == nil {
				if abs, err := filepath.Abs(p); err == nil {
					return abs
				}
				return p
			}
			continue
		}
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			if abs, err := filepath.Abs(p); err == nil {
				return abs
			}
			return p
		}
	}
	return ""
}

// IsMissing reports whether err says that programs are missing.
func IsMissing(err error) bool {
	var m *MissingError
	return errors.As(err, &m)
}
