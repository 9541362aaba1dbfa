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
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/internal/testimage"
)

// hostileEntries fills a manifest list to just under the 4 MiB a manifest
// may have: what any tenant who can push to an allowlisted registry can
// make its pods name.
const hostileEntries = 15000

// rawManifest is manifest bytes pushed as they are.
type rawManifest struct {
	body      []byte
	mediaType types.MediaType
}

func (m rawManifest) RawManifest() ([]byte, error)        { return m.body, nil }
func (m rawManifest) MediaType() (types.MediaType, error) { return m.mediaType, nil }

// pushHostileIndex pushes a manifest list of hostileEntries Windows
// entries of distinct builds, all pointing at one real image (the registry
// checks that the manifests a list names exist), and returns the
// reference a pod names it by.
func (r *resolutionEnv) pushHostileIndex(repo string) string {
	r.t.Helper()
	a, err := single(win(testimage.OSVersion2022)).Build()
	if err != nil {
		r.t.Fatal(err)
	}
	child, err := r.reg.Push(r.ctx, repo+":base", a)
	if err != nil {
		r.t.Fatal(err)
	}
	mt, err := a.MediaType()
	if err != nil {
		r.t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(`{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.list.v2+json","manifests":[`)
	for i := range hostileEntries {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"mediaType":%q,"digest":%q,"size":1,"platform":{"architecture":"amd64","os":"windows","os.version":"10.0.%d.1"}}`,
			mt, child.DigestStr(), 20348+i)
	}
	b.WriteString(`]}`)
	ref, err := name.ParseReference(r.reg.Host + "/" + repo + ":many")
	if err != nil {
		r.t.Fatal(err)
	}
	if err := remote.Put(ref, rawManifest{body: []byte(b.String()), mediaType: types.DockerManifestList}, r.reg.RemoteOptions(r.ctx)...); err != nil {
		r.t.Fatalf("pushing a manifest list of %d entries (%d bytes): %v", hostileEntries, b.Len(), err)
	}
	return ref.String()
}

// hostileIndex: a pod whose image is an index of tens of thousands of
// entries is refused, naming the count and the limit, and follows
// onFailure, while a few hundred ordinary pods beside it are all
// scheduled. The time they take is logged against a run without it (a
// ratio, not asserted: speed goals live in benchmarks).
func (r *resolutionEnv) hostileIndex(t *testing.T) {
	r = r.sub(t)
	nodes := []*v1.Node{}
	for i := range 3 {
		nodes = append(nodes, linuxNode(fmt.Sprintf("rr-hostile-linux-%d", i)))
	}
	r.createNodes(nodes...)
	img := r.pushHostileIndex("contoso/hostile")

	// ordinary creates linuxPods Linux pods and windowsPods pods of a tag
	// that names its build (never resolved), and returns how long it took
	// until all were bound.
	const linuxPods, windowsPods = 240, 60
	ordinary := func(ns string) time.Duration {
		start := time.Now()
		var names []string
		names = append(names, r.schedule(ns, profileTagRules, "linux", linuxPods, nil, "registry.k8s.io/pause:3.10")...)
		names = append(names, r.schedule(ns, profileTagRules, "ltsc2022", windowsPods, windowsOS, "mcr.microsoft.com/windows/servercore:ltsc2022")...)
		r.waitAllScheduled(ns, names, 2*scheduleTimeout)
		return time.Since(start)
	}

	baselineNS := r.namespace()
	baseline := ordinary(baselineNS)
	r.deletePods(baselineNS)

	ns := r.namespace()
	rejected := r.schedule(ns, profileReject, "hostile-reject", 1, windowsOS, img)
	tagRules := r.schedule(ns, profileTagRules, "hostile-tagrules", 1, windowsOS, img)
	withHostile := ordinary(ns)
	t.Logf("%d ordinary pods bound in %v without the hostile image, %v beside it: ratio %.2f",
		linuxPods+windowsPods, baseline, withHostile, withHostile.Seconds()/baseline.Seconds())

	count := fmt.Sprintf("has %d entries", hostileEntries)
	msg := r.failedScheduling(ns, rejected[0], scheduleTimeout)
	for _, want := range []string{img, "onFailure: Reject", count, "more than the limit of 256", "imageResolution.maxIndexEntries"} {
		if !strings.Contains(msg, want) {
			t.Errorf("FailedScheduling %q does not say %q", msg, want)
		}
	}
	for _, pod := range append(rejected, tagRules...) {
		ev := r.event(ns, pod, "ImagePlatformsUnknown")
		for _, want := range []string{img, count, "limit of 256", "imageResolution.maxIndexEntries"} {
			if !strings.Contains(ev, want) {
				t.Errorf("event of %s %q does not say %q", pod, ev, want)
			}
		}
	}
	// TagRules: the tag names no build, so any Windows node will do.
	r.landsOn(ns, tagRules, oracle.Build2019, oracle.Build2022, oracle.Build2025)
}
