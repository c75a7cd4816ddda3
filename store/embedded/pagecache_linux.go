package embedded

import "golang.org/x/sys/unix"

// startWriteback starts writing a file's range to disk, without waiting.
func startWriteback(fd uintptr, off, n int64) {
	_ = unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WRITE)
}

// dropWritten waits for a file's range to be on disk and drops its pages from the cache.
func dropWritten(fd uintptr, off, n int64) {
	_ = unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WAIT_BEFORE|unix.SYNC_FILE_RANGE_WRITE|unix.SYNC_FILE_RANGE_WAIT_AFTER)
	_ = unix.Fadvise(int(fd), off, n, unix.FADV_DONTNEED)
}
