//go:build !unix

// datasetmap_other.go reads an on-disk dataset's files into memory where
// they cannot be mapped: the dataset is then in memory after all.

package feature

import "os"

func mapFile(path string) ([]byte, error) { return os.ReadFile(path) }

func unmapFile([]byte) error { return nil }

// ReleaseOver does nothing: the files were read into memory.
func (md *MappedDataset) ReleaseOver(int64) {}
