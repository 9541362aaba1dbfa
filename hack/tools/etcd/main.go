// Command etcd is the etcd server of go.etcd.io/etcd/server/v3, built from
// the Go module proxy at the version hack/tools/go.mod pins. `go install
// go.etcd.io/etcd/server/v3` does not work (etcd's go.mod has replace
// directives), but its etcdmain package builds from any module.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
