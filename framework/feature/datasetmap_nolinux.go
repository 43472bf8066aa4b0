//go:build !linux

// datasetmap_nolinux.go: where there is no /proc/self/statm and no
// posix_fadvise, ReleaseOver gives the pages back at every poll and the
// page cache is left as it is.

package feature

import "os"

func residentShared([]byte) (int64, bool) { return 0, false }

func cacheSmall(*os.File) {}
