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

package dockerfile

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	f, err := Parse([]byte(`# syntax=docker/dockerfile:1
# escape=\
# a comment ends the directives
# check=skip=all
ARG GLOBAL=1
FROM --platform=$BUILDPLATFORM golang:1 AS build
RUN a && \
    # a comment inside the continuation
    b \

    c
ARG X Y=2
FROM scratch
COPY --from=build /a /a
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Directives; len(got) != 2 || got["syntax"] != "docker/dockerfile:1" || got["escape"] != `\` {
		t.Errorf("directives %v, want syntax and escape only (check comes after a comment)", got)
	}
	if a := f.GlobalArgs()["GLOBAL"]; a.Default != "1" || !a.HasDefault {
		t.Errorf("global ARG %+v", a)
	}
	if len(f.Stages) != 2 {
		t.Fatalf("%d stages, want 2", len(f.Stages))
	}
	b := f.Stage("build")
	if b == nil || b.Platform != "$BUILDPLATFORM" || b.Image != "golang:1" || b.From.Line != 6 {
		t.Fatalf("build stage %+v", b)
	}
	runs := b.Commands("RUN")
	if len(runs) != 1 || runs[0].Args != "a && b c" || runs[0].Line != 7 {
		t.Errorf("RUN %+v, want %q from line 7", runs, "a && b c")
	}
	args := b.Args()
	if x, y := args["X"], args["Y"]; x.HasDefault || !y.HasDefault || y.Default != "2" {
		t.Errorf("ARGs %+v", args)
	}
	if fin := f.Final(); fin.Image != "scratch" || fin.Name != "" || fin.Platform != "" || len(fin.Commands("COPY")) != 1 {
		t.Errorf("final stage %+v", fin)
	}
}

func TestParseErrors(t *testing.T) {
	for name, text := range map[string]string{
		"instruction before FROM": "RUN true\nFROM scratch\n",
		"unended continuation":    "FROM scratch\nRUN a \\\n",
		"FROM with extra words":   "FROM a b c d\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse([]byte(text)); err == nil {
				t.Error("parsed")
			}
		})
	}
}

// multiPlatformBases are the final-stage bases known to be published as an
// image index with linux/amd64 and linux/arm64 manifests. A base added
// here must be checked first (docker buildx imagetools inspect IMAGE).
var multiPlatformBases = map[string]bool{
	"gcr.io/distroless/static-debian12:nonroot": true,
	"gcr.io/distroless/static-debian12":         true,
	"scratch":                                   true,
}

// automaticArgs are the platform arguments BuildKit sets for each build; a
// default given in an ARG would replace BuildKit's value.
var automaticArgs = []string{"BUILDPLATFORM", "BUILDOS", "BUILDARCH", "BUILDVARIANT",
	"TARGETPLATFORM", "TARGETOS", "TARGETARCH", "TARGETVARIANT"}

// TestRepositoryDockerfileBuildsEveryPlatform holds the repository's
// Dockerfile to what `docker buildx build --platform
// linux/amd64,linux/arm64` needs to produce a right image for each, which
// no test here can build: the Go stage runs on the builder's platform and
// cross-compiles both binaries for the target, statically, and the final
// stage's base exists for both.
func TestRepositoryDockerfileBuildsEveryPlatform(t *testing.T) {
	f, err := ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Directives["syntax"]; !strings.HasPrefix(got, "docker/dockerfile:") {
		t.Errorf("syntax directive %q: want docker/dockerfile:<version> on the first line, before the licence header (BuildKit reads directives only before any comment)", got)
	}
	for name, a := range f.GlobalArgs() {
		for _, auto := range automaticArgs {
			if name == auto && a.HasDefault {
				t.Errorf("line %d: global ARG %s has a default, which replaces BuildKit's value", a.Line, name)
			}
		}
	}
	for _, s := range f.Stages {
		for name, a := range s.Args() {
			for _, auto := range automaticArgs {
				if name == auto && a.HasDefault {
					t.Errorf("line %d: ARG %s=%s replaces BuildKit's value for each platform; declare it without a default", a.Line, name, a.Default)
				}
			}
		}
	}

	build := f.Stage("build")
	if build == nil {
		t.Fatal("no stage named build")
	}
	if build.Platform != "$BUILDPLATFORM" && build.Platform != "${BUILDPLATFORM}" {
		t.Errorf("line %d: the build stage runs on %q, want --platform=$BUILDPLATFORM (cross-compiling, not emulated)", build.From.Line, build.Platform)
	}
	args := build.Args()
	for _, name := range []string{"TARGETOS", "TARGETARCH"} {
		if _, ok := args[name]; !ok {
			t.Errorf("the build stage declares no ARG %s: an automatic argument is seen by a stage only when it declares it", name)
		}
	}

	// Every go build gets CGO_ENABLED=0 and the target's GOOS and GOARCH,
	// exported before it or given on its own command line.
	env := map[string]*regexp.Regexp{
		"CGO_ENABLED": regexp.MustCompile(`(^|\s)CGO_ENABLED=0(\s|$)`),
		"GOOS":        regexp.MustCompile(`(^|\s)GOOS="?\$\{?TARGETOS\}?"?(\s|$)`),
		"GOARCH":      regexp.MustCompile(`(^|\s)GOARCH="?\$\{?TARGETARCH\}?"?(\s|$)`),
	}
	outRE := regexp.MustCompile(`-o\s+(\S+)\s+(\./cmd/\S+)`)
	built := map[string]string{} // package -> output
	for _, run := range build.Commands("RUN") {
		exported := map[string]bool{}
		script := run.Args
		for strings.HasPrefix(script, "--") { // --mount=..., --network=...
			_, script, _ = strings.Cut(script, " ")
			script = strings.TrimSpace(script)
		}
		for _, cmd := range strings.Split(script, "&&") {
			cmd = strings.TrimSpace(cmd)
			if strings.HasPrefix(cmd, "export ") {
				for name, re := range env {
					if re.MatchString(cmd) {
						exported[name] = true
					}
				}
				continue
			}
			prefix, _, isBuild := strings.Cut(cmd, "go build ")
			if !isBuild {
				continue
			}
			for name, re := range env {
				if !exported[name] && !re.MatchString(prefix) {
					t.Errorf("line %d: %q builds without %s of the target (export it before every go build)", run.Line, cmd, name)
				}
			}
			for _, m := range outRE.FindAllStringSubmatch(cmd, -1) {
				built[m[2]] = m[1]
			}
		}
	}
	copied := map[string]bool{}
	final := f.Final()
	for _, c := range final.Commands("COPY") {
		words := strings.Fields(c.Args)
		if len(words) == 3 && words[0] == "--from=build" {
			copied[words[1]] = true
		}
	}
	for _, pkg := range []string{"./cmd/scheduler", "./cmd/admission"} {
		out, ok := built[pkg]
		if !ok {
			t.Errorf("the build stage builds no %s", pkg)
			continue
		}
		if !copied[out] {
			t.Errorf("the final stage copies no %s (the build of %s) from the build stage", out, pkg)
		}
	}

	if final == build {
		t.Fatal("the build stage is the final one")
	}
	if final.Platform != "" && final.Platform != "$TARGETPLATFORM" && final.Platform != "${TARGETPLATFORM}" {
		t.Errorf("line %d: the final stage runs on %q, want the target platform (no --platform)", final.From.Line, final.Platform)
	}
	if !multiPlatformBases[final.Image] {
		t.Errorf("line %d: the final stage's base %s is not known to be published for linux/amd64 and linux/arm64 (see multiPlatformBases)", final.From.Line, final.Image)
	}
}

// TestMakeImageBuildsThePlatforms: make image hands PLATFORMS to docker
// buildx build --platform, and names the Kubernetes minor in its tag.
func TestMakeImageBuildsThePlatforms(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	cmd := exec.Command("make", "--no-print-directory", "-n", "image", "PLATFORMS=linux/amd64,linux/arm64", "VERSION=v9.9.9")
	cmd.Dir = "../.."
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "K8S=") { // the newest minor, whatever the caller's
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n image: %v\n%s", err, out)
	}
	got := string(out)
	if !strings.Contains(got, "docker buildx build --platform linux/amd64,linux/arm64 ") {
		t.Errorf("make image PLATFORMS=linux/amd64,linux/arm64 runs\n%s\nwant docker buildx build --platform linux/amd64,linux/arm64", got)
	}
	if !regexp.MustCompile(`:v9\.9\.9-k8s1\.[0-9]+ `).MatchString(got) {
		t.Errorf("make image runs\n%s\nwant the tag <VERSION>-k8s<minor>", got)
	}
}
