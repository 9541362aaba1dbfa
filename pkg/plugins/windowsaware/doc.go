// Package windowsaware holds the scheduler plugins of the windows-aware
// profile, a thin layer over the rules of package windows:
//
//   - WindowsAware works out in PreFilter which OS and which Windows build a
//     pod needs, rejects in Filter the nodes that cannot run it, and prefers
//     in Score the node whose build is the closest match;
//   - OSTaintToleration takes the place of TaintToleration's Filter, letting
//     a pod that WindowsAware matched to an OS tolerate that OS's taints
//     (os=windows:NoSchedule) without a toleration of its own.
package windowsaware
