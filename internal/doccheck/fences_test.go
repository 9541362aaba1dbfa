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

package doccheck

import (
	"strings"
	"testing"
)

func TestBlocks(t *testing.T) {
	tests := []struct {
		name    string
		page    string
		want    []Block
		wantErr string
	}{
		{
			name: "closed blocks",
			page: "text\n```yaml\na: 1\n```\nmore\n~~~sh\nls\n~~~\n",
			want: []Block{{Line: 2, Info: "yaml", Text: "a: 1"}, {Line: 6, Info: "sh", Text: "ls"}},
		},
		{
			name: "indented in a list item",
			page: "- item:\n\n  ```yaml\n  kind: Role\n  rules:\n    - verbs: [get]\n  ```\n",
			want: []Block{{Line: 3, Info: "yaml", Text: "kind: Role\nrules:\n  - verbs: [get]"}},
		},
		{
			name: "a shorter fence inside a longer one is content",
			page: "````md\n```yaml\na: 1\n```\n````\n",
			want: []Block{{Line: 1, Info: "md", Text: "```yaml\na: 1\n```"}},
		},
		{
			name:    "an opening fence inside a block of the same fence",
			page:    "```sh\nhelm upgrade\n## Next section\n```sh\nkubectl get pods\n```\n",
			wantErr: "line 4 opens",
		},
		{
			name: "inline code at the start of a line is no fence",
			page: "```foo``` is inline\n",
		},
		{
			name:    "unclosed block",
			page:    "# Title\n```sh\nmake demo\n## Next section\n",
			wantErr: "line 2",
		},
		{
			name:    "a tilde does not close a backtick fence",
			page:    "```yaml\na: 1\n~~~\n",
			wantErr: "never closed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Blocks(tt.page)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("blocks = %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("block %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}
