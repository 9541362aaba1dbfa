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
package localproc

import (
	"os"
	"strings"
)

// EnvWithout is our environment without the variables whose "NAME=value"
// starts with one of prefixes: for a started process, variables that
// would point it at something other than what its arguments say.
func EnvWithout(prefixes ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !hasAnyPrefix(kv, prefixes) {
			env = append(env, kv)
		}
	}
	return env
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
