//go:build unix

package sdk

import (
	"os"

	"golang.org/x/sys/unix"

	"github.com/trellis-nlp/trellis/plugins/protocol"
)

// handshakeOut is the real stdout, kept for go-plugin's handshake line; file
// descriptor 1 itself is pointed at stderr as the sdk package initializes,
// so anything a plugin prints (in init functions, main, or C code) lands in
// the host's log instead of corrupting the handshake.
var handshakeOut *os.File

func init() {
	if os.Getenv(protocol.Handshake.MagicCookieKey) == "" {
		return // run by hand: leave stdout alone
	}
	fd, err := unix.Dup(1)
	if err != nil {
		return
	}
	unix.CloseOnExec(fd)
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(fd)
		return
	}
	handshakeOut = os.NewFile(uintptr(fd), "/dev/stdout")
}

func restoreStdout() {
	if handshakeOut != nil {
		os.Stdout = handshakeOut
	}
}
