package fileio

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
)

// File is a file being written: the bytes go to a temporary file beside
// the destination until Commit renames it into place. Close without
// Commit (or after a failed one) removes the temporary file, so
// `defer f.Close()` is always right.
type File struct {
	*os.File
	path string
	done bool
}

// Create starts writing path. The temporary file is hidden (".NAME.tmp-*")
// and made readable by all, like a file os.Create would make.
func Create(path string) (*File, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	// CreateTemp makes the file 0600; results are meant to be shared.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	return &File{File: tmp, path: path}, nil
}

// Commit syncs the file and renames it into place.
func (f *File) Commit() error {
	if f.done {
		return os.ErrClosed
	}
	f.done = true
	name := f.File.Name()
	err := f.File.Sync()
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, f.path)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}

// Close abandons the file unless it was committed.
func (f *File) Close() error {
	if f.done {
		return nil
	}
	f.done = true
	f.File.Close()
	return os.Remove(f.File.Name())
}

// WriteFile writes data to path whole or not at all.
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

// WriteJSON writes v to path as indented JSON with a final newline, the
// form of every JSON file of a run directory.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFile(path, append(b, '\n'))
}

// SHA256File returns the SHA-256 of a file's content, hex encoded.
func SHA256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
