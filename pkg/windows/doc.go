// Package windows holds the domain rules of Windows container placement,
// free of any scheduler framework type so that it reads next to the facts it
// encodes:
//
//   - which Windows build an image needs, read from the tokens of its tag
//     (ltsc2019, 1809, 10.0.17763.437, ...), see [Catalog.ImageOf];
//   - which host build runs which image build under process isolation, see
//     [Mode.Runs];
//   - how a node reports its build (the node.kubernetes.io/windows-build
//     label, else the kernel version), see [ParseBuild] and
//     [ParseKernelVersion].
//
// Nothing here allocates on the paths the scheduler calls per node.
package windows
