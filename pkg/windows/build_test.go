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
		{"10.0.17763", build10(17763), true},
		{"10.0.26100", build10(26100), true},
		{"6.3.9600", Build{6, 3, 9600}, true},
		{"", Build{}, false},
		{"banana", Build{}, false},
		{"10.0", Build{}, false},
		{"10.0.17763.437", Build{}, false},
		{"10.0.", Build{}, false},
		{".0.17763", Build{}, false},
		{"10..17763", Build{}, false},
		{"10.0.17763 ", Build{}, false},
		{"10.0.-1", Build{}, false},
		{"10.0.4294967296", Build{}, false},
		{"10.0.4294967295", Build{10, 0, 4294967295}, true},
		{"10.0.99999999999999999999999", Build{}, false},
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
		{"10.0.17763.4131", Version{Build: build10(17763), Revision: 4131, HasRevision: true}, true},
		{"10.0.20348", Version{Build: build10(20348)}, true},
		{"6.8.0-45-generic", Version{}, false},
		{"5.15.0", Version{Build: Build{5, 15, 0}}, true}, // parses; only Windows nodes are asked
		{"10.0.17763.4131.1", Version{}, false},
		{"", Version{}, false},
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
