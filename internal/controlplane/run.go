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
	"time"

	"github.com/windows-aware/windows-aware/internal/localproc"
)

// Run starts another program as part of the cluster: its output goes to
// LogDir/name.log and Stop ends it with the rest. When healthURL is set
// (an HTTPS endpoint on 127.0.0.1 with a self-signed certificate, such as
// a scheduler's /healthz), Run waits until it answers 200. Tests use it to
// run a component as a deployment would, with a configuration and
// credentials of their choosing.
func (c *Cluster) Run(ctx context.Context, name, path string, args []string, healthURL string) (*localproc.Process, error) {
	p, err := c.start(name, path, args)
	if err != nil {
		return nil, err
	}
	if healthURL != "" {
		if err := waitHealthy(ctx, p, 2*time.Minute, insecureClient(), healthURL, nil); err != nil {
			p.Stop(5 * time.Second)
			return nil, err
		}
	}
	return p, nil
}
