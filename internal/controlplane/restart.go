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
	"context"
	"fmt"
	"time"

	"github.com/windows-aware/windows-aware/internal/localproc"
)

// Component returns the process of a control plane component (Etcd or
// KubeAPIServer) as last started, running or not; nil if the cluster has
// none.
func (c *Cluster) Component(name string) *localproc.Process {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, i := c.componentLocked(name)
	if i < 0 {
		return nil
	}
	return c.procs[i]
}

func (c *Cluster) componentLocked(name string) (readyFunc, int) {
	ready, ok := c.ready[name]
	if !ok {
		return nil, -1
	}
	for i := len(c.procs) - 1; i >= 0; i-- {
		if c.procs[i].Name == name {
			return ready, i
		}
	}
	return nil, -1
}

// Kill ends a control plane component (Etcd or KubeAPIServer) with
// SIGKILL, as a crash would, and waits until it has exited. Its data
// directory, certificates and ports stay, for Restart.
func (c *Cluster) Kill(name string) error {
	p := c.Component(name)
	if p == nil {
		return fmt.Errorf("no component %q to kill (only %s and %s restart)", name, Etcd, KubeAPIServer)
	}
	c.logf("killing %s (pid %d) with SIGKILL", name, p.Pid())
	p.Kill()
	return nil
}

// Restart starts a control plane component (Etcd or KubeAPIServer) again
// with the command line it last ran with, so with the same data
// directory, certificates and ports: clients need no new configuration.
// It kills the component first if it still runs, and waits until it
// serves again. The new process takes the old one's place in the start
// order, so Stop and localproc.StopRecorded stop it in the same turn.
func (c *Cluster) Restart(ctx context.Context, name string) error {
	c.mu.Lock()
	ready, i := c.componentLocked(name)
	var old *localproc.Process
	if i >= 0 {
		old = c.procs[i]
	}
	c.mu.Unlock()
	if old == nil {
		return fmt.Errorf("no component %q to restart (only %s and %s restart)", name, Etcd, KubeAPIServer)
	}
	if !old.Exited() {
		c.logf("killing %s (pid %d) with SIGKILL", name, old.Pid())
	}
	old.Kill()

	start := time.Now()
	p, err := localproc.Start(old.Spec)
	if err != nil {
		return err
	}
	c.mu.Lock()
	for j, q := range c.procs {
		if q == old {
			c.procs[j] = p
		}
	}
	c.mu.Unlock()
	c.logf("restarted %s (pid %d)", name, p.Pid())
	if err := ready(ctx, p); err != nil {
		return err
	}
	c.logf("%s ready again in %s", name, since(start))
	return nil
}
