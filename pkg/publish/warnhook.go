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

package publish

import (
	"fmt"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/klog/v2"
)

// WarnFunc returns admission warnings for a request the webhook answers,
// on any of its paths (/mutate, /opt-in, /templates); nil when it has none.
// It must not block: the API server waits for the answer.
type WarnFunc func(logger klog.Logger, req *admissionv1.AdmissionRequest) []string

// warners are the registered WarnFuncs, of every Publisher's handlers.
var warners struct {
	sync.RWMutex
	fns []WarnFunc
}

// AddWarnings registers fn, whose warnings every answer of the webhook's
// handlers carries after the answer's own.
func AddWarnings(fn WarnFunc) {
	warners.Lock()
	defer warners.Unlock()
	warners.fns = append(warners.fns, fn)
}

// warn appends the registered warnings to resp. It is the one place where
// an answer gains warnings besides those of its own path (handler calls it
// for every path), so that a source of warnings added later reaches them
// all. A WarnFunc that panics costs its warnings, never the answer.
func warn(logger klog.Logger, req *admissionv1.AdmissionRequest, resp *admissionv1.AdmissionResponse) {
	warners.RLock()
	fns := warners.fns
	warners.RUnlock()
	for _, fn := range fns {
		func() {
			defer func() {
				if r := recover(); r != nil {
					logger.Error(fmt.Errorf("%v", r), "A source of warnings panicked; answering without its warnings", "namespace", req.Namespace, "name", req.Name)
				}
			}()
			resp.Warnings = append(resp.Warnings, fn(logger, req)...)
		}()
	}
}
