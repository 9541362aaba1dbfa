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

package explain

import (
	"fmt"
	"io"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// PublishedReport is what publish mode wrote into a live pod at its
// creation, from the pod's annotation.
type PublishedReport struct {
	// Record is the annotation's record; Error is set instead when it
	// does not read.
	Record *wellknown.Record `json:"record,omitempty"`
	Error  string            `json:"error,omitempty"`
}

// publishedOf reads the record of a live pod, nil when it has none.
func publishedOf(pod *v1.Pod) *PublishedReport {
	value, ok := pod.Annotations[wellknown.AnnotationPublished]
	if !ok {
		return nil
	}
	rec, err := wellknown.ParseRecord(value)
	if err != nil {
		return &PublishedReport{Error: err.Error()}
	}
	return &PublishedReport{Record: &rec}
}

// writePublished writes the "published" line of a live pod's block.
func writePublished(w io.Writer, p *PublishedReport) {
	if p.Error != "" {
		field(w, "published", "unreadable: %s", p.Error)
		return
	}
	r := p.Record
	var parts []string
	if r.OS != "" {
		parts = append(parts, fmt.Sprintf("nodeSelector %s=%s", v1.LabelOSStable, r.OS))
	}
	if len(r.Builds) > 0 {
		parts = append(parts, fmt.Sprintf("required %s in [%s]", v1.LabelWindowsBuild, strings.Join(r.Builds, ", ")))
	}
	if r.Preferred != "" {
		parts = append(parts, "preferred "+r.Preferred)
	}
	if len(r.Tolerations) > 0 {
		parts = append(parts, "tolerations "+strings.Join(r.Tolerations, ", "))
	}
	if r.GatedOn != "" {
		parts = append(parts, fmt.Sprintf("scheduling gate %s until the registry tells the platforms of image %s", wellknown.GatePlatform, r.GatedOn))
	}
	field(w, "published", "at creation, from the OS's source %s: %s", r.Source, strings.Join(parts, "; "))
}
