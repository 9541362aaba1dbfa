module github.com/windows-aware/windows-aware/hack/tools/benchreport

go 1.26.0

require (
	github.com/google/pprof v0.0.0-20261016150608-1facf8f91b50
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da
)

require github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect

tool golang.org/x/perf/cmd/benchstat
