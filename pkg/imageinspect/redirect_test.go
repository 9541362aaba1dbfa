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

package imageinspect

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
)

// TestRedirectHops: every redirect hop is checked again. A registry
// allowed private addresses may redirect to itself, a bounded number of
// times; a hop to another host is refused when it names an address or
// reaches a private one, even a registry allowlisted as private.
func TestRedirectHops(t *testing.T) {
	img := registrytest.WindowsImage(t, v17763)
	local := registrytest.New(t)
	local.Push(t, "app:1", img)
	other := registrytest.New(t)
	other.Push(t, "app:1", img)
	portOf := func(s *registrytest.Server) string { return s.Host()[strings.LastIndex(s.Host(), ":")+1:] }
	byName, otherByName := "localhost:"+portOf(local), "localhost:"+portOf(other)
	both := []Registry{{Host: byName, Insecure: true, AllowPrivate: true}, {Host: otherByName, Insecure: true, AllowPrivate: true}}
	redirect := func(times int, location string) registrytest.Fault {
		return registrytest.Fault{Match: registrytest.OnKind(http.MethodGet, "manifests"), Times: times, Status: http.StatusTemporaryRedirect,
			Header: http.Header{"Location": {location}}}
	}

	tests := []struct {
		name      string
		fault     registrytest.Fault
		wantState State
		wantClass ErrorClass
		wantErr   string
		untouched *registrytest.Server
	}{
		{name: "to itself, once", fault: redirect(1, "http://"+byName+"/v2/app/manifests/1"), wantState: StateResolved},
		{name: "to itself, without end", fault: redirect(-1, "http://"+byName+"/v2/app/manifests/1"),
			wantState: StateFailed, wantClass: ClassRefused, wantErr: "more than 5 redirects"},
		{name: "to another registry allowed private", fault: redirect(-1, "http://"+otherByName+"/v2/app/manifests/1"),
			wantState: StateFailed, wantClass: ClassRefused, wantErr: "private address", untouched: other},
		{name: "to the other registry's address", fault: redirect(-1, "http://"+other.Host()+"/v2/app/manifests/1"),
			wantState: StateFailed, wantClass: ClassRefused, wantErr: "redirect from", untouched: other},
		{name: "to a public address", fault: redirect(-1, "https://8.8.8.8/v2/app/manifests/1"),
			wantState: StateFailed, wantClass: ClassRefused, wantErr: "to address"},
		{name: "to the metadata service", fault: redirect(-1, "http://169.254.169.254/latest/meta-data/"),
			wantState: StateFailed, wantClass: ClassRefused, wantErr: "redirect from"},
		{name: "to another scheme", fault: redirect(-1, "file:///etc/passwd"),
			wantState: StateFailed, wantClass: ClassRefused, wantErr: "scheme file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			local.ClearFaults()
			local.ResetCounts()
			other.ResetCounts()
			local.AddFault(tt.fault)
			h := newHarness(t, Config{Registries: both, RequestTimeout: 2 * time.Second, MaxAutoRetries: 1})
			res := h.await(t, byName+"/app:1", PullSecrets{})
			if res.State != tt.wantState || (tt.wantState == StateFailed && res.Class != tt.wantClass) {
				t.Fatalf("%v %v %v, want %v %v", res.State, res.Class, res.Err, tt.wantState, tt.wantClass)
			}
			if tt.wantErr != "" && (res.Err == nil || !strings.Contains(res.Err.Error(), tt.wantErr)) {
				t.Errorf("error %v, want one saying %q", res.Err, tt.wantErr)
			}
			if tt.untouched != nil && tt.untouched.Total() != 0 {
				t.Errorf("the redirect target saw %d requests", tt.untouched.Total())
			}
		})
	}
}
