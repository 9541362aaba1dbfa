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

package warnings

import (
	"testing"

	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/internal/synthetic"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	"github.com/windows-aware/windows-aware/pkg/inventory"
)

// BenchmarkWarningsReview is the /warnings review alone, of the bodies
// BenchmarkWarningsAdmission sends, at 5,000 nodes: what the warnings
// add to a pod's admission, the body's decoding and the answer's
// encoding with the judgement.
func BenchmarkWarningsReview(b *testing.B) {
	inv := inventory.New()
	for i := range 5000 {
		obj, _ := inventory.Project(synthetic.Node(i))
		inv.NodeHandler().OnAdd(obj, true)
	}
	warner, err := New(synthetic.ProfileWindowsAware, scheme.DefaultArgs(), inv, nil)
	if err != nil {
		b.Fatal(err)
	}
	h := warner.Handler(klog.Background(), false)
	bodies := benchReviews(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		serveReview(b, h, bodies[i%len(bodies)])
		i++
	}
}
