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
	"fmt"
	"path/filepath"

	"github.com/windows-aware/windows-aware/internal/localproc"
)

// start starts one component and records it.
func (c *Cluster) start(name, path string, args []string) (*localproc.Process, error) {
	c.mu.Lock()
	c.seq++
	pidName := fmt.Sprintf("%02d-%s", c.seq, name)
	c.mu.Unlock()
	spec := localproc.Spec{
		Name:    name,
		Path:    path,
		Args:    args,
		LogFile: filepath.Join(c.LogDir, name+".log"),
		// A KUBECONFIG could point a component at another cluster.
		Env:    localproc.EnvWithout("KUBECONFIG="),
		Detach: c.opts.Detach,
	}
	if c.opts.PIDDir != "" {
		// The start order leads the name: StopRecorded stops in reverse.
		spec.PIDFile = filepath.Join(c.opts.PIDDir, pidName+".pid")
	}
	p, err := localproc.Start(spec)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.procs = append(c.procs, p)
	c.mu.Unlock()
	return p, nil
}
