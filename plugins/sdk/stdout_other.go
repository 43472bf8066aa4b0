//go:build !unix

package sdk

func restoreStdout() {}
