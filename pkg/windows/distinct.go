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

// platformKey is what tells two platforms apart for every decision: the
// revision of an os.version never changes which host runs an entry.
type platformKey struct {
	os, arch string
	build    Build
}

// DistinctPlatforms returns platforms with each (OS, architecture, build)
// once, the first of each kept, in their order. It runs in linear time and
// returns platforms itself when nothing repeats.
func DistinctPlatforms(platforms []Platform) []Platform {
	seen := make(map[platformKey]struct{}, len(platforms))
	var out []Platform
	for i, p := range platforms {
		k := platformKey{p.OS, p.Arch, p.Version.Build}
		if _, dup := seen[k]; dup {
			if out == nil {
				out = append(make([]Platform, 0, len(platforms)-1), platforms[:i]...)
			}
			continue
		}
		seen[k] = struct{}{}
		if out != nil {
			out = append(out, p)
		}
	}
	if out == nil {
		return platforms
	}
	return out
}
