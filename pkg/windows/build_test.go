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

package windows

import "testing"

func TestParseBuild(t *testing.T) {
	tests := []struct {
		in   string
		want Build
		ok   bool
	}{
		{in: "10.0.17763", want: build10(17763), ok: true},
		{in: "10.0.26100", want: build10(26100), ok: true},
		{in: "6.3.9600", want: Build{6, 3, 9600}, ok: true},
		{in: "", want: Build{}, ok: false},
		{in: "banana", want: Build{}, ok: false},
		{in: "10.0", want: Build{}, ok: false},
		{in: "10.0.17763.437", want: Build{}, ok: false},
		{in: "10.0.", want: Build{}, ok: false},
		{in: ".0.17763", want: Build{}, ok: false},
		{in: "10..17763", want: Build{}, ok: false},
		{in: "10.0.17763 ", want: Build{}, ok: false},
		{in: "10.0.-1", want: Build{}, ok: false},
		{in: "10.0.4294967296", want: Build{}, ok: false},
		{in: "10.0.4294967295", want: Build{10, 0, 4294967295}, ok: true},
		{in: "10.0.99999999999999999999999", want: Build{}, ok: false},
	}
	for _, tt := range tests {
		got, ok := ParseBuild(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseBuild(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseKernelVersion(t *testing.T) {
	tests := []struct {
		in   string
		want Version
		ok   bool
	}{
		{in: "10.0.17763.4131", want: Version{Build: build10(17763), Revision: 4131, HasRevision: true}, ok: true},
		{in: "10.0.20348", want: Version{Build: build10(20348)}, ok: true},
		{in: "6.8.0-45-generic", want: Version{}, ok: false},
		{in: "5.15.0", want: Version{Build: Build{5, 15, 0}}, ok: true}, // parses; only Windows nodes are asked
		{in: "10.0.17763.4131.1", want: Version{}, ok: false},
		{in: "", want: Version{}, ok: false},
	}
	for _, tt := range tests {
		got, ok := ParseKernelVersion(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseKernelVersion(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestBuildString(t *testing.T) {
	if got := build10(17763).String(); got != "10.0.17763" {
		t.Errorf("String() = %q", got)
	}
}

func TestParseBuildDoesNotAllocate(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		ParseBuild("10.0.17763")
		ParseBuild("banana")
		ParseKernelVersion("10.0.17763.4131")
	})
	if allocs != 0 {
		t.Errorf("ParseBuild/ParseKernelVersion allocate %v times, want 0", allocs)
	}
}
