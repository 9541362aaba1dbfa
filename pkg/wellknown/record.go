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

package wellknown

import (
	"encoding/json"
	"fmt"
)

// Record is what publishing wrote into a pod, kept as JSON in its
// AnnotationPublished annotation (and into a workload's pod template, in
// its AnnotationTemplate). Only what was added is listed: a key the pod set
// itself is not. The webhook writes it; the gate remover, explain and the
// tests read it.
type Record struct {
	// Source is where the pod's OS came from, as the plugin names it:
	// spec, tag, registry, hostProcess, selector or default.
	Source string `json:"source"`
	// OS is the kubernetes.io/os node selector written.
	OS string `json:"os,omitempty"`
	// Builds are the values of the required node.kubernetes.io/windows-build
	// In expression added to the pod's required node affinity terms.
	Builds []string `json:"builds,omitempty"`
	// Preferred is the build of the preferred node affinity term added.
	Preferred string `json:"preferred,omitempty"`
	// Tolerations are the tolerations added, as key=value:Effect.
	Tolerations []string `json:"tolerations,omitempty"`
	// AvoidsRetiring: the preferred term for the nodes that are not
	// labelled LabelRetiring=true was added.
	AvoidsRetiring bool `json:"avoidsRetiring,omitempty"`
	// GatedOn is the image whose registry the pod waits for, when the
	// scheduling gate GatePlatform was added.
	GatedOn string `json:"gatedOn,omitempty"`
	// Fallback is the onFailure policy (TagRules or Reject) under which
	// the gate was removed, when the registry did not tell the platforms
	// of an image in time.
	Fallback string `json:"fallback,omitempty"`
}

// Empty reports whether nothing was written.
func (r *Record) Empty() bool {
	return r.OS == "" && len(r.Builds) == 0 && r.Preferred == "" && len(r.Tolerations) == 0 && !r.AvoidsRetiring && r.GatedOn == ""
}

// String is the annotation's value: compact JSON.
func (r *Record) String() string {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Sprintf("%+v", *r) // a struct of strings always marshals
	}
	return string(data)
}

// ParseRecord reads an AnnotationPublished value. Fields it does not know
// are ignored, so that a newer webhook's records still read.
func ParseRecord(value string) (Record, error) {
	var r Record
	if err := json.Unmarshal([]byte(value), &r); err != nil {
		return Record{}, fmt.Errorf("annotation %s: %w", AnnotationPublished, err)
	}
	if r.Source == "" {
		return Record{}, fmt.Errorf("annotation %s: no source", AnnotationPublished)
	}
	return r, nil
}
