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
	return unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
}

func unmapFile(b []byte) error {
	if b == nil {
		return nil
	}
	return unix.Munmap(b)
}

// ReleaseEvery gives the mapped pages back every interval until Close:
// the process's resident set then holds what it touched since the last
// release, not the whole dataset. The pages stay in the page cache (the
// file is clean and mapped shared), so a page touched again is mapped
// again without a read from disk while memory allows; a learner reading
// the arrays never sees a difference (MADV_DONTNEED on a shared file
// mapping drops the mapping of a page, not its contents).
func (md *MappedDataset) ReleaseEvery(interval time.Duration) {
	if md.stop != nil || len(md.maps) == 0 {
		return
	}
	md.stop, md.released = make(chan struct{}), make(chan struct{})
	go func(maps [][]byte, stop, released chan struct{}) {
		defer close(released)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				for _, b := range maps {
					unix.Madvise(b, unix.MADV_DONTNEED)
				}
			}
		}
	}(md.maps, md.stop, md.released)
}
