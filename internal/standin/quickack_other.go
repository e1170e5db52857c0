//go:build !linux

package standin

// quickAck is Linux-only (TCP_QUICKACK); elsewhere the kernel's delayed ACK is left as is.
func quickAck(uintptr) {}
