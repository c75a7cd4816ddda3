//go:build !linux

package embedded

// Without Linux's sync_file_range and fadvise, the page cache is left to the kernel.

func startWriteback(fd uintptr, off, n int64) {}
func dropWritten(fd uintptr, off, n int64)    {}
