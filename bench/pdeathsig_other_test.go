//go:build !linux

package bench

import "os/exec"

// killWithParent does nothing here: the child exits when its stdin ends,
// which it does when the parent dies.
func killWithParent(cmd *exec.Cmd) {}
