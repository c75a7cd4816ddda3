package remote

import "syscall"

// umask sets the process's file mode mask and returns the previous one, so the socket is born
// private rather than made private a moment after it is created.
func umask(mask int) int { return syscall.Umask(mask) }
