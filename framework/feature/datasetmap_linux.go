// datasetmap_linux.go reads the process's resident file pages and keeps a
// dataset's page cache in single pages, on Linux.

package feature

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// residentShared reads the resident shared (file-backed) pages of the
// process from /proc/self/statm, its third field, into buf.
func residentShared(buf []byte) (int64, bool) {
	f, err := os.Open("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	n, _ := f.Read(buf)
	f.Close()
	var size, resident, shared int64
	if _, err := fmt.Sscan(string(buf[:n]), &size, &resident, &shared); err != nil {
		return 0, false
	}
	return shared, true
}

// cacheSmall makes the file's next reads fill the page cache with single
// pages: it drops what is cached of it (clean once written and synced)
// and turns read-ahead off. A mapping's fault maps the whole cached folio
// it falls in, and the large folios of writes and read-ahead (megabytes
// each on Linux 6.x) put gigabytes of a randomly read dataset in the
// resident set within milliseconds of a release (docs/results.md,
// "Out-of-core training: keeping the mapped pages few"). The check reads
// the file through once after this, so the dataset is cached page by
// page before it is mapped.
func cacheSmall(f *os.File) {
	unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
	unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_RANDOM)
}
