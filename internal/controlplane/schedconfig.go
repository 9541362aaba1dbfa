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
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// ShippedSchedulerConfig is the path of the configuration this project
// ships, relative to the repository root.
const ShippedSchedulerConfig = "manifests/scheduler-config.yaml"

// RewriteKubeconfig returns config with the value of
// clientConnection.kubeconfig replaced by kubeconfig and every other byte
// unchanged. It is an error for config not to have exactly one such field,
// written as a top-level `clientConnection:` block with a `kubeconfig:` key
// indented under it on a line of its own.
func RewriteKubeconfig(config []byte, kubeconfig string) ([]byte, error) {
	lines := bytes.SplitAfter(config, []byte("\n"))
	inClient, found := false, -1
	for i, line := range lines {
		trimmed := bytes.TrimRight(line, "\r\n")
		if len(trimmed) == 0 || trimmed[0] == '#' {
			continue
		}
		if trimmed[0] != ' ' && trimmed[0] != '\t' { // a top-level key
			inClient = bytes.HasPrefix(trimmed, []byte("clientConnection:"))
			continue
		}
		if !inClient {
			continue
		}
		body := bytes.TrimLeft(trimmed, " \t")
		if !bytes.HasPrefix(body, []byte("kubeconfig:")) {
			continue
		}
		if found >= 0 {
			return nil, fmt.Errorf("clientConnection.kubeconfig is set twice (lines %d and %d)", found+1, i+1)
		}
		found = i
	}
	if found < 0 {
		return nil, fmt.Errorf("no clientConnection.kubeconfig line to rewrite")
	}
	line := lines[found]
	indent := line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
	eol := line[len(bytes.TrimRight(line, "\r\n")):]
	var out bytes.Buffer
	for i, l := range lines {
		if i != found {
			out.Write(l)
			continue
		}
		out.Write(indent)
		out.WriteString("kubeconfig: ")
		out.WriteString(strconv.Quote(kubeconfig)) // a valid YAML double-quoted scalar
		out.Write(eol)
	}
	return out.Bytes(), nil
}

// writeSchedulerConfig writes the shipped configuration at src, pointed at
// kubeconfig, to dir/scheduler-config.yaml.
func writeSchedulerConfig(src, kubeconfig, dir string) (string, error) {
	data, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	out, err := RewriteKubeconfig(data, kubeconfig)
	if err != nil {
		return "", fmt.Errorf("%s: %w", src, err)
	}
	path := filepath.Join(dir, "scheduler-config.yaml")
	return path, os.WriteFile(path, out, 0o644)
}
