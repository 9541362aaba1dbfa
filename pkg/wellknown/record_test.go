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
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseRecord(t *testing.T) {
	tests := []struct {
		name    string
		value   string
		want    Record
		wantErr bool
	}{
		{name: "a full record", value: `{"source":"tag","os":"windows","builds":["10.0.20348","10.0.26100"],"preferred":"10.0.20348","tolerations":["os=windows:NoSchedule"]}`,
			want: Record{Source: "tag", OS: "windows", Builds: []string{"10.0.20348", "10.0.26100"}, Preferred: "10.0.20348", Tolerations: []string{"os=windows:NoSchedule"}}},
		{name: "a gated pod", value: `{"source":"default","gatedOn":"contoso.azurecr.io/web:1.4.2"}`, want: Record{Source: "default", GatedOn: "contoso.azurecr.io/web:1.4.2"}},
		{name: "a newer webhook's field is ignored", value: `{"source":"spec","os":"linux","later":true}`, want: Record{Source: "spec", OS: "linux"}},
		{name: "no source", value: `{"os":"linux"}`, wantErr: true},
		{name: "not JSON", value: `os=linux`, wantErr: true},
		{name: "empty", value: ``, wantErr: true},
		{name: "a field of the wrong type", value: `{"source":"tag","builds":"10.0.17763"}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRecord(tt.value)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseRecord error %v, want one: %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseRecord (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParseRecord: parsing never panics, and a record that parses writes
// back to a value that parses to the same record.
func FuzzParseRecord(f *testing.F) {
	f.Add(`{"source":"tag","os":"windows","builds":["10.0.17763"],"tolerations":["os=windows:NoSchedule"]}`)
	f.Add(`{"source":"default","gatedOn":"contoso.azurecr.io/web:1.4.2"}`)
	f.Add(`{"source":"","os":1}`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, value string) {
		r, err := ParseRecord(value)
		if err != nil {
			return
		}
		again, err := ParseRecord(r.String())
		if err != nil {
			t.Fatalf("the record of %q writes %q, which does not parse: %v", value, r.String(), err)
		}
		if diff := cmp.Diff(r, again, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip of %q (-first +second):\n%s", value, diff)
		}
	})
}
