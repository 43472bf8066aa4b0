//go:build unix

// datasetmap_unix.go maps an on-disk dataset's files (mmap) and lets the
// process give their pages back (madvise).

package feature

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// mapFile maps the file at path read-only and shared: its pages are the
// page cache's, read in on first touch. An empty file maps to nil.
func mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return nil, err
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err == nil {
		// No read-ahead into the mapping: a fault maps the page it needs
		// (see cacheSmall).
		unix.Madvise(b, unix.MADV_RANDOM)
	}
	return b, err
}

func unmapFile(b []byte) error {
	if b == nil {
		return nil
	}
	return unix.Munmap(b)
}

// ReleaseOver keeps the mapped pages the process holds near limit bytes
// until Close: every releasePoll it reads the process's resident file
// pages (/proc/self/statm) and, past limit, gives all the mapped pages
// back; where statm cannot be read, it gives them back every poll. The
// pages stay in the page cache (the files are clean and mapped shared),
// so a page touched again is mapped again without a read from disk while
// memory allows; a learner reading the arrays never sees a difference
// (MADV_DONTNEED on a shared file mapping drops the mapping of a page,
// not its contents).
func (md *MappedDataset) ReleaseOver(limit int64) {
	if md.stop != nil || len(md.maps) == 0 {
		return
	}
	md.stop, md.released = make(chan struct{}), make(chan struct{})
	go releaseLoop(md.maps, limit, md.stop, md.released)
}

func releaseLoop(maps [][]byte, limit int64, stop, released chan struct{}) {
	defer close(released)
	t := time.NewTicker(releasePoll)
	defer t.Stop()
	statm := make([]byte, 128)
	page := int64(os.Getpagesize())
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if n, ok := residentShared(statm); ok && n*page <= limit {
				continue
			}
			for _, b := range maps {
				unix.Madvise(b, unix.MADV_DONTNEED)
			}
		}
	}
}
