package bench

import (
	"os/exec"
	"syscall"
)

// killWithParent asks Linux to kill the child when the parent dies.
func killWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
