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

package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/internal/registryserver"
	"github.com/windows-aware/windows-aware/internal/testimage"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// profileBuildsChanged resolves Windows pods' images with a tag TTL of a
// second, so that a tag is read again within the test.
const profileBuildsChanged = "registry-builds-changed"

// buildsChangedTagTTL is that profile's tagTTL.
const buildsChangedTagTTL = time.Second

// TestImageBuildsChanged: a tag is pushed again on Windows Server 2022
// after its pods ran on 2019. Once its facts are older than the tag TTL,
// the next pod refreshes them in the background (and is placed by the old
// facts meanwhile); the pod after the refresh gets one ImageBuildsChanged
// Event naming the image, both builds and both digests, and lands on 2022;
// no other pod gets one.
func TestImageBuildsChanged(t *testing.T) {
	requireRegistryBinary(t)
	e := requireCluster(t)
	r := &resolutionEnv{env: e, reg: startRegistry(t, registryserver.Options{InMemory: true})}
	r.startBuildsChangedScheduler()
	e.createNodes(
		windowsNode("bc-2019", oracle.Build2019, fixture.WindowsTaint),
		windowsNode("bc-2022", oracle.Build2022, fixture.WindowsTaint),
	)
	ns := r.namespace()
	img := r.push(r.reg.Host, "contoso/web:1", single(win(testimage.OSVersion2019)))
	r.landsOn(ns, r.schedule(ns, profileBuildsChanged, "before", 1, windowsOS, img), oracle.Build2019)

	r.push(r.reg.Host, "contoso/web:1", single(win(testimage.OSVersion2022)))
	time.Sleep(2 * buildsChangedTagTTL) // the facts are stale now: the next pod refreshes them

	var told []string
	for i := range 10 {
		name := r.schedule(ns, profileBuildsChanged, fmt.Sprintf("after-%d", i), 1, windowsOS, img)[0]
		node := r.waitScheduled(ns, name, scheduleTimeout)
		if msg := r.lastEvent(ns, name, wellknown.EventImageBuildsChanged); msg != "" {
			told = append(told, name)
			for _, want := range []string{img, "now lists Windows builds " + oracle.Build2022, "not " + oracle.Build2019, "digest sha256:"} {
				if !strings.Contains(msg, want) {
					t.Errorf("Event %q does not say %q", msg, want)
				}
			}
			if buildOf(node) != oracle.Build2022 {
				t.Errorf("pod %s, told of the change, landed on %s (build %s), want 2022", name, node.Name, buildOf(node))
			}
			continue
		}
		if len(told) > 0 {
			break // one pod after the Event shows it is not repeated
		}
	}
	if len(told) != 1 {
		t.Fatalf("pods told of the change: %v, want exactly one", told)
	}
}

// startBuildsChangedScheduler runs the scheduler binary with one profile
// that resolves Windows pods' images from the registry, with its
// credentials in a docker config file.
func (r *resolutionEnv) startBuildsChangedScheduler() {
	r.t.Helper()
	dir := r.t.TempDir()
	dockerConfig := filepath.Join(dir, "docker-config.json")
	if err := os.WriteFile(dockerConfig, registrytest.DockerConfigJSON(r.reg.Username, r.reg.Password, r.reg.Host), 0o600); err != nil {
		r.t.Fatal(err)
	}
	resolution := map[string]any{
		"scope": "Windows", "onFailure": "TagRules", "gateTimeout": "10s", "requestTimeout": "5s",
		"registries":  []map[string]any{{"host": r.reg.Host, "allowPrivate": true, "caFile": r.reg.CAFile}},
		"credentials": map[string]any{"dockerConfigFile": dockerConfig},
		"cache":       map[string]any{"tagTTL": buildsChangedTagTTL.String()},
	}
	r.runScheduler("scheduler-builds-changed", dir, r.c.SchedulerKubeconfig, resolutionProfile(profileBuildsChanged, resolution))
}
